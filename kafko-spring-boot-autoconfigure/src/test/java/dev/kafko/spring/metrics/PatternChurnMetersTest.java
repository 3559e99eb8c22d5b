package dev.kafko.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoMetricsAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * README: "A deleted topic takes the gauges ... with it ... so that no series is left reading NaN and an application
 * that creates and deletes topics keeps a bounded set". A listener with a topic pattern over short-lived topics (one
 * per tenant, per day) is such an application.
 */
class PatternChurnMetersTest {

    static final AtomicInteger PROCESSED = new AtomicInteger();

    @Test
    void aPatternListenerOverTopicsCreatedAndDeletedKeepsABoundedSetOfMeters() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class, KafkoMetricsAutoConfiguration.class))
                .withBean(SimpleMeterRegistry.class).withBean(Tenants.class)
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=100ms").run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            ConcurrentMessageListenerContainer container = (ConcurrentMessageListenerContainer) context
                    .getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("tenants");
            int rounds = 20;
            for (int i = 0; i < rounds; i++) {
                template.send("tenant-" + i, "x").join();
                int expected = i + 1;
                await().atMost(Duration.ofSeconds(10)).until(() -> PROCESSED.get() >= expected);
                kafko.deleteTopic("tenant-" + i);
            }
            long threads = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().startsWith("tenants-")).count();
            System.out.println("PROBE members " + container.getMembers().size() + " threads " + threads
                    + " topics " + container.getTopics().size());
            assertThat(registry.getMeters()).as("meters of the deleted topics")
                    .filteredOn(m -> String.valueOf(m.getId().getTag("topic")).startsWith("tenant-"))
                    .extracting(Meter::getId).isEmpty();
        });
    }

    static class Tenants {
        @KafkoListener(id = "tenants", topicPattern = "tenant-.*")
        void on(String value) {
            PROCESSED.incrementAndGet();
        }
    }
}
