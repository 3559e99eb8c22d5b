package dev.kafko.spring.event;

import java.io.Serial;

/**
 * A member of a listener's group is starting: the first thing its polling thread does, before it waits for the
 * listener's other members to join (a {@link ConsumerStartedEvent} follows, once it is about to poll).
 */
public class ConsumerStartingEvent extends KafkoEvent {

    @Serial
    private static final long serialVersionUID = 1L;

    public ConsumerStartingEvent(Object source, Object container, String listenerId) {
        super(source, container, listenerId);
    }

    @Override
    public String toString() {
        return "ConsumerStartingEvent [source=" + getSource() + "]";
    }
}
