package dev.kafko.internal.broker;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Internal: background work of active segments that their writers never wait for unless they need
 * it: the next steps of zeros (written, mapped and page-touched; see {@code SegmentFile}) and the
 * seal of a rolled segment (its fsync and index files; see {@code PartitionLog}). Up to two daemon
 * threads, {@code kafko-preparer} (a long seal does not hold up the steps of other partitions), that
 * exist only while there is work and for a few seconds after. Any thread may submit; {@link #close()}
 * waits for the work in hand and stops the threads. A writer that needs a step or a seal done before
 * a thread got to it runs it itself, so nothing depends on these threads being timely.
 */
public final class Preparer implements Executor, AutoCloseable {

    public static final String THREAD_NAME = "kafko-preparer";

    private final ThreadPoolExecutor executor;
    private final DaemonThreads threads = new DaemonThreads(THREAD_NAME);

    public Preparer() {
        // no thread until there is work, and none when idle
        executor = new ThreadPoolExecutor(2, 2, 5, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threads);
        executor.allowCoreThreadTimeOut(true);
    }

    @Override
    public void execute(Runnable step) {
        executor.execute(step);
    }

    /**
     * Stops the threads after the work in hand. Never interrupts them: an interrupt would close a
     * file channel under its write or fsync.
     */
    @Override
    public void close() {
        Scheduler.shutdownAndWait(executor, THREAD_NAME, false); // kafko's own file work: a close waits for it
        threads.joinAll();
    }
}
