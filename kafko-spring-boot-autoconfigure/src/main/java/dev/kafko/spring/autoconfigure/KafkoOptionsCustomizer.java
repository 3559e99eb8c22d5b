package dev.kafko.spring.autoconfigure;

import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;

/**
 * Changes the {@link KafkoOptions} the auto-configured {@link Kafko} opens with: the way to set engine
 * options that have no {@code kafko.*} property, such as a {@link java.time.Clock} or
 * {@code retentionCheckInterval}, while keeping everything else the auto-configuration does.
 *
 * <pre>{@code
 * @Bean
 * KafkoOptionsCustomizer retentionEverySecond() {
 *     return builder -> builder.retentionCheckInterval(Duration.ofSeconds(1));
 * }
 * }</pre>
 *
 * <p>Every bean of this type is applied to the builder in order ({@code @Order}, {@code Ordered}), after
 * the builder got the {@code kafko.*} properties, so a customizer's value wins over a property's. The
 * observer is set after the customizers: every {@link KafkoObserver} bean (the metrics among them), in
 * their order, after the observer a customizer set, if any. A customizer therefore cannot drop the
 * metrics; declaring an observer as a bean is the simpler way to add one.
 *
 * <p>A {@link Kafko} bean of the application's own replaces the auto-configured instance altogether:
 * neither the properties that set engine options nor the customizers nor the observer beans reach it,
 * so it has to wire the {@link KafkoObserver} beans itself for the metrics to see its traffic.
 */
@FunctionalInterface
public interface KafkoOptionsCustomizer {

    /** Changes {@code builder}, which holds the options from the {@code kafko.*} properties and earlier customizers. */
    void customize(KafkoOptions.Builder builder);
}
