package dev.kafko.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * Test plumbing: scratch directories on tmpfs (/dev/shm, where fsync costs nothing, for tests
 * that reopen a log thousands of times) and silencing the engine's recovery warnings while they
 * run. Test threads only.
 */
final class Scratch {

    /** Held so that the logger's level is not lost to garbage collection. */
    private static final Logger ENGINE_LOG = Logger.getLogger("dev.kafko");

    private Scratch() {
    }

    /** A new directory on /dev/shm when it exists, else below {@code fallback}. */
    static Path directory(Path fallback, String prefix) throws IOException {
        Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm) ? Files.createTempDirectory(shm, prefix)
                : Files.createTempDirectory(fallback, prefix);
    }

    static void delete(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Recovery logs a warning per damaged file; thousands of reopens would flood the report. */
    static void quietEngineLogs() {
        ENGINE_LOG.setLevel(Level.SEVERE);
    }
}
