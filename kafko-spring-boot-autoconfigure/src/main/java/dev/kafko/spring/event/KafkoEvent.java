package dev.kafko.spring.event;

import java.io.Serial;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEvent;

/**
 * An event a listener container publishes to the application context, as spring-kafka's {@code KafkaEvent}:
 * its source is the member that published it (one polling thread: a
 * {@link dev.kafko.spring.listener.KafkoMessageListenerContainer}), its container the listener's container
 * (for a {@code @KafkoListener}, the {@link dev.kafko.spring.listener.ConcurrentMessageListenerContainer} its
 * registry holds). Published on the member's polling thread: an application listener that blocks holds up the
 * member, and one that throws is logged, never stopping the member.
 */
public abstract class KafkoEvent extends ApplicationEvent {

    @Serial
    private static final long serialVersionUID = 1L;

    private final transient @Nullable Object container;
    private final String listenerId;

    protected KafkoEvent(Object source, Object container, String listenerId) {
        super(source);
        this.container = container;
        this.listenerId = listenerId;
    }

    /**
     * The listener's container, as {@code type}.
     *
     * @throws IllegalArgumentException when the container is not a {@code type}
     */
    public <T> T getContainer(Class<T> type) {
        return as(type, container, "container");
    }

    /**
     * The member that published the event, as {@code type}.
     *
     * @throws IllegalArgumentException when the source is not a {@code type}
     */
    public <T> T getSource(Class<T> type) {
        return as(type, getSource(), "source");
    }

    /**
     * The id of the listener whose container published the event; for the idle events
     * ({@link ListenerContainerIdleEvent}, {@link ListenerContainerNoLongerIdleEvent} and their partition
     * counterparts) the id of the member that published it, {@code <id>-<n>}, as spring-kafka's are the id of the
     * child container of a member, so that a condition written for them,
     * {@code @EventListener(condition = "event.listenerId.startsWith('<id>-')")}, selects the same events.
     */
    public String getListenerId() {
        return listenerId;
    }

    private <T> T as(Class<T> type, @Nullable Object value, String what) {
        if (value == null) {
            // source and container are not serialized: a deserialized event has neither
            throw new IllegalArgumentException("The " + what + " of this " + getClass().getSimpleName()
                    + " is not known (a deserialized event keeps neither its source nor its container)");
        }
        if (!type.isInstance(value)) {
            throw new IllegalArgumentException("The " + what + " of " + getClass().getSimpleName() + " is a "
                    + value.getClass().getName() + ", not a " + type.getName());
        }
        return type.cast(value);
    }
}
