package dev.kafko;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Reads one topic. A consumer is used by one thread at a time (like Kafka's); only
 * {@link #wakeup()} may be called from another thread: a call made while another thread is inside one throws
 * {@link java.util.ConcurrentModificationException}, as Kafka's consumer does.
 *
 * <p>An anonymous consumer ({@link Kafko#consumer(String)}) is assigned every partition, starts at
 * offset 0 and keeps no committed offsets. A group member ({@link Kafko#groupConsumer(String, String)})
 * starts each partition at the group's committed offset and shares the partitions with the live
 * members of its group.
 *
 * <p>A consumer made with {@link ConsumerOptions#withPartitions fixed partitions} (Kafka's {@code assign}) reads
 * those partitions only, for its whole life (none added to the topic later). An anonymous one starts each at
 * offset 0. One made with a group is no member of it: it starts each partition at the group's committed offset
 * (else as the reset policy says), gets no rebalance callbacks, changes no member's partitions (a member may read
 * the same partitions meanwhile), and its commits write the group's offsets of its partitions, but only while
 * the group has no live member: otherwise they throw {@link CommitFailedException}, as Kafka refuses them.
 *
 * <p>After {@link #close()}, {@code poll}, the seeks, {@code position}, {@code commit},
 * {@code committed}, {@code assignment}, {@code pause}, {@code resume} and {@code paused} throw {@link KafkoClosedException}, as they do once the
 * {@link Kafko} instance closed (arguments are checked first: a negative timeout is still an
 * {@link IllegalArgumentException}).
 */
public interface Consumer extends AutoCloseable {

    String topic();

    /** The group, or empty for an anonymous consumer. */
    Optional<String> group();

    /**
     * Returns the next records of the assigned partitions, fair across partitions and in offset
     * order within each, waiting up to {@code timeout} (without spinning) when there are none.
     * Returns an empty list on timeout or {@link #wakeup()}. Fair: each poll starts at the partition
     * after the last one the previous poll took records from (as Kafka's fetcher moves such a partition to
     * the back), and takes records partition by partition up to {@code maxPollRecords}, so a poll may hold
     * one partition's records only, and every partition with records comes first in turn.
     *
     * @throws InterruptException when it would wait (no record to return yet) and the thread is, or
     *     becomes, interrupted; the interrupt status stays set. Records already there are returned first
     * @throws OffsetOutOfRangeException when a position is outside the log and the reset policy is FAIL
     * @throws IllegalArgumentException when {@code timeout} is negative
     * @throws KafkoClosedException after close
     */
    List<KafkoRecord> poll(Duration timeout);

    /**
     * The next poll of {@code partition} starts at {@code offset}. An offset above the partition's end
     * moves the position to the end at once (so records appended after the seek are all read), unless
     * the reset policy is {@code FAIL}: then the offset is kept and {@code poll} throws while it is
     * still above the end.
     *
     * @throws InvalidPartitionException when the partition is not assigned to this consumer
     * @throws OffsetOutOfRangeException when the offset is negative
     */
    void seek(int partition, long offset);

    /** Every assigned partition continues at {@code offset}, as {@link #seek} each. */
    void seekAll(long offset);

    /** Every assigned partition continues at its oldest record still in the log. */
    void seekToBeginning();

    /**
     * {@code partition} continues at its oldest record still in the log.
     *
     * @throws InvalidPartitionException when the partition is not assigned to this consumer
     */
    void seekToBeginning(int partition);

    /**
     * Every assigned partition continues at its end: only records appended from now on are read. The end is
     * what consumers may read up to (under {@code EVERY_BATCH}, the records whose fsync returned, as Kafka's
     * high watermark): a record appended and not yet fsynced is read once it is, not skipped.
     */
    void seekToEnd();

    /**
     * {@code partition} continues at its end, as {@link #seekToEnd()} does for every assigned partition.
     *
     * @throws InvalidPartitionException when the partition is not assigned to this consumer
     */
    void seekToEnd(int partition);

    /**
     * Every assigned partition continues at its first record with a timestamp at or after this one (or its end).
     * The records appended after the seek are all read from there, whatever their timestamps: a record
     * without an explicit timestamp is stamped when its frame is written, so a send that lingered across
     * the seek can carry a time before the one sought.
     *
     * @throws IllegalArgumentException when {@code epochMillis} is negative
     */
    void seekToTimestamp(long epochMillis);

    /**
     * {@code partition} continues at its first record with a timestamp at or after this one (or its end),
     * as {@link #seekToTimestamp(long)} does for every assigned partition.
     *
     * @throws InvalidPartitionException when the partition is not assigned to this consumer
     * @throws IllegalArgumentException when {@code epochMillis} is negative
     */
    void seekToTimestamp(int partition, long epochMillis);

    /**
     * The offset of the next record the consumer will return from this partition.
     *
     * @throws InvalidPartitionException when the partition is not assigned to this consumer
     */
    long position(int partition);

    /**
     * The partitions this consumer reads now. A group member's assignment changes only inside its own calls: it takes
     * partitions when it is made and at its polls, and gives up partitions at its polls, so after another member
     * joined, left or the topic grew it still lists what it owns until its next poll.
     */
    Set<Integer> assignment();

    /**
     * Records {@link #position(int)} of every assigned partition for the group; a no-op when
     * anonymous. As durable as the topic's fsync policy makes appends: forced to disk before it
     * returns under {@code EVERY_BATCH}, within the interval under {@code interval}, and in the page
     * cache (safe from a crash of the process, not from a power loss) under {@code NEVER}.
     *
     * @throws CommitFailedException when this consumer has fixed partitions and its group has live members
     *     (nothing is committed)
     */
    void commit();

    /**
     * Records these offsets (the offset of the next record to read, per partition), as durably as
     * {@link #commit()} does, for the
     * group; a no-op when anonymous, once the offsets are checked (a null or negative one is refused there too,
     * a partition is not). Partitions not assigned to this member are refused with
     * {@link InvalidPartitionException}, negative offsets with {@link OffsetOutOfRangeException}. An
     * offset is not checked against the log, as in Kafka: one past the end is kept, and the member that
     * takes the partition next starts there as {@link OffsetResetPolicy} says.
     *
     * @throws CommitFailedException when this consumer has fixed partitions and its group has live members
     *     (nothing is committed)
     */
    void commit(Map<Integer, Long> offsets);

    /**
     * The group's committed offset of this partition; empty if none or anonymous.
     *
     * @throws InvalidPartitionException when the topic has no such partition
     */
    OptionalLong committed(int partition);

    /**
     * Stops returning records of these partitions (Kafka's {@code pause}): polls skip them, and an append to one
     * no longer ends a poll's wait, until {@link #resume} (their positions, seeks and commits are unaffected).
     * Pausing a paused partition does nothing. A paused partition that a rebalance moves to another member is no
     * longer paused here (nor there); one this member keeps stays paused, as in Kafka.
     *
     * @throws InvalidPartitionException when one of them is not assigned to this consumer (none is paused then)
     * @throws NullPointerException naming {@code partitions} when it, or one of its elements, is null (none is
     *     paused then)
     * @throws KafkoClosedException after close
     */
    void pause(Collection<Integer> partitions);

    /**
     * Undoes {@link #pause} for these partitions: the next poll returns their records again, from their positions.
     * Resuming a partition that is not paused does nothing, one not assigned to this consumer too (where Kafka's
     * consumer throws {@code IllegalStateException}): a partition a rebalance moved away while paused may be resumed.
     *
     * @throws NullPointerException naming {@code partitions} when it, or one of its elements, is null (none is
     *     resumed then)
     * @throws KafkoClosedException after close
     */
    void resume(Collection<Integer> partitions);

    /** The assigned partitions {@link #pause}d now, in ascending order. */
    Set<Integer> paused();

    /** Makes a blocked or the next {@link #poll} return at once with no records. Any thread may call it. */
    void wakeup();

    /**
     * Leaves the group (its partitions move to the other members) and releases resources; a consumer with fixed
     * partitions was never a member, and only releases them. Idempotent.
     */
    @Override
    void close();
}
