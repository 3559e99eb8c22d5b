package dev.kafko.bench.peer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.Stream;

/** Temp directories and payloads for the peer benchmarks. Called from JMH setup and teardown only. */
final class BenchFiles {

    private BenchFiles() {
    }

    /**
     * A new directory under {@code java.io.tmpdir}, the same parent that kafko's storage benchmarks
     * use, so that both write to one filesystem.
     */
    static Path createTempDir(String prefix) {
        try {
            return Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), prefix);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temp dir for " + prefix, e);
        }
    }

    static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }

    /** {@code size} pseudo-random bytes from a fixed seed: incompressible and the same every run. */
    static byte[] payload(int size, long seed) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }
}
