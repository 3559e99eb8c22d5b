package dev.kafko.internal.log;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;

/** Test helpers over the process's real mappings ({@code /proc/self/maps}, Linux) and the mapping budget. */
public final class ProcMaps {

    private static final Path MAPS = Path.of("/proc/self/maps");

    private ProcMaps() {
    }

    /** Skips the test where the kernel does not list the process's mappings. */
    public static void assumeReadable() {
        assumeTrue(Files.isReadable(MAPS), "needs /proc/self/maps");
    }

    /** The names of the segment files under {@code dir} that the process maps now (deleted ones too). */
    static Set<String> mappedSegments(Path dir) {
        String prefix = dir.toAbsolutePath().toString() + "/";
        Set<String> names = new TreeSet<>();
        try {
            for (String line : Files.readAllLines(MAPS)) {
                int at = line.indexOf(prefix);
                if (at < 0) {
                    continue;
                }
                String file = line.substring(at).replace(" (deleted)", "");
                String name = file.substring(file.lastIndexOf('/') + 1);
                if (FileNames.isSegmentFile(name)) {
                    names.add(file.substring(prefix.length()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return names;
    }

    /** How many mappings the process holds of files under {@code dir}; of deleted files only with {@code deletedOnly}. */
    public static int mappings(Path dir, boolean deletedOnly) {
        String prefix = dir.toAbsolutePath() + "/";
        try {
            int n = 0;
            for (String line : Files.readAllLines(MAPS)) {
                if (line.contains(prefix) && (!deletedOnly || line.endsWith("(deleted)"))) {
                    n++;
                }
            }
            return n;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Collects garbage, then forgets every window counted so far ({@link MappingBudget#forgetForTests}),
     * and returns the count a test measures from: 0. Files of earlier tests that are released or collected
     * later then give nothing back, so they cannot move the test's count.
     */
    static int settledBudget() {
        for (int i = 0; i < 3; i++) {
            System.gc();
            sleep(20);
        }
        MappingBudget.forgetForTests();
        return MappingBudget.used();
    }

    /**
     * Collects garbage until {@code done} holds, for at most 30 s (a loaded machine runs the cleaner late); returns
     * whether it did.
     */
    public static boolean collectUntil(BooleanSupplier done) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            System.gc();
            sleep(20);
        }
        return true;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
