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
 * Internal: the close of one {@link Broker}, and the wait of every later close for the first. A close starts a
 * {@code kafko-close} thread, which marks the broker closed (no admin call starts any more), waits while the
 * caller writes the pending sends on its own thread, then runs the rest (the scheduler stopped, the partitions
 * closed, beside {@code kafko-close-<n>} helpers when they are many, their groups closed, the deletions in flight
 * awaited, the preparer stopped, the directory released) while the caller waits for it; called inside kafko's own
 * work, the caller returns once the broker is marked closed, or, from a send's callback, closes on the callback's
 * thread. Whatever the caller's thread meets (it may run out of stack at any point), the close finishes.
 * {@link #close} and {@link #awaitClosed} on any thread.
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

    /**
     * The frames of a small recursion a close takes below its caller's frame before it changes anything (about 16
     * KiB compiled, 50 KiB interpreted; kafko's own part of a close takes a few): a test's may be 0.
     */
    static volatile int stackReserve = 500;

    /** Run on the caller's thread once the closer marked the broker closed, before the caller's part; tests only. */
    static volatile @Nullable Runnable callersPart;

    /** Run in the close once the scheduler is stopped, outside any step; tests only. */
    static volatile @Nullable Runnable afterScheduler;

    private final Path dataDir;
    private final BrokerContext ctx;
    private final DirectoryLock lock;
    private final TopicDeletions deletions;
    private final Compactions compactions;
    /** The broker's topics; no longer changes once the broker is marked closed. */
    private final Map<String, TopicImpl> topics;
    /** Opened when the first {@link Broker#close()} has finished. */
    private final CountDownLatch closeDone = new CountDownLatch(1);
    /** What the first close threw, for the others to throw as well; set before {@link #closeDone} opens. */
    private volatile @Nullable Throwable closeFailure;
    /** The {@code kafko-close} thread that closes, set before it closes; none when the caller closes alone. */
    private volatile @Nullable Thread closer;
    /**
     * Set once {@link #closeAfterMarked} has run every step: a close that ended before (its thread out of stack)
     * is run again by the closer, each step being one that a second run leaves as the first left it.
     */
    private volatile boolean completed;

    BrokerClose(Path dataDir, BrokerContext ctx, DirectoryLock lock, TopicDeletions deletions,
                Map<String, TopicImpl> topics, Compactions compactions) {
        this.dataDir = dataDir;
        this.ctx = ctx;
        this.lock = lock;
        this.deletions = deletions;
        this.topics = topics;
        this.compactions = compactions;
    }

    /** Marks the broker closed: no admin call starts any more and every handle refuses new work. */
    interface Marker {
        /** The partitions to close, or null when another close marked the broker closed first. */
        @Nullable List<PartitionActor> mark();
    }

    /**
     * One call of {@link #close}: the caller holds its monitor for as long as its own part of the close runs, and
     * the {@code kafko-close} thread it started waits for that monitor before it closes.
     */
    private static final class Claim {
        final Marker marker;
        /** The caller returns once the closer marked the broker closed: nothing closes on the closer then. */
        final boolean callerReturns;
        /** Opened once the closer has run {@link Marker#mark}. */
        final CountDownLatch marked = new CountDownLatch(1);
        /** What the mark returned. */
        volatile @Nullable List<PartitionActor> partitions;
        /** What the mark threw, for the caller to throw. */
        volatile @Nullable Throwable markFailure;

        Claim(Marker marker, boolean callerReturns) {
            this.marker = marker;
            this.callerReturns = callerReturns;
        }
    }

    /**
     * A close: marks the broker closed (through {@code marker}), and, the first time, closes every partition,
     * the groups, and lets the directory go; a later one waits for the first ({@link #awaitClosed}).
     *
     * <p>The marking and the closing run on a {@code kafko-close} thread, whose stack is fresh, and the thread is
     * started before anything changes: a caller deep in a recursion of its own can run out of stack at any point of
     * its close (the JVM even delivers a delayed {@code StackOverflowError} right after a lock was taken, before the
     * {@code try} that releases it), and it left a broker marked closed whose close never ran, every later close
     * waiting for ever, the directory locked (B140 item 4). What stays on the caller's thread is what must run there:
     * the pending sends written and their callbacks run on it (they may take a lock it holds), and, from a send's
     * callback, the whole close (it may wait for the round that thread completes). The caller holds the claim's
     * monitor meanwhile, which the JVM lets go however its frame ends; the closer takes it, then runs the close
     * unless the caller's ran to its end: a caller that runs out of stack anywhere leaves the close to it.
     */
    void close(Marker marker) {
        int[] marks = ThreadMarks.get();
        // inside a partition's work (an observer's callback), or a send's callback while a deletion is in flight:
        // the close needs that partition, and a group an observer may hold, or waits for the deletion, which may
        // wait for this callback to return. It runs on the closer once this call returns
        boolean inside = marks[ThreadMarks.OWNING] > 0 || marks[ThreadMarks.OBSERVING] > 0
                || (marks[ThreadMarks.COMPLETING] > 0 && deletions.pending());
        // a send's callback: the close may wait for the round this thread completes, unless this thread closes
        boolean completing = !inside && marks[ThreadMarks.COMPLETING] > 0;
        if (!stackLeft()) {
            // too near the end of its stack for this thread's part (the sends written, their futures completed, on
            // kafko's frames): out of stack half-way, it would leave rounds that never counted themselves done, which
            // the close would wait for. The closer does it all, and this call fails as if it had run out of stack
            startCloser(new Claim(marker, true));
            throw new StackOverflowError("closing " + dataDir + " needs more stack than this thread has left: the"
                    + " close goes on on a thread of its own");
        }
        Claim claim = new Claim(marker, inside);
        synchronized (claim) {
            if (!startCloser(claim)) {
                closeHere(marker, inside, completing); // no native thread to be had
                return;
            }
            Uninterruptibly.await(claim.marked);
            Failures.rethrow(claim.markFailure);
            List<PartitionActor> partitions = claim.partitions;
            if (partitions != null) {
                if (inside) {
                    return;
                }
                Runnable hook = callersPart;
                if (hook != null) {
                    hook.run();
                }
                if (completing) {
                    finishClose(partitions);
                    return;
                }
                writeSubmitted(partitions);
            }
        }
        awaitClosed();
    }

    /**
     * The frames below which a caller is not deep in a recursion of its own: its whole stack is small (a thread made
     * with a small stack size, or {@code -Xss144k}), where the interpreted probe (about 50 KiB) does not fit, and a
     * close ran there before the reserve; its part of the close is the same as on any thread.
     */
    static final int SHALLOW_FRAMES = 256;

    /**
     * Whether {@link #stackReserve} frames of {@link #probe} fit on this thread's stack (below this call), or the
     * thread is not deep in a recursion (under {@link #SHALLOW_FRAMES} frames) and its stack is only small.
     */
    private static boolean stackLeft() {
        try {
            return probe(stackReserve) >= 0;
        } catch (StackOverflowError e) {
            // fall through: the probe's frames are gone again
        }
        try {
            // (not StackWalker: its class, first initialized out of stack, fails every later use)
            return new Throwable().getStackTrace().length < SHALLOW_FRAMES;
        } catch (RuntimeException | Error e) {
            return false; // out of stack here as well: deep enough
        }
    }

    private static int probe(int frames) {
        return frames <= 0 ? 0 : probe(frames - 1) + 1;
    }

    /**
     * The sends still pending are written and their futures completed on the caller's thread, as a flush does:
     * their callbacks run there, and the caller may hold a lock they take.
     */
    private static void writeSubmitted(List<PartitionActor> partitions) {
        for (PartitionActor a : partitions) {
            try {
                a.commands.writeSubmittedForClose();
            } catch (RuntimeException e) {
                // a failed partition: its close reports what it must
            }
        }
    }

    /** {@link #close} on the caller's thread alone, when no closer could be started. */
    private void closeHere(Marker marker, boolean inside, boolean completing) {
        List<PartitionActor> partitions = marker.mark();
        if (partitions == null) {
            awaitClosed();
            return;
        }
        if (inside) {
            KafkoException e = new KafkoException("closing " + dataDir + " from inside kafko's work (an observer)"
                    + " needs a thread of its own, and none could be started");
            closeFailure = e;
            closeDone.countDown();
            throw e;
        }
        if (!completing) {
            writeSubmitted(partitions);
        }
        finishClose(partitions);
    }

    /**
     * Starts the {@code kafko-close} thread of {@code claim}; false when no thread could be started. Nobody
     * interrupts it: an interrupt during a channel's call closes the channel, and the lock's channel (whose
     * closing drops the lock) is not opened again; the caller waits without being cut short and keeps its
     * interrupt.
     */
    private boolean startCloser(Claim claim) {
        Thread t = new Thread(() -> runCloser(claim), "kafko-close");
        t.setDaemon(false); // the JVM waits for the close to finish, a durability boundary
        try {
            t.start();
        } catch (OutOfMemoryError e) {
            return false; // no native thread to be had
        }
        return true;
    }

    /**
     * The closer: marks the broker closed, waits for the caller's part (its monitor on {@code claim}), then
     * closes, unless the caller's own close ran to its end. What the close throws goes to the callers of
     * {@link Broker#close()} ({@link #awaitClosed}), not to the thread's uncaught-exception handler; when the caller
     * returned at once, nobody waits, and it is logged.
     */
    private void runCloser(Claim claim) {
        List<PartitionActor> partitions;
        try {
            partitions = claim.marker.mark();
        } catch (RuntimeException | Error e) {
            claim.markFailure = e;
            claim.marked.countDown();
            return;
        }
        if (partitions != null) {
            closer = Thread.currentThread(); // before the close: a later close joins it
        }
        claim.partitions = partitions;
        claim.marked.countDown();
        if (partitions == null) {
            return; // another close marked the broker closed first: it closes
        }
        synchronized (claim) {
            // the caller's part is over: its sends written, its own close run (a send's callback), or it failed
        }
        if (completed) {
            closeDone.countDown(); // (the caller's close ran every step, and may have failed before it opened it)
            return;
        }
        // the caller's close, if it ran, ended part-way (out of stack): what it threw is not the close's outcome, which
        // the run below decides for every later close (they read it once this thread ended)
        closeFailure = null;
        try {
            finishClose(partitions);
        } catch (RuntimeException | Error e) {
            if (claim.callerReturns) {
                LOG.log(Level.ERROR, "closing " + dataDir + " failed: " + e, e);
            }
        }
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
        // then the compactions: the one in hand is cancelled (its files deleted) before any partition closes
        first = step(first, compactions::close);
        Runnable hook = afterScheduler;
        if (hook != null) {
            hook.run();
        }
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
        completed = true;
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
