package dev.kafko.spring.autoconfigure;

import dev.kafko.Kafko;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.health.KafkoHealthIndicator;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code kafko} health contributor ({@code /actuator/health/kafko}), when spring-boot-health is
 * on the classpath, a {@link Kafko} bean exists and {@code management.health.kafko.enabled} is not false.
 */
@AutoConfiguration(after = KafkoAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(Kafko.class)
@ConditionalOnBooleanProperty(name = "kafko.enabled", matchIfMissing = true)
@EnableConfigurationProperties(KafkoProperties.class)
public final class KafkoHealthAutoConfiguration {

    @Bean
    @ConditionalOnEnabledHealthIndicator("kafko")
    @ConditionalOnMissingBean(name = "kafkoHealthIndicator")
    KafkoHealthIndicator kafkoHealthIndicator(Kafko kafko, KafkoProperties properties,
                                              ObjectProvider<KafkoListenerEndpointRegistry> registry) {
        return new KafkoHealthIndicator(kafko,
                KafkoPropertiesCheck.notNegative("kafko.health.min-free-disk", properties.getHealth().getMinFreeDisk()),
                registry);
    }
}
