package dev.kafko.spring.event;

import java.io.Serial;
import java.util.Objects;

/**
 * Every member of a listener's container has stopped: published on the polling thread of the last one to
 * stop, after its {@link ContainerStoppedEvent}. Source and container are both the listener's container (for a
 * {@code @KafkoListener}, the {@link dev.kafko.spring.listener.ConcurrentMessageListenerContainer}). Its
 * {@link #getReason() reason} is {@link ConsumerStoppedEvent.Reason#NORMAL} when every member stopped as asked,
 * else why the first member that died since the container last ran none ended. A member started again from this
 * event's listener makes the container run again.
 */
public class ConcurrentContainerStoppedEvent extends KafkoEvent {

    @Serial
    private static final long serialVersionUID = 1L;

    private final ConsumerStoppedEvent.Reason reason;

    public ConcurrentContainerStoppedEvent(Object source, String listenerId, ConsumerStoppedEvent.Reason reason) {
        super(source, source, listenerId);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public ConsumerStoppedEvent.Reason getReason() {
        return reason;
    }

    @Override
    public String toString() {
        return "ConcurrentContainerStoppedEvent [source=" + getSource() + ", reason=" + reason + "]";
    }
}
