package dev.kafko.bench.log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Shared helpers of the log benchmarks: temp directories and record values. */
final class BenchFiles {

    private BenchFiles() {
    }

    static Path tempDir(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A compressible value (JSON-like text with a varying id), as typical event payloads are. */
    static byte[] value(long i, int size) {
        StringBuilder sb = new StringBuilder(size);
        sb.append("{\"id\":").append(i).append(",\"type\":\"order-created\",\"customer\":\"c-").append(i % 977)
                .append("\",\"items\":[");
        while (sb.length() < size) {
            sb.append("{\"sku\":\"A-").append(i % 13).append("\",\"qty\":1},");
        }
        byte[] b = sb.toString().getBytes(StandardCharsets.UTF_8);
        return java.util.Arrays.copyOf(b, size);
    }
}
