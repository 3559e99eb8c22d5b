package dev.kafko.spring.listener;

/**
 * Configures further the container of one listener, named by its
 * {@link dev.kafko.spring.annotation.KafkoListener#containerPostProcessor()}, as spring-kafka's interface of the
 * same name: called once the container factory has made and configured the container, after the factory's
 * {@link ContainerCustomizer}, before anything starts it. A {@code @RetryableTopic} listener's retry and dead-letter
 * containers get it too. What it may set, and when that takes effect, is as for {@link ContainerCustomizer}; what it
 * throws fails the making of the container, as a {@link ContainerCustomizationException}.
 */
@FunctionalInterface
public interface ContainerPostProcessor {

    /** Configures {@code container}, which no one has started yet. */
    void postProcess(ConcurrentMessageListenerContainer container);
}
