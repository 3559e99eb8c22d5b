package dev.kafko.spring.listener;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Implemented by a {@code @KafkoListener} bean that wants to choose where its listeners read, as with
 * spring-kafka's interface of the same name: where partitions start when they are assigned, and, at any
 * time later, where a running listener goes on (a replay started from an endpoint, say). Every method runs
 * on the polling thread of one member of the listener's group; a listener of several topics, or with a
 * {@code concurrency} above one, has several members, and so gets one registered callback per member:
 * keep them per thread, or extend {@link AbstractConsumerSeekAware}, which does.
 *
 * <p>A seek through the callback {@link #registerSeekCallback} hands over commits the position sought once the
 * member makes it (an offset retention deleted, under the {@code latest} reset policy: the end the member's next poll
 * moves it to), so that a restart, or the member a rebalance gives the partition to, goes on from there; the
 * commit then follows the records processed, back with a replay as forward with a skip. Under the {@code fail}
 * policy an offset outside the log is committed as sought: the member's polls fail, and so do a restart's, until a
 * seek into the log. A seek at assignment
 * chooses where the member starts, and the commit follows what it processes.
 */
public interface ConsumerSeekAware {

    /**
     * A member of the listener's group starts: {@code callback} seeks that member's partitions from now
     * until {@link #unregisterSeekCallback()}, from any thread. Such a seek is queued; the member makes it
     * before it delivers its next record (a batch listener: after the batch in hand), once it committed what
     * it processed. The records it had polled and not yet delivered are read again from their offsets, those
     * of a sought partition from the offset sought. A seek of the partition of records the error handler is
     * retrying ends their back-off: they are neither retried further nor recovered, and are read again only if the
     * partition is sought back to them (their retries then start again), as spring-kafka makes the seek after the
     * back-off of one failed attempt. A seek of a partition the member does not read when it
     * makes the seek (another member reads it, or it moved away) is logged and ignored, and so are the seeks a
     * member had not made when it stopped.
     */
    default void registerSeekCallback(ConsumerSeekCallback callback) {
    }

    /**
     * Partitions were assigned to one member of a listener's group.
     *
     * @param assignments each assigned partition and the offset the member would start from (the
     *                    group's committed offset, or where the reset policy puts it)
     * @param callback seeks the assigned partitions at once; it may be used only during this call, on this
     *                 thread. An exception thrown here is logged and the member reads on from the offsets
     *                 it had: the seeks made before it are undone (a seek asked for here through a callback kept
     *                 from an earlier call is queued, not made, and stays). An {@link Error} ends the member's
     *                 polling thread, as one thrown by the listener does, committing nothing more
     */
    default void onPartitionsAssigned(Map<Integer, Long> assignments, ConsumerSeekCallback callback) {
    }

    /**
     * Partitions of {@code topic} were assigned to one member of a listener's group; the container
     * calls this one, which calls {@link #onPartitionsAssigned(Map, ConsumerSeekCallback)} unless
     * overridden.
     */
    default void onPartitionsAssigned(String topic, Map<Integer, Long> assignments, ConsumerSeekCallback callback) {
        onPartitionsAssigned(assignments, callback);
    }

    /**
     * Partitions of {@code topic} were taken from one member (another member joined, or this one is
     * stopping), after it committed what it processed of them; its registered callback no longer seeks
     * them.
     */
    default void onPartitionsRevoked(String topic, Collection<Integer> partitions) {
    }

    /**
     * One member of the listener's group received no record for its container's idle event interval
     * ({@code kafko.listener.idle-event-interval}), at the time it publishes its
     * {@link dev.kafko.spring.event.ListenerContainerIdleEvent}: again after each further interval without records.
     * Also, as in spring-kafka, for one partition it reads that received no record for the partition idle event
     * interval ({@code kafko.listener.idle-partition-event-interval}), with its
     * {@link dev.kafko.spring.event.ListenerContainerPartitionIdleEvent}: {@code assignments} then holds that
     * partition alone.
     *
     * @param assignments each partition the member reads (or the idle partition) and its position there
     * @param callback the member's callback handed to {@link #registerSeekCallback}: its seeks are made before
     *                 the member polls again
     */
    default void onIdleContainer(Map<Integer, Long> assignments, ConsumerSeekCallback callback) {
    }

    /**
     * One member of the listener's group went idle on {@code topic}; the container calls this one, which calls
     * {@link #onIdleContainer(Map, ConsumerSeekCallback)} unless overridden.
     */
    default void onIdleContainer(String topic, Map<Integer, Long> assignments, ConsumerSeekCallback callback) {
        onIdleContainer(assignments, callback);
    }

    /**
     * One member of the listener's group completed its first poll of a run (records or none), on its polling thread,
     * before it delivers what that poll returned: its initial positions are set, its partitions assigned and
     * {@link #onPartitionsAssigned} called. Seeks made through the callback of {@link #registerSeekCallback} from
     * here are made before the member polls again. Called again for each start of the member.
     */
    default void onFirstPoll() {
    }

    /** The member whose callback {@link #registerSeekCallback} handed over stopped: that callback now throws. */
    default void unregisterSeekCallback() {
    }

    /**
     * Moves a member's position on its partitions. The callback given to
     * {@link ConsumerSeekAware#onPartitionsAssigned} seeks at once; the one given to
     * {@link ConsumerSeekAware#registerSeekCallback} queues the seek for the member's polling thread.
     * Every method checks its arguments when called.
     */
    interface ConsumerSeekCallback {

        /**
         * The next record read from {@code partition} is the one at {@code offset} (past the end: the
         * next one appended, under the default reset policy).
         *
         * @throws IllegalArgumentException when {@code topic} is not the member's topic, {@code partition} is not
         *                                  one of the topic's (nor, during {@code onPartitionsAssigned}, one just
         *                                  assigned), or {@code offset} is negative
         * @throws IllegalStateException when the callback may no longer be used
         */
        void seek(String topic, int partition, long offset);

        /**
         * The next record read from {@code partition} is at the offset {@code offsetComputeFunction}
         * returns, given the member's current position there when the seek is made; a function that
         * throws, or returns null or a negative offset, leaves the position as it was (logged).
         */
        void seek(String topic, int partition, Function<Long, Long> offsetComputeFunction);

        /** The next records read from this partition are the oldest still in the log. */
        default void seekToBeginning(String topic, int partition) {
            seekToBeginning(topic, List.of(partition));
        }

        /** The next records read from these partitions are the oldest still in the log. */
        void seekToBeginning(String topic, Collection<Integer> partitions);

        /** This partition skips everything already in the log: only records sent from now on are read. */
        default void seekToEnd(String topic, int partition) {
            seekToEnd(topic, List.of(partition));
        }

        /** These partitions skip everything already in the log: only records sent from now on are read. */
        void seekToEnd(String topic, Collection<Integer> partitions);

        /**
         * A seek by {@code offset} records, kept within the log: from the current position when
         * {@code toCurrent}, otherwise from the beginning for an offset of zero or more and from the end
         * for a negative one ({@code -2}: the last two records), as spring-kafka's.
         */
        void seekRelative(String topic, int partition, long offset, boolean toCurrent);

        /**
         * The next record read from this partition is its first with a timestamp at or after
         * {@code epochMillis} (none: its end).
         *
         * @throws IllegalArgumentException when {@code epochMillis} is negative
         */
        default void seekToTimestamp(String topic, int partition, long epochMillis) {
            seekToTimestamp(topic, List.of(partition), epochMillis);
        }

        /** {@link #seekToTimestamp(String, int, long)} for each of {@code partitions}. */
        void seekToTimestamp(String topic, Collection<Integer> partitions, long epochMillis);

        /** The group of the member this callback seeks for. */
        String getGroupId();
    }
}
