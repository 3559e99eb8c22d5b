package dev.kafko;

import org.jspecify.annotations.Nullable;

/**
 * A snapshot of one partition's log.
 *
 * @param topic the topic
 * @param partition the partition number
 * @param logStartOffset the first offset still in the log
 * @param endOffset the offset the next record will get
 * @param sizeBytes the bytes of all its segments
 * @param segmentCount how many segments it has
 * @param state its state
 * @param failure why it failed, when {@code state} is {@link PartitionState#FAILED}
 */
public record PartitionInfo(String topic, int partition, long logStartOffset, long endOffset, long sizeBytes,
                            int segmentCount, PartitionState state, @Nullable Throwable failure) {
}
