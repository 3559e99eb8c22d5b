package dev.kafko;

import java.nio.file.Path;

/**
 * Run in a second JVM by {@link SecondProcessLockTest}: tries to open the directory given as the
 * first argument and reports the outcome through its exit code (0 opened, 3 already open, 4 other).
 */
public final class LockProbe {

    private LockProbe() {
    }

    public static void main(String[] args) {
        try (Kafko k = Kafko.open(Path.of(args[0]))) {
            System.out.println("OPENED " + k.dataDir());
            System.exit(0);
        } catch (AlreadyOpenException e) {
            System.out.println("ALREADY_OPEN " + e.getMessage());
            System.exit(3);
        } catch (RuntimeException e) {
            e.printStackTrace(System.out);
            System.exit(4);
        }
    }
}
