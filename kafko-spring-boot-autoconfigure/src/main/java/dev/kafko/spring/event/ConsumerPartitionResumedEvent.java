package dev.kafko.spring.event;

import java.io.Serial;
import java.util.List;

/**
 * A member of a listener's container resumed a partition it had paused, as its container was asked to
 * ({@code resumePartition}): its polls read it again, as spring-kafka's event of the same name.
 */
public class ConsumerPartitionResumedEvent extends PartitionsEvent {

    @Serial
    private static final long serialVersionUID = 1L;

    public ConsumerPartitionResumedEvent(Object source, Object container, String listenerId, String topic,
                                         int partition) {
        super(source, container, listenerId, topic, List.of(partition));
    }

    /** The partition of {@link #getTopic()}. */
    public int getPartition() {
        return getPartitions().get(0);
    }
}
