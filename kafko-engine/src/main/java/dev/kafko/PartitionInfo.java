package dev.kafko;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A snapshot of one partition's log.
 *
 * @param topic the topic
 * @param partition the partition number
 * @param logStartOffset the first offset still in the log
 * @param endOffset the offset the next record will get: under {@link FsyncPolicy#EVERY_BATCH} it counts the
 *     records appended whose fsync has not returned yet, which consumers do not read yet (their end, as
 *     {@link Consumer#seekToEnd()} and {@link GroupInfo#lag()} take it, may be below this one)
 * @param sizeBytes the bytes of all its segments
 * @param segmentCount how many segments it has
 * @param state its state
 * @param failure why it failed, when {@code state} is {@link PartitionState#FAILED}
 */
public record PartitionInfo(String topic, int partition, long logStartOffset, long endOffset, long sizeBytes,
                            int segmentCount, PartitionState state, @Nullable Throwable failure) {

    public PartitionInfo {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(state, "state");
    }
}
