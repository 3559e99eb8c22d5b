package dev.kafko.spring.listener;

import java.util.Collection;
import java.util.Map;

/**
 * Implemented by a {@code @KafkoListener} bean that wants to choose where its listeners start
 * reading, as with spring-kafka's interface of the same name. The container calls
 * {@link #onPartitionsAssigned} on the member's polling thread each time the member is given
 * partitions, before it reads from them; seeks made through the callback then decide the first
 * record delivered. The callback may be used only during that call. A listener of several topics has
 * a member per topic: implement the method that takes the topic to tell them apart.
 */
public interface ConsumerSeekAware {

    /**
     * Partitions were assigned to one member of a listener's group.
     *
     * @param assignments each assigned partition and the offset the member would start from (the
     *                    group's committed offset, or where the reset policy puts it)
     * @param callback seeks the assigned partitions; an exception thrown here is logged and the
     *                 member reads on from the offsets it had
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

    /** Moves a member's position on its assigned partitions; only on the polling thread, during the call. */
    interface ConsumerSeekCallback {

        /**
         * The next record read from {@code partition} is the one at {@code offset}.
         *
         * @throws IllegalArgumentException when {@code topic} is not the listener's topic
         */
        void seek(String topic, int partition, long offset);

        /** The next records read from these partitions are the oldest still in the log. */
        void seekToBeginning(String topic, Collection<Integer> partitions);

        /** These partitions skip everything already in the log: only records sent from now on are read. */
        void seekToEnd(String topic, Collection<Integer> partitions);
    }
}
