package dev.kafko.spring.event;

import java.io.Serial;
import java.util.List;

/**
 * A member of a listener's container paused one partition its container was asked to pause
 * ({@code pausePartition}): its polls skip it until it is resumed. Published by the member that reads the partition
 * when it pauses it (again by the next member to read it, after it moved), as spring-kafka's event of the same name.
 */
public class ConsumerPartitionPausedEvent extends PartitionsEvent {

    @Serial
    private static final long serialVersionUID = 1L;

    public ConsumerPartitionPausedEvent(Object source, Object container, String listenerId, String topic,
                                        int partition) {
        super(source, container, listenerId, topic, List.of(partition));
    }

    /** The partition of {@link #getTopic()}. */
    public int getPartition() {
        return getPartitions().get(0);
    }
}
