package dev.kafko.internal.broker;

import dev.kafko.internal.io.Uninterruptibly;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the one background thread of an instance, {@code kafko-scheduler}, a daemon that runs
 * retention and interval fsyncs (both only post commands into partition mailboxes). Any thread may
 * schedule; {@link #close()} stops the thread and waits for it.
 */
final class Scheduler implements AutoCloseable {

    static final String THREAD_NAME = "kafko-scheduler";
    private static final System.Logger LOG = System.getLogger(Scheduler.class.getName());
    /** How long a close waits for the scheduler's task in hand between its checks of the JVM's shutdown. */
    private static final long WAIT_SLICE_MILLIS = 500;
    /** How often a close that waits for the scheduler's task in hand says so. */
    private static final long STILL_WAITING_MILLIS = 10_000;
    /** How long after dying of an {@link Error} a one-shot task runs again. */
    static final Duration RETRY_AFTER = Duration.ofMillis(10);

    private final ScheduledThreadPoolExecutor executor;
    /** The thread, once started; see {@link #isCurrentThread()}. */
    private volatile @Nullable Thread thread;

    Scheduler() {
        executor = new ScheduledThreadPoolExecutor(1, new ThreadFactory() {
            @Override
            public Thread newThread(Runnable r) {
                Thread t = new Thread(r, THREAD_NAME);
                thread = t;
                t.setDaemon(true);
                return t;
            }
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
    }

    /**
     * Whether the calling thread is this scheduler's. A send made there must never linger: the end
     * of a linger is a task of this thread, and user code it runs (a future's callback) may wait for
     * that send. (One field read: it is asked on every send.)
     */
    boolean isCurrentThread() {
        return Thread.currentThread() == thread;
    }

    /** Whether {@link #close} began: every task is refused from then on, and those delayed were dropped. */
    boolean isClosed() {
        return executor.isShutdown();
    }

    /**
     * Runs {@code task} once after {@code delay}; false (the task dropped) once closed. A task that dies of an
     * {@link Error} (the heap ran out) runs again {@link #RETRY_AFTER} later, until it returns or this closes:
     * one-shot tasks post the commands their partitions wait for (the end of a linger, an interval fsync, a
     * group's offsets force), each marked as scheduled until it runs; dropped, the mark would stay for ever.
     */
    boolean schedule(Runnable task, Duration delay) {
        try {
            executor.schedule(new OneShot(task), Durations.saturatedNanos(delay), TimeUnit.NANOSECONDS);
            return true;
        } catch (RejectedExecutionException e) {
            LOG.log(Level.DEBUG, "scheduler closed; dropped a task");
            return false;
        }
    }

    /** Runs {@code task} every {@code period}. */
    ScheduledFuture<?> every(Runnable task, Duration period) {
        long nanos = Durations.saturatedNanos(period);
        return executor.scheduleWithFixedDelay(new Periodic(task), nanos, nanos, TimeUnit.NANOSECONDS);
    }

    /** A periodic task's round: one failed round must not cancel it (the executor cancels it on any throwable). */
    private static final class Periodic implements Runnable {
        private final Runnable task;

        Periodic(Runnable task) {
            this.task = task;
        }

        @Override
        public void run() {
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                complain(e, "");
            }
        }
    }

    /** Logs a failed task; a log that fails too (out of heap still) must not fail the caller. */
    private static void complain(Throwable e, String what) {
        try {
            LOG.log(Level.WARNING, "background task failed" + what + ": " + e, e);
        } catch (RuntimeException | Error ignored) {
            // nothing left to report it with
        }
    }

    /** A one-shot task, run again after an {@link Error}; see {@link #schedule}. */
    private final class OneShot implements Runnable {

        private final Runnable task;
        private int failures;

        OneShot(Runnable task) {
            this.task = task;
        }

        @Override
        public void run() {
            try {
                task.run();
            } catch (RuntimeException e) {
                complain(e, "");
            } catch (Error e) {
                failures++;
                // an Error the task throws every time is logged once, then only at DEBUG
                if (failures == 1) {
                    complain(e, "; it runs again every " + RETRY_AFTER.toMillis() + " ms until it completes");
                } else {
                    LOG.log(Level.DEBUG, "background task failed again: " + e);
                }
                again();
            }
        }

        /** Schedules this again; while the heap is still too short for that, waits here and tries again. */
        private void again() {
            for (;;) {
                try {
                    executor.schedule(this, RETRY_AFTER.toNanos(), TimeUnit.NANOSECONDS);
                    return;
                } catch (RejectedExecutionException closed) {
                    return; // the close drains the partitions itself
                } catch (Error e) {
                    if (executor.isShutdown()) {
                        return;
                    }
                    LockSupport.parkNanos(RETRY_AFTER.toNanos());
                }
            }
        }
    }

    /**
     * Stops the thread, waiting for a running task to end and the thread to exit. The thread is not
     * interrupted: it may be a partition's owner inside an fsync, and an interrupt would close the file
     * channel under it. Called on the scheduler's own thread (a callback of a send whose linger it ended
     * closes the instance), it only shuts the executor down: the thread ends once that task returns.
     */
    @Override
    public void close() {
        if (isCurrentThread()) {
            executor.shutdown();
            return;
        }
        Thread t = thread;
        if (shutdownAndWait(executor, THREAD_NAME, true) && t != null) {
            Uninterruptibly.join(List.of(t));
        }
    }

    /**
     * Shuts {@code executor} down and waits for its tasks in hand, without interrupting them; true once they
     * ended. With {@code userCode} (its tasks run users' callbacks), while the JVM shuts down it waits at most
     * {@link PartitionCommands#CLOSE_COMPLETION_WAIT} and returns false: a task that runs a send's callback which
     * called {@code System.exit} waits for the shutdown hook this close runs in, and would hold the JVM for ever.
     */
    static boolean shutdownAndWait(ExecutorService executor, String threadName, boolean userCode) {
        executor.shutdown();
        boolean interrupted = false;
        long waitedMillis = 0;
        try {
            while (true) {
                try {
                    if (executor.awaitTermination(WAIT_SLICE_MILLIS, TimeUnit.MILLISECONDS)) {
                        return true;
                    }
                    waitedMillis += WAIT_SLICE_MILLIS;
                    if (userCode && waitedMillis >= PartitionCommands.CLOSE_COMPLETION_WAIT.toMillis()
                            && JvmShutdown.inProgress()) {
                        LOG.log(Level.WARNING, threadName + " did not stop within " + PartitionCommands.CLOSE_COMPLETION_WAIT
                                + " while the JVM shuts down (a send's callback on it that waits, such as one that calls"
                                + " System.exit, waits for this close); the close goes on without it");
                        return false;
                    }
                    if (waitedMillis % STILL_WAITING_MILLIS == 0) {
                        LOG.log(Level.WARNING, "still waiting for " + threadName + " to stop");
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
