package dev.kafko.spring.event;

import java.io.Serial;

/**
 * A member of a listener's container stopped, after its {@link ConsumerStoppedEvent}: as spring-kafka's event of
 * the same name from a child container, its source is the member and its container the listener's. When the
 * last running member of the container stops, a {@link ConcurrentContainerStoppedEvent} follows.
 */
public class ContainerStoppedEvent extends KafkoEvent {

    @Serial
    private static final long serialVersionUID = 1L;

    public ContainerStoppedEvent(Object source, Object container, String listenerId) {
        super(source, container, listenerId);
    }

    @Override
    public String toString() {
        return "ContainerStoppedEvent [source=" + getSource() + "]";
    }
}
