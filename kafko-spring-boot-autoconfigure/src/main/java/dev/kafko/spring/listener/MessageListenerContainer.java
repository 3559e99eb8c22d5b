package dev.kafko.spring.listener;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Runs the polling threads of one listener. Any thread may call these methods; {@link #stop()}
 * blocks until the record in hand is finished and committed, except when one of the container's own listeners
 * calls it.
 */
public interface MessageListenerContainer {

    /** The listener id: the thread names and {@code registry.getListenerContainer(id)} use it. */
    String getListenerId();

    /** The consumer group the members join. */
    String getGroupId();

    List<String> getTopics();

    /** Starts polling; a no-op when running. */
    void start();

    /**
     * Stops gracefully: every member finishes (and commits) the record in hand, commits what its ack
     * mode promises and leaves the group. Blocks until done or the shutdown timeout passed; called by one of
     * the container's own listeners (a circuit breaker), on its polling thread, it returns at once instead, and
     * the members stop after their records in hand, the caller's once its listener returns. A record
     * whose listener failed and that waits for its next attempt is not retried further: it stays
     * uncommitted and is delivered again when the group next reads it, its attempts counted from 1.
     */
    void stop();

    /**
     * {@link #stop()}, then {@code callback} once the container has stopped: on the calling thread once {@code stop()}
     * returned; called by one of the container's own listeners (whose {@code stop()} returns at once), a
     * {@link ConcurrentMessageListenerContainer} runs it once every member has stopped, on the last one's polling
     * thread, where this default runs it at once.
     */
    default void stop(Runnable callback) {
        stop();
        callback.run();
    }

    /**
     * Asks the members to stop polling after the records in hand; they stay in the group. A record
     * being retried is not retried further (a back-off ends at once): it stays uncommitted and is
     * delivered again after {@link #resume()}, its attempts counted from 1.
     */
    void pause();

    /** Undoes {@link #pause()}. */
    void resume();

    /**
     * Whether any member thread is running; for a container without members (a {@code topicPattern} that matches
     * no topic yet), whether it was started and not stopped since.
     */
    boolean isRunning();

    /** Whether a pause was asked for and not yet undone. */
    boolean isPauseRequested();

    /**
     * Whether a pause was asked for and every running member has actually stopped polling because of it; false while
     * the container is not running (before its first start, or stopped), as {@link #isPartitionPaused} is.
     */
    boolean isPaused();

    /** {@link #isPaused()}, under spring-kafka's name. */
    default boolean isContainerPaused() {
        return isPaused();
    }

    /**
     * Pauses one partition, as spring-kafka's {@code pausePartition} and Kafka's consumer {@code pause}: the member
     * that reads it finishes what it has in hand, then its polls skip the partition (its other partitions go on)
     * until {@link #resumePartition}; any thread may ask, and the request holds while the partition moves between
     * the container's members and across a stop and start. A partition of a topic the container does not read, or
     * that the topic does not have, is never paused.
     */
    default void pausePartition(String topic, int partition) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot pause partitions");
    }

    /** Undoes {@link #pausePartition}: the member that reads the partition polls it again. */
    default void resumePartition(String topic, int partition) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot resume partitions");
    }

    /** Whether a pause of the partition was asked for ({@link #pausePartition}) and not undone. */
    default boolean isPartitionPauseRequested(String topic, int partition) {
        return false;
    }

    /** Whether the member that reads the partition has paused it: its polls skip it now. */
    default boolean isPartitionPaused(String topic, int partition) {
        return false;
    }

    /** Whether the container should start with the application context. */
    boolean isAutoStartup();

    /**
     * Whether the container is as its last start/stop asked: false when it should be running but a
     * member's polling thread died.
     */
    boolean isInExpectedState();

    /**
     * The partitions the container's members read now, per topic: those assigned to a running member and
     * not yet taken from it (spring-kafka's {@code getAssignedPartitions}). Empty before the first start and once
     * stopped, also for partitions assigned by hand (which spring-kafka's still lists after a stop): the container's
     * {@code getTopicPartitions()} names those.
     */
    default Map<String, Set<Integer>> getAssignedPartitions() {
        return Map.of();
    }

    /** Why a member's polling thread died (the first one's, with several), or {@code null}. */
    default @Nullable Throwable getFailure() {
        return null;
    }
}
