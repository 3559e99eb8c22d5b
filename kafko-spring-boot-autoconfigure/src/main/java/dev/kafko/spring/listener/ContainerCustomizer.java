package dev.kafko.spring.listener;

/**
 * Configures further each container a {@link dev.kafko.spring.config.KafkoListenerContainerFactory} makes, once the
 * factory has made and configured it and before anything starts it, as spring-kafka's interface of the same name
 * (which takes the container's key and value types; kafko's containers have none). Set with
 * {@link dev.kafko.spring.config.KafkoListenerContainerFactory#setContainerCustomizer}: it sees every container of
 * the factory and of its {@code copy()}s, those of {@code @KafkoListener} methods (a {@code @RetryableTopic}
 * listener's retry and dead-letter containers included) and those made in code; the auto-configured factory takes
 * the context's {@code ContainerCustomizer} bean. A listener's own {@link ContainerPostProcessor} runs after it.
 *
 * <p>What it sets on the container replaces what the factory and the listener's attributes gave, and takes effect
 * when the container starts: its {@link ContainerProperties} (ack mode, concurrency, polls, idle events, ...; the
 * members are made again with them), error handler, auto-startup, record and batch interceptors, observation
 * registry and event publisher. A listener method that takes an {@code Acknowledgment} is checked against the ack
 * mode the customizer leaves. Called on the thread that asks the factory for the container; what it throws fails the
 * making of the container, as a {@link ContainerCustomizationException}.
 *
 * <pre>{@code
 * @Bean
 * ContainerCustomizer recordAcksForAudit() {
 *     return container -> {
 *         if (container.getListenerId().startsWith("audit-")) {
 *             container.setContainerProperties(container.getContainerProperties().withAckMode(AckMode.RECORD));
 *         }
 *     };
 * }
 * }</pre>
 */
@FunctionalInterface
public interface ContainerCustomizer {

    /** Configures {@code container}, which no one has started yet ({@link ConcurrentMessageListenerContainer#getListenerId()} tells whose it is). */
    void configure(ConcurrentMessageListenerContainer container);
}
