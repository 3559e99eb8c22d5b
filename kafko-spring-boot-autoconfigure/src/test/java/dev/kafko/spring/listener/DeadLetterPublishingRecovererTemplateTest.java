package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoMetricsAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code new DeadLetterPublishingRecoverer(template)}, as spring-kafka's error handler beans read: dead letters go to
 * the log the template writes to, counted by its instrumentation, also with a destination resolver.
 */
class DeadLetterPublishingRecovererTemplateTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class, KafkoMetricsAutoConfiguration.class))
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.orders.partitions=2");

    @Test
    void aRecovererMadeFromTheTemplatePublishesToItsLogAndCountsWithItsMeters() {
        runner.withUserConfiguration(FromTemplate.class).withBean(Failing.class).run(context -> {
            assertThat(context).hasNotFailed();
            template(context).send("orders", 1, "k", "poison").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            KafkoRecord dead = KafkoTestUtils.singleRecord(context, "orders.DLT", Duration.ofSeconds(10));
            assertThat(dead.partition()).isEqualTo(1);
            assertThat(new String(dead.value(), StandardCharsets.UTF_8)).isEqualTo("poison");
            assertThat(new String(dead.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_MESSAGE),
                    StandardCharsets.UTF_8)).contains("no good");
            assertThat(context.getBean(MeterRegistry.class).get("kafko.listener.dead.letter").tag("topic", "orders")
                    .counter().count()).isEqualTo(1);
        });
    }

    @Test
    void withAResolverItPublishesWhereTheResolverSays() {
        runner.withUserConfiguration(FromTemplateWithResolver.class).withBean(Failing.class).run(context -> {
            assertThat(context).hasNotFailed();
            template(context).send("orders", 0, "k", "poison").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            List<KafkoRecord> invalid = KafkoTestUtils.records(context, "orders.invalid", 1, Duration.ofSeconds(10));
            assertThat(invalid).extracting(r -> new String(r.value(), StandardCharsets.UTF_8)).containsExactly("poison");
            assertThat(context.getBean(MeterRegistry.class).get("kafko.listener.dead.letter").tag("topic", "orders")
                    .counter().count()).isEqualTo(1);
        });
    }

    @Test
    void aNullTemplateIsRefusedNamingIt() {
        assertThatThrownBy(() -> new DeadLetterPublishingRecoverer((KafkoTemplate<?, ?>) null))
                .isInstanceOf(NullPointerException.class).hasMessage("template");
        assertThatThrownBy(() -> new DeadLetterPublishingRecoverer((KafkoTemplate<?, ?>) null,
                (record, failure) -> DeadLetterDestination.of("x"))).isInstanceOf(NullPointerException.class)
                .hasMessage("template");
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    @Configuration(proxyBeanMethods = false)
    static class FromTemplate {
        @Bean
        KafkoErrorHandler errorHandler(KafkoTemplate<?, ?> template) {
            return DefaultErrorHandler.withAttempts(2, 0, new DeadLetterPublishingRecoverer(template));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class FromTemplateWithResolver {
        @Bean
        KafkoErrorHandler errorHandler(KafkoTemplate<?, ?> template) {
            return DefaultErrorHandler.withAttempts(2, 0, new DeadLetterPublishingRecoverer(template,
                    (record, failure) -> DeadLetterDestination.of("orders.invalid")));
        }
    }

    static class Failing {
        @KafkoListener(id = "failing", topics = "orders")
        void on(String value) {
            throw new IllegalStateException("no good: " + value);
        }
    }
}
