package dev.kafko.internal.broker;

import dev.kafko.Header;
import dev.kafko.Headers;
import dev.kafko.OutgoingRecord;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Internal: one entry of a {@link PartitionActor}'s mailbox and, at the same time, the future its
 * sender waits on, so that a send allocates one object besides its record. Any thread creates and
 * submits one; the partition's owner fills {@link #firstOffset} or {@link #error}; {@link #finish}
 * runs after the owner released the partition.
 *
 * <p>A send may linger in its partition before it is written (see {@link PartitionActor}); waiting
 * for it ({@link #join}, {@link #get}, on this future or on one that depends on it) tells the
 * partition, which then writes it at once.
 */
abstract class Request<T> extends AwaitedFuture<T> {

    /** The next entry of the mailbox chain; written before the entry is published. */
    @Nullable Request<?> next;
    /** The bytes queued in the mailbox up to and including this entry; see {@link Mailbox}. */
    long queued;
    /** The offset of this request's first record, set by the owner after the append. */
    long firstOffset;
    /** Why the request failed, set by the owner. */
    @Nullable Throwable error;
    /** The partition a record request was submitted to, for {@link #awaiting}; null for a command. */
    @Nullable PartitionActor actor;
    /** Set once a thread waits for this request: the owner must not let it linger. */
    volatile boolean awaited;
    /**
     * Whether this is the first future of a stranded round in its barrier's chain ({@link CompletionBarrier#stranded}),
     * which is taken a round at a time; under the barrier's monitor.
     */
    boolean strandedFirst;

    @Override
    final void awaiting() {
        PartitionActor a = actor;
        if (a != null && !isDone()) {
            a.awaited(this);
        }
    }

    @Override
    final void stillAwaiting() {
        PartitionActor a = actor;
        if (a != null) {
            a.lookForStranded(); // done or not: a future done whose callbacks ran out of stack is stranded too
        }
    }

    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new AwaitedFuture.Dependent<>(this);
    }

    /** How many records this request appends; 0 for a command. */
    abstract int recordCount();

    /** Adds this request's records to the frame being built. */
    abstract void addRecords(List<OutgoingRecord> frame);

    /** The encoded bytes of this request's records, as checked against {@code maxRecordBytes}. */
    abstract long encodedBytes();

    /**
     * Completes the future from {@link #firstOffset} or {@link #error}; outside of the partition's ownership. The
     * records are let go first: the caller may keep the future (it is the request) long after, and a kept
     * future must not keep a copy of its records' values alive.
     */
    final void finish(int partition) {
        T value = error == null ? result(partition) : null;
        releaseRecords();
        Throwable e = error;
        if (e != null) {
            completeExceptionally(e);
        } else {
            complete(value);
        }
    }

    /** Lets go of the records: written or failed, they are read no more. */
    void releaseRecords() {
    }

    /**
     * Makes the records' arrays (keys, values, header values) the engine's own, if they are not yet: called by the
     * submitting thread before the request is queued, or by the owner before it lets the request linger, so that a
     * caller may change or reuse its buffers as soon as its send returns, as with Kafka's producer. A request written
     * before its send returns (the uncontended send, {@code PartitionActor#submit}) is never copied. Only the thread
     * that holds the request alone (its submitter before publishing it, or the partition's owner).
     */
    void detach() {
    }

    /** A copy of {@code record} whose arrays are the engine's own (see {@link #detach}). */
    static OutgoingRecord detached(OutgoingRecord record) {
        Headers headers = record.headers();
        if (headers.size() > 0) {
            Header[] copies = new Header[headers.size()];
            int i = 0;
            for (Header h : headers) {
                copies[i++] = new Header(h.key(), copy(h.value()));
            }
            headers = Headers.of(copies);
        }
        return new OutgoingRecord(copy(record.key()), copy(record.value()), headers, record.timestamp());
    }

    private static byte @Nullable [] copy(byte @Nullable [] bytes) {
        return bytes == null ? null : bytes.clone();
    }

    /** The value the future completes with, from {@link #firstOffset}. */
    abstract @Nullable T result(int partition);
}

