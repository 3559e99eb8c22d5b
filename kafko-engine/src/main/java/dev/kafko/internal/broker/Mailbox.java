package dev.kafko.internal.broker;

import dev.kafko.BufferExhaustedException;
import dev.kafko.InterruptException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the requests queued for one partition, bounded by the bytes of their records. A
 * lock-free stack: any thread pushes with a CAS, the partition's owner takes every entry with one
 * {@code getAndSet}. Each entry carries the bytes queued up to and including it ({@link Request#queued}),
 * so the bound costs nothing besides the push.
 *
 * <p>A push that would take the queue past {@code limit} is refused ({@link #tryPush}); the sender
 * then waits ({@link #pushWhenRoom}) until the owner takes the queue ({@link #takeAll}) or releases the
 * partition ({@link #wakeWaiting}). A request always fits when no record is queued, however large;
 * commands (no records) always fit. The waiting sender registers before it looks at the queue and the
 * owner flag again, and the owner empties the queue or lowers its flag before it looks at the
 * registered senders (all volatile accesses, so sequentially consistent): a wake-up is never missed.
 */
final class Mailbox {

    /** What a queued record is counted at besides its encoded bytes: the objects that hold it. */
    static final long RECORD_OVERHEAD = 64;

    private static final VarHandle HEAD;

    static {
        try {
            HEAD = MethodHandles.lookup().findVarHandle(Mailbox.class, "head", Request.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String partition;
    private final long limit;
    private final Duration maxBlock;
    private final long maxBlockNanos;
    private volatile @Nullable Request<?> head; // CAS through HEAD
    private final ConcurrentLinkedQueue<Thread> waiting = new ConcurrentLinkedQueue<>();

    Mailbox(String partition, long limit, Duration maxBlock) {
        this.partition = partition;
        this.limit = limit;
        this.maxBlock = maxBlock;
        this.maxBlockNanos = Durations.saturatedNanos(maxBlock);
    }

    /** The bytes a request is counted at in the queue. */
    static long weight(Request<?> r) {
        return r.encodedBytes() + RECORD_OVERHEAD * r.recordCount();
    }

    /**
     * Pushes {@code r} unless it would take the queue past the limit while records are queued
     * ({@code force} pushes it anyway). Any thread.
     */
    boolean tryPush(Request<?> r, boolean force) {
        long weight = weight(r);
        Request<?> h;
        do {
            h = head;
            if (!force && r.recordCount() > 0 && !fits(h, weight)) {
                return false;
            }
            r.queued = (h == null ? 0 : h.queued) + weight;
            r.next = h;
        } while (!HEAD.compareAndSet(this, h, r));
        return true;
    }

    /** Whether {@code weight} more fits on top of {@code h}: always when no record is queued. */
    private boolean fits(@Nullable Request<?> h, long weight) {
        long below = h == null ? 0 : h.queued;
        return below == 0 || below + weight <= limit;
    }

    /** The request queued last, or null when none is. Any thread. */
    @Nullable Request<?> peek() {
        return head;
    }

    /** Whether anything is queued. Any thread. */
    boolean isEmpty() {
        return head == null;
    }

    /**
     * Takes every queued request, in arrival order (chained through {@link Request#next}); the owner
     * then wakes the senders waiting for room ({@link #wakeWaiting}). No call between the take and the
     * return, where a thread short of stack could fail and drop what it took. Owner only.
     */
    @Nullable Request<?> takeAll() {
        Request<?> newest = (Request<?>) HEAD.getAndSet(this, null);
        Request<?> prev = null;
        for (Request<?> r = newest; r != null; ) {
            Request<?> next = r.next;
            r.next = prev;
            prev = r;
            r = next;
        }
        return prev;
    }

    /**
     * Wakes the senders waiting for room: after {@link #takeAll}, and whenever the owner releases the
     * partition, which a waiting sender may then own (after the release, with a full fence before it).
     */
    void wakeWaiting() {
        if (!waiting.isEmpty()) {
            for (Thread t : waiting) {
                LockSupport.unpark(t);
            }
        }
    }

    /**
     * Pushes {@code r} once the queue has room for it, waiting up to {@code maxBlock}; false when it
     * failed {@code r} instead ({@link BufferExhaustedException}, or an interrupt, which it keeps).
     * Whenever nobody owns the partition this thread drains the queue itself ({@code owner}), so that
     * waiting senders never wait for each other. Not for a thread that may own a partition.
     */
    boolean pushWhenRoom(Request<?> r, Owner owner) {
        long start = System.nanoTime();
        for (;;) {
            boolean drained = owner.drainIfIdle();
            if (tryPush(r, false)) {
                return true;
            }
            long left = maxBlockNanos - (System.nanoTime() - start);
            if (left <= 0) {
                r.completeExceptionally(new BufferExhaustedException("partition " + partition + " holds " + limit
                        + " bytes (maxQueuedBytes) of sends not yet written, and no room came for this record within"
                        + " maxBlock " + maxBlock + "; it was not sent"));
                return false;
            }
            if (Thread.currentThread().isInterrupted()) {
                r.completeExceptionally(new InterruptException("interrupted while waiting for room in partition "
                        + partition + "; this record was not sent"));
                return false;
            }
            if (!drained) {
                awaitRoom(r, left, owner);
            }
        }
    }

    /**
     * Parks the calling thread until the owner takes the queue or releases the partition, {@code nanos}
     * pass or the thread is interrupted; returns at once when {@code r} would fit now or nobody owns
     * the partition (both read after registering, so a wake-up in between is not missed).
     */
    private void awaitRoom(Request<?> r, long nanos, Owner owner) {
        Thread me = Thread.currentThread();
        waiting.add(me);
        try {
            if (!fits(head, weight(r)) && owner.isOwned()) {
                LockSupport.parkNanos(this, nanos);
            }
        } finally {
            waiting.remove(me);
        }
    }

    /** The partition a mailbox belongs to, as its waiting senders see it. */
    interface Owner {

        /** Runs the mailbox on this thread if nobody owns the partition; false when somebody does. */
        boolean drainIfIdle();

        /** Whether a thread owns the partition now (a volatile read). */
        boolean isOwned();
    }
}
