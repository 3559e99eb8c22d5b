package dev.kafko;

import java.util.List;

/** A topic: a name, a config and its partitions. Thread-safe. */
public interface Topic {

    String name();

    /** The topic's config: as created, or as last changed by {@link #alterConfig} or {@link #increasePartitions}. */
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

    /**
     * Changes the topic's config, Kafka's {@code alterConfigs} for a topic: every setting but the partition count
     * (which {@link #increasePartitions} grows) may change. Nothing stored is rewritten; the new config applies
     * to what comes next:
     * <ul>
     *   <li>retention ({@code retention}, {@code retentionBytes}): from the next retention run, which deletes what
     *       a shorter limit no longer keeps; a longer one keeps what is still there;</li>
     *   <li>{@code maxRecordBytes}: to sends made after the call returns (records stored before stay readable); a
     *       send made while the call runs is checked against the old limit or the new one, and a record its call
     *       took is written;</li>
     *   <li>{@code compression}: to frames written after the call returns; consumers read frames of both codecs
     *       (the codec of each frame is stored with it);</li>
     *   <li>{@code segmentBytes}, {@code segmentAge}: at each partition's next append, which rolls its active
     *       segment when that is already beyond the new limits; {@code indexIntervalBytes} from the next segment;</li>
     *   <li>{@code fsync}: from the next append; a policy other than {@link FsyncPolicy#NEVER} also forces to
     *       disk, before the call returns, what each partition holds;</li>
     *   <li>{@code cleanupPolicy}: a policy that compacts refuses records without a key from sends made after the call
     *       returns (those stored before are kept by compaction), and the retention limits apply from the next
     *       retention run as the new policy says; {@code minCompactionLag}, {@code deleteRetention} and
     *       {@code minCleanableDirtyRatio} from the next compaction.</li>
     * </ul>
     * The config is stored with the topic before any partition changes (written to a new file, then renamed:
     * a crash leaves the old config or the new one, and a reopen writes by the stored one). The call returns once
     * every partition writes by it. A config equal to the current one changes nothing.
     *
     * @throws InvalidPartitionException when {@code config.partitions()} is not the current count
     * @throws CompressionUnavailableException when the new codec's library is not on the class path; nothing
     *         changed
     * @throws KafkoStorageException when the config could not be stored (nothing changed), or when a partition
     *         failed forcing what it holds under the new policy (the config is stored; that partition is failed)
     * @throws UnknownTopicException when the topic was deleted
     * @throws KafkoClosedException when the instance is closed
     * @throws IllegalStateException when called from a {@link KafkoObserver} on the thread that appends to one of
     *     the topic's partitions, which would wait for itself (nothing changes)
     */
    void alterConfig(TopicConfig config);

    /**
     * Compacts every partition of a topic whose {@link TopicConfig#cleanupPolicy()} compacts, now, whatever their
     * share of records not yet compacted, and returns once it is done: the records of a key older than the latest
     * in the segments before the active one are removed, and tombstones older than
     * {@link TopicConfig#deleteRetention()} (see {@link CleanupPolicy}). The active segment of each partition is not
     * compacted: records that should go soon can be made to by a short {@link TopicConfig#segmentAge()} or
     * {@link TopicConfig#segmentBytes()}. A compaction of a partition already running in the background is waited
     * for, then this one runs. Sends and polls go on meanwhile: each partition's new segment files are written
     * beside the old ones, and put in their place between two of its appends.
     *
     * @return the number of records removed
     * @throws IllegalStateException when the topic's cleanup policy is {@link CleanupPolicy#DELETE}, or when called
     *     from a {@link KafkoObserver} on the thread that appends to one of its partitions
     * @throws CorruptLogException when a segment fails its checks (that partition is left as it was)
     * @throws KafkoStorageException when the new files could not be written (that partition is left as it was) or
     *     put in place (that partition failed); the partitions after it are not compacted by this call
     * @throws PartitionFailedException when a partition failed earlier (the partitions after it are not compacted by
     *     this call)
     * @throws UnknownTopicException when the topic was deleted
     * @throws KafkoClosedException when the instance is closed
     */
    long compact();

    /**
     * A snapshot of every partition, an unmodifiable list. Once the topic was deleted or the instance closed, it
     * still answers: each partition's last state, {@link PartitionState#CLOSED}.
     */
    List<PartitionInfo> partitions();

    /**
     * A snapshot of one partition; its last state, {@link PartitionState#CLOSED}, once the topic was deleted or the
     * instance closed.
     *
     * @throws InvalidPartitionException when there is no such partition
     */
    PartitionInfo partition(int partition);
}
