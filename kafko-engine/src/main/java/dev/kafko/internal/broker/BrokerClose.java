package dev.kafko.internal.broker;

import dev.kafko.KafkoException;
import dev.kafko.internal.io.Uninterruptibly;
import dev.kafko.internal.io.Failures;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the close of one {@link Broker} once {@link Broker#close()} has marked it closed (no admin call starts
 * any more), and the wait of every later close for the first. The first close writes the pending sends on its
 * caller's thread, then runs the rest (the scheduler stopped, the partitions closed, beside {@code kafko-close-<n>}
 * helpers when they are many, their groups closed, the deletions in flight awaited, the preparer stopped, the
 * directory released) on a {@code kafko-close} thread that the caller waits for; called inside kafko's own work,
 * it starts that thread without waiting for it, or, from a send's callback, closes on the callback's thread.
 * {@link #close} runs once, on the first close's thread; {@link #awaitClosed} on any thread.
 */
final class BrokerClose {

    /** Logged under the broker's name: what a close reports is the instance's. */
    private static final System.Logger LOG = System.getLogger(Broker.class.getName());

    /** The most threads a {@link Broker#close()} closes partitions on, itself included. */
    private static final int CLOSE_THREADS = 4;
    /** A close takes one more thread for each this many partitions (up to {@link #CLOSE_THREADS}). */
    private static final int CLOSE_PARTITIONS_PER_THREAD = 64;

    /** Starts a helper of {@link #closeAll} on {@code work}, named {@code name}; a test's may fail as a start can. */
    static volatile BiFunction<Runnable, String, Thread> helperStarter = new DaemonStarter();

    /** Starts a daemon thread. */
    private static final class DaemonStarter implements BiFunction<Runnable, String, Thread> {
        @Override
        public Thread apply(Runnable work, String name) {
            Thread helper = new Thread(work, name);
            helper.setDaemon(true);
            helper.start();
            return helper;
        }
    }

    private final Path dataDir;
    private final BrokerContext ctx;
    private final DirectoryLock lock;
    private final TopicDeletions deletions;
    /** The broker's topics; no longer changes once the broker is marked closed. */
    private final Map<String, TopicImpl> topics;
    /** Opened when the first {@link Broker#close()} has finished. */
    private final CountDownLatch closeDone = new CountDownLatch(1);
    /** What the first close threw, for the others to throw as well; set before {@link #closeDone} opens. */
    private volatile @Nullable Throwable closeFailure;
    /** The thread that closes, when not the caller of {@link Broker#close()}; set once, before it is started. */
    private volatile @Nullable Thread closer;

    BrokerClose(Path dataDir, BrokerContext ctx, DirectoryLock lock, TopicDeletions deletions,
                Map<String, TopicImpl> topics) {
        this.dataDir = dataDir;
        this.ctx = ctx;
        this.lock = lock;
        this.deletions = deletions;
        this.topics = topics;
    }

    /**
     * The first close, once the broker is marked closed and every handle refuses new work: closes
     * {@code partitions}, the groups, and lets the directory go.
     */
    void close(List<PartitionActor> partitions) {
        int[] marks = ThreadMarks.get();
        if (marks[ThreadMarks.OWNING] > 0 || marks[ThreadMarks.OBSERVING] > 0
                || (marks[ThreadMarks.COMPLETING] > 0 && deletions.pending())) {
            // (a send's callback while a deletion is in flight: the close waits for the deletion, which may
            // wait for this callback to return)
            // inside a partition's work (an observer's callback): the close needs that partition, and a group an
            // observer may hold, so it runs on a thread of its own once this call returns
            if (!startCloser(partitions, false)) {
                KafkoException e = new KafkoException("closing " + dataDir + " from inside kafko's work (an observer)"
                        + " needs a thread of its own, and none could be started");
                closeFailure = e;
                closeDone.countDown();
                throw e;
            }
            return;
        }
        if (marks[ThreadMarks.COMPLETING] > 0) {
            // a send's callback: the close may wait for the round this thread completes, unless this thread closes
            finishClose(partitions);
            return;
        }
        // the sends still pending are written and their futures completed here, as a flush does: their callbacks
        // run on the caller's thread, which may hold a lock they take
        for (PartitionActor a : partitions) {
            try {
                a.commands.writeSubmittedForClose();
            } catch (RuntimeException e) {
                // a failed partition: its close below reports what it must
            }
        }
        // the rest of the file work runs on a thread nobody interrupts: an interrupt during a channel's call
        // closes the channel, and the lock's channel (whose closing drops the lock) is not opened again. The
        // caller waits without being cut short and keeps its interrupt
        if (startCloser(partitions, true)) {
            awaitClosed();
        } else {
            finishClose(partitions);
        }
    }

    /**
     * Runs {@link #finishClose} on a {@code kafko-close} thread; false when no thread could be started. What
     * the close throws goes to the callers of {@link Broker#close()} ({@link #awaitClosed}), not to the thread's
     * uncaught-exception handler; when {@code callerWaits} is false, nobody waits, and it is logged.
     */
    private boolean startCloser(List<PartitionActor> partitions, boolean callerWaits) {
        Thread t = new Thread(() -> {
            try {
                finishClose(partitions);
            } catch (RuntimeException | Error e) {
                if (!callerWaits) {
                    LOG.log(Level.ERROR, "closing " + dataDir + " failed: " + e, e);
                }
            }
        }, "kafko-close");
        t.setDaemon(false); // the JVM waits for the close to finish, a durability boundary
        closer = t;
        try {
            t.start();
        } catch (OutOfMemoryError e) {
            closer = null;
            return false; // no native thread to be had
        }
        return true;
    }

    private void finishClose(List<PartitionActor> partitions) {
        try {
            closeAfterMarked(partitions);
        } catch (RuntimeException | Error e) {
            closeFailure = e;
            throw e;
        } finally {
            closeDone.countDown();
        }
    }

    /**
     * The closing itself, once no admin call can start; the topics map no longer changes. A step that fails (even
     * with an {@code Error}) skips none of the steps after it: every partition and group is closed, the threads
     * stopped and the directory let go; the first failure is thrown, the others suppressed in it.
     */
    private void closeAfterMarked(List<PartitionActor> partitions) {
        // then the scheduler: nothing may post flushes or retention into a closing partition
        Throwable first = step(null, () -> ctx.scheduler().close());
        try {
            first = Failures.suppress(first, closeAll(partitions));
        } catch (RuntimeException | Error e) {
            first = Failures.suppress(first, e); // closeAll tried every partition it could; the steps below still run
        }
        for (TopicImpl t : topics.values()) {
            first = step(first, () -> t.closeGroups(false));
        }
        if (first != null) {
            LOG.log(Level.ERROR, "closing " + dataDir + " failed: " + first, first);
        }
        // a deletion in flight still closes its partitions and deletes its files: the directory stays locked
        first = step(first, deletions::awaitNone);
        // the logs are closed: no step of theirs is prepared any more
        first = step(first, () -> ctx.preparer().close());
        first = step(first, lock::release);
        Failures.rethrow(first);
    }

    /** Runs {@code step}; returns {@code first}, or what the step threw when it is the first failure. */
    private static @Nullable Throwable step(@Nullable Throwable first, Runnable step) {
        try {
            step.run();
            return first;
        } catch (RuntimeException | Error e) {
            return Failures.suppress(first, e);
        }
    }

    /**
     * A second close returns once the first one finished (a durability boundary for each caller), and throws
     * what the first one threw; inside kafko's own work (a send's callback, an observer, which the first close
     * may be waiting for) it returns at once.
     */
    void awaitClosed() {
        int[] marks = ThreadMarks.get();
        if (marks[ThreadMarks.OWNING] > 0 || marks[ThreadMarks.COMPLETING] > 0 || marks[ThreadMarks.OBSERVING] > 0) {
            return;
        }
        Uninterruptibly.await(closeDone);
        Thread t = closer;
        if (t != null && t != Thread.currentThread()) {
            Uninterruptibly.join(List.of(t)); // no thread of the instance outlives its close
        }
        // the first close failed: what it could not make durable is not, for this caller either
        Failures.rethrow(closeFailure);
    }

    /**
     * Closes {@code partitions} (each one's appends written, fsynced, indexed, marked clean), on this
     * thread and, for many partitions, on up to {@link #CLOSE_THREADS} - 1 threads more, started here and
     * joined before it returns: each close waits for an fsync, and the file system commits concurrent
     * fsyncs together (1,024 partitions closed in 0.8-2.0 s one after the other on the test VM). Returns the
     * first failure, having tried every partition.
     */
    private static @Nullable Throwable closeAll(List<PartitionActor> partitions) {
        AtomicInteger next = new AtomicInteger();
        AtomicReference<Throwable> first = new AtomicReference<>();
        Runnable work = () -> {
            for (int i = next.getAndIncrement(); i < partitions.size(); i = next.getAndIncrement()) {
                try {
                    partitions.get(i).commands.closeLog();
                } catch (RuntimeException | Error e) {
                    first.compareAndSet(null, e);
                }
            }
        };
        int threads = Math.min(CLOSE_THREADS, Math.max(1, partitions.size() / CLOSE_PARTITIONS_PER_THREAD));
        List<Thread> helpers = new ArrayList<>(threads); // sized: adding a helper that started allocates nothing
        for (int h = 1; h < threads; h++) {
            Thread helper;
            try {
                helper = helperStarter.apply(work, "kafko-close-" + h);
            } catch (RuntimeException | Error e) {
                // no thread to be had (out of native threads, or of heap): this thread closes the rest itself. Thrown,
                // it skipped every partition, the groups, the preparer and the directory lock
                break;
            }
            helpers.add(helper);
        }
        work.run();
        Uninterruptibly.join(helpers); // the close finishes first: it is a durability boundary
        return first.get();
    }
}
