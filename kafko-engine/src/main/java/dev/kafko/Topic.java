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
     * <p>Consumers see the new partitions at their next poll (a poll waiting for records wakes for them): an
     * anonymous consumer reads them from offset 0; the members of a group share the grown topic out again by
     * range, which can move a partition a member already read to another member (each is told through its
     * {@link ConsumerRebalanceListener}, as on a join); a consumer made with
     * {@link ConsumerOptions#withPartitions fixed partitions} never reads them. A count equal to the current one
     * changes nothing. The new count is stored with the topic and kept on reopen.
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
