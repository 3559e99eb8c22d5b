package dev.kafko.spring.listener;

import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * The one non-daemon thread, {@code kafko-keep-alive}, that keeps the JVM alive while any listener
 * container of this JVM runs. Member threads are daemon threads (virtual ones always are), so that a
 * member stuck in its listener past the shutdown timeout cannot hold the JVM after its context closed;
 * without this thread an application whose only work is its listeners (no web server) would exit as soon
 * as it started, as Boot's {@code spring.main.keep-alive} exists to prevent for virtual threads. A
 * container holds it from its start until it is asked to stop, so a JVM whose containers are all stopped
 * (or never started) exits as it would without kafko. Thread-safe.
 */
final class KeepAlive {

    private static int holders;
    private static @Nullable Thread thread;

    private KeepAlive() {
    }

    /** A container started: the JVM stays alive until it {@link #release}s. */
    static synchronized void acquire() {
        if (holders++ == 0) {
            Thread t = new Thread(new Parker(), "kafko-keep-alive");
            t.setDaemon(false);
            t.start();
            thread = t;
        }
    }

    /** How many containers hold it now. */
    static synchronized int holders() {
        return holders;
    }

    /** A container was asked to stop. */
    static synchronized void release() {
        if (--holders == 0) {
            Thread t = thread;
            thread = null;
            KeepAlive.class.notifyAll();
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    /** The thread's work: {@link #park}. */
    private static final class Parker implements Runnable {

        @Override
        public void run() {
            park();
        }
    }

    private static void park() {
        Thread self = Thread.currentThread();
        while (true) {
            synchronized (KeepAlive.class) {
                if (thread != self) {
                    return;
                }
            }
            LockSupport.park(KeepAlive.class);
        }
    }
}
