package dev.kafko.internal.broker;

import dev.kafko.OutgoingRecord;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Internal: one entry of a {@link PartitionActor}'s mailbox and, at the same time, the future its
 * sender waits on, so that a send allocates one object besides its record. Any thread creates and
 * submits one; the partition's owner fills {@link #firstOffset} or {@link #error}; {@link #finish}
 * runs after the owner released the partition.
 */
abstract class Request<T> extends CompletableFuture<T> {

    /** The next entry of the mailbox chain; written before the entry is published. */
    @Nullable Request<?> next;
    /** The offset of this request's first record, set by the owner after the append. */
    long firstOffset;
    /** Why the request failed, set by the owner. */
    @Nullable Throwable error;

    /** How many records this request appends; 0 for a command. */
    abstract int recordCount();

    /** Adds this request's records to the frame being built. */
    abstract void addRecords(List<OutgoingRecord> frame);

    /** The encoded bytes of this request's records, as checked against {@code maxRecordBytes}. */
    abstract long encodedBytes();

    /** Completes the future from {@link #firstOffset} or {@link #error}; outside of the partition's ownership. */
    final void finish(int partition) {
        Throwable e = error;
        if (e != null) {
            completeExceptionally(e);
        } else {
            complete(result(partition));
        }
    }

    /** The value the future completes with, from {@link #firstOffset}. */
    abstract @Nullable T result(int partition);
}
