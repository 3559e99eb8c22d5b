package dev.kafko.internal.broker;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Internal: runs the background work of active segments off the writers' threads: write-behind
 * fsyncs (see {@code PartitionLog}) and steps of zeros prepared ahead of the writer (see
 * {@code SegmentFile}). Up to two daemon threads, {@code kafko-flusher}, that exist only while there
 * is work and for a few seconds after. Any thread may submit; {@link #close()} waits for the work
 * in hand and stops the threads. A log waits for its own write-behind wherever it needs the file to
 * itself (a roll, close), running it itself when no thread has started it yet, so nothing depends on
 * these threads being timely.
 */
public final class Flusher implements Executor, AutoCloseable {

    public static final String THREAD_NAME = "kafko-flusher";

    private final ThreadPoolExecutor executor;

    public Flusher() {
        // no thread until there is work and none when idle; two, so that a step of zeros need not
        // wait behind a long fsync of another segment
        executor = new ThreadPoolExecutor(2, 2, 5, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, THREAD_NAME);
            t.setDaemon(true);
            return t;
        });
        executor.allowCoreThreadTimeOut(true);
    }

    @Override
    public void execute(Runnable flush) {
        executor.execute(flush);
    }

    /**
     * Stops the threads after the work in hand. Never interrupts them: an interrupt would close the
     * file channel under an fsync.
     */
    @Override
    public void close() {
        Scheduler.shutdownAndWait(executor, THREAD_NAME);
    }
}
