package dev.kafko;

import java.util.List;

/** A topic: a name, a config and its partitions. Thread-safe. */
public interface Topic {

    String name();

    /** The config the topic was created with (partitions reflects the current count). */
    TopicConfig config();

    int partitionCount();

    /**
     * Grows the topic to {@code newCount} partitions. Keyed records may route differently afterwards,
     * as in Kafka.
     *
     * @throws InvalidPartitionException when {@code newCount} is below the current count, or above
     *         {@link TopicConfig#MAX_PARTITIONS}
     * @throws InvalidTopicLayoutException when the directory of a new partition exists and holds records the
     *         topic never wrote (moved in by hand, or left after its config was rewritten); the topic is unchanged
     * @throws UnknownTopicException when the topic was deleted
     * @throws KafkoClosedException when the instance is closed
     */
    void increasePartitions(int newCount);

    /** A snapshot of every partition, an unmodifiable list. */
    List<PartitionInfo> partitions();

    /**
     * A snapshot of one partition.
     *
     * @throws InvalidPartitionException when there is no such partition
     */
    PartitionInfo partition(int partition);
}
