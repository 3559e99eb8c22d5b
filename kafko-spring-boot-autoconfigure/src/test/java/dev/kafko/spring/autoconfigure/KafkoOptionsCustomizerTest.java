package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

/** Engine options without a property come from {@link KafkoOptionsCustomizer} beans; the metrics stay wired. */
class KafkoOptionsCustomizerTest {

    static final Clock FROZEN = Clock.fixed(Instant.parse("2030-01-02T03:04:05Z"), ZoneOffset.UTC);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(KafkoAutoConfigurationTest.ALL).withBean(SimpleMeterRegistry.class)
            .withPropertyValues("kafko.ephemeral=true");

    @Test
    void aCustomizerSetsEngineOptionsThatHaveNoPropertyAndTheMetricsStillSeeTheTraffic() {
        runner.withBean(KafkoOptionsCustomizer.class,
                () -> builder -> builder.clock(FROZEN).retentionCheckInterval(Duration.ofMillis(20)))
                .run(context -> {
                    Kafko kafko = context.getBean(Kafko.class);
                    assertThat(kafko.options().retentionCheckInterval()).isEqualTo(Duration.ofMillis(20));
                    send(context, "timed", "v");
                    assertThat(KafkoTestUtils.records(context, "timed")).singleElement()
                            .satisfies(r -> assertThat(r.timestamp()).isEqualTo(FROZEN.millis()));
                    assertThat(context.getBean(MeterRegistry.class).get("kafko.log.end.offset").tag("topic", "timed")
                            .gauge().value()).as("fed by the engine's observer").isEqualTo(1);
                });
    }

    @Test
    void customizersApplyInOrderOverThePropertiesAndAnObserverOneSetsJoinsTheMetrics() {
        runner.withUserConfiguration(Customizers.class).withPropertyValues("kafko.linger=3ms").run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            assertThat(kafko.options().linger()).as("the later customizer's").isEqualTo(Duration.ofMillis(7));
            assertThat(kafko.options().maxBlock()).as("set by the earlier one only").isEqualTo(Duration.ofSeconds(9));
            send(context, "seen", "v");
            assertThat(Customizers.APPENDS).containsExactly("seen");
            assertThat(context.getBean(MeterRegistry.class).get("kafko.log.end.offset").tag("topic", "seen")
                    .gauge().value()).isEqualTo(1);
        });
    }

    @SuppressWarnings("unchecked")
    private static void send(ApplicationContext context, String topic, String value) {
        ((KafkoTemplate<Object, Object>) context.getBean(KafkoTemplate.class)).send(topic, value).join();
    }

    @Configuration(proxyBeanMethods = false)
    static class Customizers {
        static final List<String> APPENDS = new CopyOnWriteArrayList<>();

        @Bean
        @Order(2)
        KafkoOptionsCustomizer later() {
            return builder -> builder.linger(Duration.ofMillis(7)).observer(new KafkoObserver() {
                @Override
                public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
                    APPENDS.add(topic);
                }
            });
        }

        @Bean
        @Order(1)
        KafkoOptionsCustomizer earlier() {
            return builder -> builder.linger(Duration.ofMillis(5)).maxBlock(Duration.ofSeconds(9));
        }
    }
}
