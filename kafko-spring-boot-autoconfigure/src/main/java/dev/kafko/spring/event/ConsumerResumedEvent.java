package dev.kafko.spring.event;

import java.io.Serial;
import java.util.Collection;

/** A paused member of a listener's group polls again after a resume of its container. */
public class ConsumerResumedEvent extends PartitionsEvent {

    @Serial
    private static final long serialVersionUID = 1L;

    public ConsumerResumedEvent(Object source, Object container, String listenerId, String topic,
                                Collection<Integer> partitions) {
        super(source, container, listenerId, topic, partitions);
    }
}
