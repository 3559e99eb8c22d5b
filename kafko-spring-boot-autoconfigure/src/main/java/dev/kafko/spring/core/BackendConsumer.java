package dev.kafko.spring.core;

import dev.kafko.KafkoRecord;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One group member of a {@link LogBackend} on one topic. Used by one thread at a time; only
 * {@link #wakeup()} may be called from another thread.
 */
public interface BackendConsumer extends AutoCloseable {

    /** The next records, waiting up to {@code timeout}; empty on timeout or {@link #wakeup()}. */
    List<KafkoRecord> poll(Duration timeout);

    /** Durably records, per partition, the offset of the next record to read. */
    void commit(Map<Integer, Long> offsets);

    /** The next poll of {@code partition} starts at {@code offset}. */
    void seek(int partition, long offset);

    /** The offset of the next record this member reads from {@code partition}. */
    default long position(int partition) {
        throw new UnsupportedOperationException(getClass().getName() + " does not report positions");
    }

    /** The next poll of each of {@code partitions} starts at the oldest record still in the log. */
    default void seekToBeginning(Collection<Integer> partitions) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot seek to the beginning");
    }

    /** The next poll of each of {@code partitions} starts after the last record in the log. */
    default void seekToEnd(Collection<Integer> partitions) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot seek to the end");
    }

    /**
     * The next poll of each of {@code partitions} starts at its first record with a timestamp at or after
     * {@code epochMillis}, or at its end.
     */
    default void seekToTimestamp(Collection<Integer> partitions, long epochMillis) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot seek to a timestamp");
    }

    /** The partitions this member reads now. */
    Set<Integer> assignment();

    /**
     * Polls skip these assigned partitions until {@link #resume}d (Kafka's {@code pause}). A container's
     * {@code pausePartition} needs it, and so does a {@code @RetryableTopic}'s retry container, which holds a
     * partition back so for each record's back-off: a backend whose consumers cannot pause fails such a member.
     */
    default void pause(Collection<Integer> partitions) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot pause partitions");
    }

    /** Undoes {@link #pause} for these partitions. */
    default void resume(Collection<Integer> partitions) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot resume partitions");
    }

    /** The assigned partitions paused now. */
    default Set<Integer> paused() {
        return Set.of();
    }

    /** Makes a blocked or the next poll return at once. Any thread may call it. */
    void wakeup();

    /** Leaves the group; its partitions move to the other members. */
    @Override
    void close();
}
