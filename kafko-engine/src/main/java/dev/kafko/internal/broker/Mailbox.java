package dev.kafko.internal.broker;

import dev.kafko.BufferExhaustedException;
import dev.kafko.KafkoException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the requests queued for one partition, bounded by the bytes of their records. A
 * lock-free stack: any thread pushes with a CAS, the partition's owner takes every entry with one
 * {@code getAndSet}. Each entry carries the bytes queued up to and including it ({@link Request#queued}),
 * so the bound costs nothing besides the push.
 *
 * <p>A push that would take the queue past {@code limit} is refused ({@link #tryPush}); the sender
 * then waits ({@link #pushWhenRoom}), and {@link #takeAll} unparks it once the owner has taken the queue. A
 * request always fits into an empty queue, however large; commands (no records) always fit.
 * The waiting sender registers before it looks at the queue again, and the owner empties the queue
 * before it looks at the registered senders (both with full fences), so a wake-up is never missed.
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
    @SuppressWarnings("unused") // through HEAD
    private volatile @Nullable Request<?> head;
    private final ConcurrentLinkedQueue<Thread> waiting = new ConcurrentLinkedQueue<>();

    Mailbox(String partition, long limit, Duration maxBlock) {
        this.partition = partition;
        this.limit = limit;
        this.maxBlock = maxBlock;
    }

    /** The bytes a request is counted at in the queue. */
    static long weight(Request<?> r) {
        return r.encodedBytes() + RECORD_OVERHEAD * r.recordCount();
    }

    /**
     * Pushes {@code r} unless it would take a non-empty queue past the limit ({@code force} pushes it
     * anyway). Any thread.
     */
    boolean tryPush(Request<?> r, boolean force) {
        long weight = weight(r);
        Request<?> h;
        do {
            h = head;
            long below = h == null ? 0 : h.queued;
            if (!force && h != null && r.recordCount() > 0 && below + weight > limit) {
                return false;
            }
            r.queued = below + weight;
            r.next = h;
        } while (!HEAD.compareAndSet(this, h, r));
        return true;
    }

    /** Whether anything is queued. Any thread. */
    boolean isEmpty() {
        return head == null;
    }

    /** Takes every queued request (newest first) and wakes the senders waiting for room. Owner only. */
    @Nullable Request<?> takeAll() {
        Request<?> taken = (Request<?>) HEAD.getAndSet(this, null);
        if (!waiting.isEmpty()) {
            for (Thread t : waiting) {
                LockSupport.unpark(t);
            }
        }
        return taken;
    }

    /**
     * Pushes {@code r} once the queue has room for it, waiting up to {@code maxBlock}; false when it
     * failed {@code r} instead ({@link BufferExhaustedException}, or an interrupt, which it keeps).
     * While it waits, whenever nobody owns the partition this thread drains the queue itself
     * ({@code drainIfIdle}), so that waiting senders never wait for each other. Not for the owner.
     */
    boolean pushWhenRoom(Request<?> r, BooleanSupplier drainIfIdle) {
        long deadline = System.nanoTime() + Math.max(0, maxBlock.toNanos());
        do {
            if (drainIfIdle.getAsBoolean()) {
                continue;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                r.completeExceptionally(new BufferExhaustedException("partition " + partition + " holds " + limit
                        + " bytes (maxQueuedBytes) of sends not yet written, and none were written within maxBlock "
                        + maxBlock + "; this record was not sent"));
                return false;
            }
            if (Thread.currentThread().isInterrupted()) {
                r.completeExceptionally(new KafkoException("interrupted while waiting for room in partition "
                        + partition + "; this record was not sent", new InterruptedException()));
                return false;
            }
            awaitRoom(r, left);
        } while (!tryPush(r, false));
        return true;
    }

    /**
     * Parks the calling thread until the owner takes the queue, {@code nanos} pass or the thread is
     * interrupted; returns at once when {@code r} would fit now.
     */
    private void awaitRoom(Request<?> r, long nanos) {
        Thread me = Thread.currentThread();
        waiting.add(me);
        try {
            Request<?> h = head;
            if (h != null && h.queued + weight(r) > limit) {
                LockSupport.parkNanos(this, nanos);
            }
        } finally {
            waiting.remove(me);
        }
    }
}
