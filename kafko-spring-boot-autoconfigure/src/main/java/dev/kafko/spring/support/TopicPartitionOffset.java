package dev.kafko.spring.support;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A partition a listener reads by hand (Kafka's {@code assign}), with the offset it starts at, as spring-kafka's
 * {@code TopicPartitionOffset}.
 *
 * @param topic the topic
 * @param partition the partition, 0 or more
 * @param offset where each start of the listener seeks the partition: absolute when 0 or more, counted back
 *     from the partition's end when negative; {@code null} to read on from the group's commit
 * @param relativeToCurrent whether {@code offset} (of either sign) counts from the position the listener starts
 *     at (the group's commit) instead
 */
public record TopicPartitionOffset(String topic, int partition, @Nullable Long offset, boolean relativeToCurrent) {

    public TopicPartitionOffset {
        Objects.requireNonNull(topic, "topic");
        if (partition < 0) {
            throw new IllegalArgumentException("partition of topic '" + topic + "' must not be negative: "
                    + partition);
        }
    }

    /** A partition read on from the group's commit. */
    public TopicPartitionOffset(String topic, int partition) {
        this(topic, partition, null, false);
    }

    /** A partition sought to {@code offset} at each start (see the record's comment). */
    public TopicPartitionOffset(String topic, int partition, long offset) {
        this(topic, partition, offset, false);
    }

    @Override
    public String toString() {
        return topic + "-" + partition + (offset == null ? "" : "@" + (relativeToCurrent ? "current" : "")
                + (relativeToCurrent && offset >= 0 ? "+" : "") + offset);
    }
}
