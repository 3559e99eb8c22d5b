package dev.kafko.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.KafkoInstrumentation;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * What instrumentation does with the news of a send or a delivery does not change the send or the delivery, as the
 * engine's observer and the template's producer listener do not: a written record is a successful send, a record the
 * listener processed is not processed again.
 */
class ThrowingInstrumentationTest {

    static final AtomicInteger CALLS = new AtomicInteger();

    /** A metrics bridge with a bug (or a registry that refuses a meter). */
    static class Throwing implements KafkoInstrumentation {
        @Override
        public void sendCompleted(String topic, long nanos, @Nullable Throwable failure) {
            throw new IllegalStateException("meter registry refused the meter");
        }

        @Override
        public void listenerInvoked(String listenerId, String topic, long nanos, boolean success) {
            throw new IllegalStateException("meter registry refused the meter");
        }
    }

    static class Listener {
        @KafkoListener(id = "counted", topics = "counted")
        void on(String value) {
            CALLS.incrementAndGet();
        }
    }

    @Test
    void aThrowingInstrumentationLeavesAWrittenRecordASuccessfulSend() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(Throwing.class).withPropertyValues("kafko.ephemeral=true").run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            Throwable failure = template.send("plain", "v").handle((r, e) -> e).join();
            assertThat(KafkoTestUtils.records(context.getBean(Kafko.class), "plain")).hasSize(1);
            assertThat(failure).as("the send's outcome, with its record written").isNull();
        });
    }

    @Test
    void aThrowingInstrumentationDoesNotMakeAProcessedRecordFail() {
        CALLS.set(0);
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(Throwing.class).withBean(Listener.class)
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=100ms").run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            kafko.producer("counted").send(null, "v".getBytes()).join();
            await().atMost(Duration.ofSeconds(10)).until(() -> CALLS.get() >= 1);
            Thread.sleep(500);
            assertThat(CALLS.get()).as("deliveries of the one record").isEqualTo(1);
        });
    }
}
