package dev.kafko.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoMetricsAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.KafkoInstrumentation;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@link KafkoInstrumentation} is public: "Receives timings from the template and the listener containers, for
 * example to feed Micrometer". An application that adds one of its own (to feed another metrics system, or a log)
 * beside Micrometer must not silently switch off kafko's send and process timers, nor get nothing itself.
 */
class InstrumentationBeansTest {

    static final List<String> SEEN = new CopyOnWriteArrayList<>();
    static final AtomicInteger PROCESSED = new AtomicInteger();

    @BeforeEach
    void reset() {
        SEEN.clear();
        PROCESSED.set(0);
    }

    static class Own implements KafkoInstrumentation {
        @Override
        public void sendCompleted(String topic, long nanos, @Nullable Throwable failure) {
            SEEN.add("sent " + topic);
        }

        @Override
        public void listenerInvoked(String listenerId, String topic, long nanos, boolean success) {
            SEEN.add("processed " + topic);
        }
    }

    static class Listener {
        @KafkoListener(id = "audited", topics = "audited")
        void on(String value) {
            PROCESSED.incrementAndGet();
        }
    }

    @Test
    void anApplicationsOwnInstrumentationBesideMicrometerLeavesTheTimersAndIsToldToo() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class, KafkoMetricsAutoConfiguration.class))
                .withBean(SimpleMeterRegistry.class).withBean(Own.class).withBean(Listener.class)
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=100ms").run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            template.send("audited", "x").join();
            await().atMost(Duration.ofSeconds(10)).until(() -> PROCESSED.get() == 1);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(
                    registry.find("kafko.listener.process").tag("topic", "audited").timers()).isNotEmpty());
            assertThat(registry.find("kafko.template.send").tag("topic", "audited").timers()).isNotEmpty();
            assertThat(SEEN).contains("sent audited", "processed audited");
        });
    }
}
