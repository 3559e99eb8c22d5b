package dev.kafko.internal.broker;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Internal: prepares the active segments' next steps of zeros (written, mapped and page-touched; see
 * {@code SegmentFile}) off the writers' threads, on one daemon thread, {@code kafko-preparer}, that
 * exists only while there is work and for a few seconds after. Any thread may submit; {@link #close()}
 * waits for the work in hand and stops the thread. A writer that reaches the end of what is prepared
 * prepares the next step itself, so nothing depends on this thread being timely.
 */
public final class Preparer implements Executor, AutoCloseable {

    public static final String THREAD_NAME = "kafko-preparer";

    private final ThreadPoolExecutor executor;
    /** The threads started so far that may still be alive; pruned whenever one more starts. */
    private final List<Thread> threads = new ArrayList<>();

    public Preparer() {
        // no thread until there is work, and none when idle
        executor = new ThreadPoolExecutor(1, 1, 5, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), this::newThread);
        executor.allowCoreThreadTimeOut(true);
    }

    private Thread newThread(Runnable r) {
        Thread t = new Thread(r, THREAD_NAME);
        t.setDaemon(true);
        synchronized (threads) {
            threads.removeIf(x -> !x.isAlive());
            threads.add(t);
        }
        return t;
    }

    @Override
    public void execute(Runnable step) {
        executor.execute(step);
    }

    /**
     * Stops the thread after the step in hand. Never interrupts it: an interrupt would close the
     * file channel under its write.
     */
    @Override
    public void close() {
        Scheduler.shutdownAndWait(executor, THREAD_NAME);
        List<Thread> started;
        synchronized (threads) {
            started = List.copyOf(threads);
        }
        // terminated means the last task ended; the thread itself may still be on its way out
        boolean interrupted = false;
        for (Thread t : started) {
            while (t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
