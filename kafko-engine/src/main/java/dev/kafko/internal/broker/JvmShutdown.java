package dev.kafko.internal.broker;

/**
 * Internal: whether the JVM is running its shutdown hooks. A close in a shutdown hook (Spring's closes the
 * context) must not wait without end for a thread of kafko's that runs user code: a send's callback that called
 * {@code System.exit} waits for that very hook, so neither would ever return.
 */
final class JvmShutdown {

    private JvmShutdown() {
    }

    /**
     * True once the JVM began its shutdown: a hook can no longer be registered then. Registers and removes an
     * unstarted thread, so it costs a lock and an allocation: for slow paths only (a wait that timed out).
     */
    static boolean inProgress() {
        Thread probe = new Thread(() -> { }, "kafko-shutdown-probe");
        try {
            Runtime.getRuntime().addShutdownHook(probe);
        } catch (IllegalStateException e) {
            return true;
        }
        Runtime.getRuntime().removeShutdownHook(probe);
        return false;
    }
}
