package dev.kafko.spring.event;

import java.io.Serial;

/**
 * A member of a listener's group started: its polling thread joined the group and is about to poll for the
 * first time.
 */
public class ConsumerStartedEvent extends KafkoEvent {

    @Serial
    private static final long serialVersionUID = 1L;

    public ConsumerStartedEvent(Object source, Object container, String listenerId) {
        super(source, container, listenerId);
    }

    @Override
    public String toString() {
        return "ConsumerStartedEvent [source=" + getSource() + "]";
    }
}
