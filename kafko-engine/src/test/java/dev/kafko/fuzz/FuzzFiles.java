package dev.kafko.fuzz;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * A scratch directory for fuzz targets that parse files (on /dev/shm when there is one), and the
 * CRC fix-ups that let the fuzzer reach past a file's checksum. One test class at a time.
 */
final class FuzzFiles {

    private FuzzFiles() {
    }

    static Path newDirectory(String prefix) {
        try {
            Path shm = Path.of("/dev/shm");
            return Files.isDirectory(shm) && Files.isWritable(shm) ? Files.createTempDirectory(shm, prefix)
                    : Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void delete(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Stores at {@code crcOffset} (little-endian) the CRC32C of every other byte, as the index files do. */
    static void fixSkippingCrc(byte[] b, int crcOffset) {
        if (b.length < crcOffset + 4) {
            return;
        }
        CRC32C c = new CRC32C();
        c.update(b, 0, crcOffset);
        c.update(b, crcOffset + 4, b.length - crcOffset - 4);
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(crcOffset, (int) c.getValue());
    }
}
