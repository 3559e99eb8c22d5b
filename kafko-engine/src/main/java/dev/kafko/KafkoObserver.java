package dev.kafko;

/**
 * Receives engine events, for example to feed metrics. Every method has an empty default. Methods
 * are called on the thread that did the work (an appending producer thread, a polling consumer
 * thread), often while it holds a partition, so they must be fast and should not call back into
 * kafko. A send made from one is still safe: it never waits for room in a full queue, and a partition
 * it goes to is written by kafko's scheduler thread rather than by this one. Waiting for a future or
 * calling {@code flush()} from an observer may never return; a {@code flush()} or {@link Kafko#deleteTopic} that
 * needs the partition the observer's thread is appending to throws {@link IllegalStateException} instead of
 * waiting for itself. {@link Kafko#close()} from an observer returns
 * at once: the instance closes on a thread of its own (the close needs the partition or the group the
 * observer's thread holds). When no observer is configured the engine skips the timing calls altogether.
 * An exception, a {@link LinkageError} or an {@link AssertionError} an observer throws is logged and changes
 * nothing; any other {@link Error} (out of memory, out of stack) fails the sends of the append it was told of,
 * although their records were stored. An {@link InternalError} reporting a faulted access to mapped memory (which the
 * JVM may throw late, in an observer, for a store into a segment) fails the partition as well.
 */
public interface KafkoObserver {

    /** An observer that ignores everything. */
    KafkoObserver NOOP = new KafkoObserver() { };

    /**
     * A frame of {@code records} records was appended in {@code nanos}. {@code bytes} is the size of its records as
     * each is checked against {@code maxRecordBytes} (key, value, headers and their lengths, before compression),
     * not the frame's size on disk (which {@link PartitionInfo#sizeBytes()} sums up).
     */
    default void onAppend(String topic, int partition, int records, long bytes, long nanos) { }

    /** A partition was fsynced in {@code nanos}. */
    default void onFsync(String topic, int partition, long nanos) { }

    /**
     * An append, an fsync, a retention run or a compaction of the partition failed (a compaction only when it left the
     * log failed); the partition may now be failed.
     */
    default void onFailure(String topic, int partition, Throwable cause) { }

    /** A group committed offsets for some of the topic's partitions. */
    default void onCommit(String topic, String group) { }

    /**
     * A group's committed offsets of the topic were deleted ({@link Kafko#deleteGroup}): {@link Kafko#groups} no
     * longer lists it, and a consumer of its name made later starts by its offset reset policy. Called once per
     * deletion, on the deleting thread, after every {@link #onCommit} of the group before the deletion and before
     * any of a group of its name used again.
     */
    default void onGroupDeleted(String topic, String group) { }

    /** Retention deleted {@code segments} segments of a partition. */
    default void onRetention(String topic, int partition, int segments, long bytes) { }

    /**
     * A compaction of a partition of a compacted topic removed {@code records} records, or merged segments (then
     * {@code records} may be 0), and the partition then holds {@code bytes} fewer bytes (negative when the gap frames
     * standing for the removed offsets took more than small records did); called on the partition's owner thread once
     * the new segments are in place. A compaction that changed nothing is not reported.
     */
    default void onCompaction(String topic, int partition, long records, long bytes) { }

    /**
     * A topic was created ({@link Kafko#createTopic}): {@link Kafko#topic} and {@link Kafko#topics()} already
     * return it. Called on the creating thread, once the creation is complete, not for the topics an open finds.
     */
    default void onTopicCreated(String topic) { }

    /**
     * A topic was deleted ({@link Kafko#deleteTopic}): its partitions and groups are gone, and a topic
     * created later under the same name starts anew. Called on the deleting thread, before a create of the name
     * may go on: an observer hears of the deletion before it hears of the topic created again.
     */
    default void onTopicDeleted(String topic) { }
}
