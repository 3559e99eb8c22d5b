package dev.kafko.spring.core;

import dev.kafko.Headers;
import dev.kafko.OutgoingRecord;
import dev.kafko.RecordPosition;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/** Sends to one topic of a {@link LogBackend}. Thread-safe. */
public interface BackendProducer {

    String topic();

    /**
     * Appends one record: to {@code partition} when given, else to the key's partition (or
     * round-robin for a null key).
     *
     * @param timestamp epoch millis
     */
    CompletableFuture<RecordPosition> send(@Nullable Integer partition, byte @Nullable [] key,
                                           byte @Nullable [] value, Headers headers, long timestamp);

    /**
     * Appends records in one call, record {@code i} to partition {@code partitions[i]} or, where that is
     * {@link dev.kafko.Producer#ROUTED}, to its key's partition (round-robin for a null key); those of one
     * partition all or none, in list order. Arguments are checked before anything is written: a partition out of
     * range, a record or a partition's records too large are thrown at the call. The default cannot do it.
     *
     * @throws UnsupportedOperationException when this backend cannot write such batches
     */
    default CompletableFuture<List<RecordPosition>> sendBatch(List<OutgoingRecord> records, int[] partitions) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot write a batch of named partitions");
    }

    /**
     * Checks {@code record}, bound for {@code partition} (null: routed), as {@link #send} does at the call, without
     * writing it. The default checks nothing (the write checks it).
     *
     * @throws dev.kafko.InvalidPartitionException when the topic has no such partition
     * @throws dev.kafko.RecordTooLargeException when it is larger than the topic's record limit
     */
    default void checkRecord(@Nullable Integer partition, OutgoingRecord record) {
    }

    /** Returns once every send made before the call is written and its future completed. */
    void flush();
}
