package dev.kafko.internal.broker;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the sends of one partition made {@link #DEPTH} callbacks deep, which are queued but not written
 * by their sender. A chain of sends each made from the callback of the one before nests on one stack: a
 * send to an idle partition is written, and its future completed, before {@code send} returns, so a
 * callback added to it runs inside the call that adds it ({@link ThreadMarks#NESTED} counts those calls,
 * {@link ThreadMarks#COMPLETING} the rounds a thread completes). Written there, the send's own callbacks
 * would run one level deeper, until the stack ran out. So it is only queued, and the partition kept in the
 * thread's {@link ThreadMarks#deferred()} list, which the outermost of those calls, or the drain that began
 * the chain, drains once the stack unwound ({@link #runIfOutermost}): the chain goes on as a loop.
 * Meanwhile a thread that blocks on such a send's future drains the partition itself
 * ({@link PartitionActor#awaited}), as does anyone's next send, and the scheduler does after
 * {@link #FALLBACK} when nobody took the mailbox ({@link #look}; a {@code kafko-deferred} thread when the
 * scheduler deferred them itself): the deferring thread may block on something else (a latch, a plain
 * {@code CompletableFuture}) that waits for the record.
 */
final class DeferredSends {

    /** A send made this many callbacks deep is deferred. */
    static final int DEPTH = 16;
    /** The scheduler drains a partition whose deferred sends nobody took after this long. */
    static final Duration FALLBACK = Duration.ofMillis(10);

    private static final VarHandle ARMED;
    private static final VarHandle LOOKING;

    static {
        try {
            ARMED = MethodHandles.lookup().findVarHandle(DeferredSends.class, "armed", boolean.class);
            LOOKING = MethodHandles.lookup().findVarHandle(DeferredSends.class, "looking", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final PartitionActor actor;
    private final Mailbox mailbox;
    private final Scheduler scheduler;
    /** Whether a {@link #look} is scheduled; CAS through ARMED. */
    private volatile boolean armed;
    /** Whether a {@code kafko-deferred} thread looks; CAS through LOOKING. */
    private volatile boolean looking;

    DeferredSends(PartitionActor actor, Mailbox mailbox, Scheduler scheduler) {
        this.actor = actor;
        this.mailbox = mailbox;
        this.scheduler = scheduler;
    }

    /** Whether a record request this thread just queued is to be left queued; {@code marks} are its marks. */
    static boolean defers(int[] marks) {
        return marks[ThreadMarks.NESTED] + marks[ThreadMarks.COMPLETING] >= DEPTH && marks[ThreadMarks.OWNING] == 0;
    }

    /**
     * Leaves the record request this thread just queued to be drained later when {@link #defers} says so; false
     * when the caller drains it now. Never once the scheduler is closed (the instance closes): no look would
     * come, and the close may have drained the partition before this request was queued (its sender checked
     * the topic just before the close), leaving it for a thread that may never get back to its outermost call.
     * Drained at once, it runs its callbacks one level deeper, once: every send made from them is refused
     * before it is queued. A scheduler closed after the check closed after the push, which the close drains.
     */
    boolean deferIfDeep(int[] marks) {
        if (!defers(marks) || scheduler.isClosed()) {
            return false;
        }
        deferred(marks);
        return true;
    }

    /** A send was left queued by this thread: the partition joins its list, and the scheduler will look. */
    private void deferred(int[] marks) {
        ArrayDeque<PartitionActor> deferred = ThreadMarks.deferred();
        if (!deferred.contains(actor)) {
            deferred.add(actor);
            marks[ThreadMarks.DEFERRED]++;
        }
        if (scheduler.isCurrentThread()) {
            // a chain of callbacks of sends whose linger the scheduler ended: the scheduler may be the very thread
            // that waits for the record, so a thread of its own looks
            if (!looking && LOOKING.compareAndSet(this, false, true)) {
                startLookingThread();
            }
        } else if (!armed && ARMED.compareAndSet(this, false, true)) {
            arm(mailbox.peek());
        }
    }

    /** Has the scheduler look at the mailbox in {@link #FALLBACK}; {@code seen} is its head now. */
    private void arm(@Nullable Request<?> seen) {
        if (!scheduler.schedule(() -> {
            if (look(seen)) {
                arm(mailbox.peek());
            } else {
                armed = false;
                // a deferral between the look and the flag saw the flag still up and armed nothing
                if (!mailbox.isEmpty() && ARMED.compareAndSet(this, false, true)) {
                    arm(mailbox.peek());
                }
            }
        }, FALLBACK)) {
            armed = false; // closing: the close drains the mailbox itself
        }
    }

    /** A {@code kafko-deferred} thread that looks every {@link #FALLBACK} for as long as requests are queued. */
    private void startLookingThread() {
        Thread t = new Thread(() -> {
            for (Request<?> seen = mailbox.peek(); ; seen = mailbox.peek()) {
                LockSupport.parkNanos(FALLBACK.toNanos());
                if (!look(seen)) {
                    looking = false;
                    if (mailbox.isEmpty() || !LOOKING.compareAndSet(this, false, true)) {
                        return;
                    }
                }
            }
        }, "kafko-deferred");
        t.setDaemon(true);
        try {
            t.start();
        } catch (OutOfMemoryError e) {
            looking = false; // no thread to be had: the outermost call of the chain still drains the partition
        }
    }

    /**
     * One look at the mailbox, {@link #FALLBACK} after the one that saw {@code seen} at its head: drains the
     * partition when nobody took the mailbox since (its head is still {@code seen}) and nobody owns it (the
     * thread that deferred the sends is blocked). False once nothing is queued: no more looks.
     */
    private boolean look(@Nullable Request<?> seen) {
        Request<?> head = mailbox.peek();
        if (head == null) {
            return false;
        }
        if (head == seen && !actor.isOwned()) {
            actor.drainIfIdle();
        }
        return true;
    }

    /**
     * Drains the partitions this thread deferred sends to, and those their callbacks defer in turn, when it
     * is back at the outermost of the calls that nest a chain: not completing a round, not owning a
     * partition, not inside a callback run inline. Only once at a time on a thread.
     */
    static void runIfOutermost(int[] marks) {
        if (marks[ThreadMarks.DEFERRED] == 0 || marks[ThreadMarks.RUNNING_DEFERRED] > 0
                || marks[ThreadMarks.COMPLETING] > 0 || marks[ThreadMarks.OWNING] > 0 || marks[ThreadMarks.NESTED] > 0) {
            return;
        }
        marks[ThreadMarks.RUNNING_DEFERRED] = 1;
        try {
            ArrayDeque<PartitionActor> deferred = ThreadMarks.deferred();
            for (PartitionActor a; (a = deferred.poll()) != null; ) {
                marks[ThreadMarks.DEFERRED]--;
                a.drainDeferred(marks);
            }
        } finally {
            marks[ThreadMarks.RUNNING_DEFERRED] = 0;
        }
    }
}
