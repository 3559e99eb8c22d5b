package dev.kafko.spring.autoconfigure;

import dev.kafko.Kafko;
import dev.kafko.spring.metrics.KafkoMetrics;
import io.micrometer.core.instrument.MeterRegistry;
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
 * containers' instrumentation.
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
    KafkoMetrics kafkoMetrics(MeterRegistry registry, ObjectProvider<Kafko> kafko) {
        return new KafkoMetrics(registry, kafko);
    }
}
