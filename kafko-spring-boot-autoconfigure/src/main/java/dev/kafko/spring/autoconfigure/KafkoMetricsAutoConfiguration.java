package dev.kafko.spring.autoconfigure;

import dev.kafko.Kafko;
import dev.kafko.spring.metrics.KafkoMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer meters for kafko, when Micrometer is on the classpath and a {@link MeterRegistry}
 * bean exists. The {@link KafkoMetrics} bean is both the engine's observer (the auto-configured
 * {@code Kafko} bean picks it up; an application's own must pass it itself) and the template's and
 * containers' instrumentation, and it learns the names and keys of kafko's observations from the
 * {@link ObservationRegistry} bean, so that the timers a meter handler makes of them leave with their topic.
 */
@AutoConfiguration(after = KafkoAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({Kafko.class, MeterRegistry.class})
@ConditionalOnBooleanProperty(name = "kafko.enabled", matchIfMissing = true)
public final class KafkoMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    KafkoMetrics kafkoMetrics(MeterRegistry registry, ObjectProvider<Kafko> kafko,
                              ObjectProvider<ObservationRegistry> observationRegistry) {
        KafkoMetrics metrics = new KafkoMetrics(registry, kafko);
        // the observations' names and keys, which a convention bean may change: their timers leave with their topic
        ObservationRegistry observations = observationRegistry.getIfUnique();
        if (observations != null) {
            observations.observationConfig().observationHandler(metrics.observationHandler());
        }
        return metrics;
    }
}
