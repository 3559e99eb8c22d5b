package dev.kafko.spring.event;

import java.io.Serial;
import java.util.Collection;

/**
 * A member of a listener's group took a pause of its container into effect: it committed what it processed and
 * polls no more until the resume. Published once per pause.
 */
public class ConsumerPausedEvent extends PartitionsEvent {

    @Serial
    private static final long serialVersionUID = 1L;

    public ConsumerPausedEvent(Object source, Object container, String listenerId, String topic,
                               Collection<Integer> partitions) {
        super(source, container, listenerId, topic, partitions);
    }
}
