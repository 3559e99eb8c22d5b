package dev.kafko.spring.parity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.MessageListenerContainer;
import dev.kafko.spring.support.Acknowledgment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * Under a manual ack mode a record whose retry succeeded is committed once the listener acknowledges it, as at its
 * first delivery (and as spring-kafka, whose retried record comes back through a poll): a retry that returns
 * without acknowledging (the work goes on elsewhere, to be acknowledged when done) is not a recovery.
 */
class RetriedManualAckTest {

    static final List<String> SEEN = new CopyOnWriteArrayList<>();
    static final AtomicInteger CALLS = new AtomicInteger();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=100ms",
                    "kafko.listener.retry.max-attempts=3", "kafko.listener.retry.backoff=0");

    @BeforeEach
    void reset() {
        SEEN.clear();
        CALLS.set(0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"manual", "manual-immediate"})
    void aRetryThatReturnsWithoutAcknowledgingCommitsNothing(String mode) {
        runner.withBean(RetriedUnacknowledged.class).withPropertyValues("kafko.listener.ack-mode=" + mode)
                .run(context -> {
                    template(context).send("retried-unacked", "x").join();
                    await().atMost(Duration.ofSeconds(10)).until(() -> SEEN.size() == 2);
                    Thread.sleep(500); // several polls: a commit would have been made
                    Kafko kafko = context.getBean(Kafko.class);
                    assertThat(kafko.groupInfo("retried-unacked", "retried-unacked").committed())
                            .as("x was never acknowledged").doesNotContainEntry(0, 1L);

                    MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                            .getListenerContainer("retried-unacked");
                    container.stop();
                    container.start();
                    await().atMost(Duration.ofSeconds(10)).until(() -> SEEN.size() == 3);
                    assertThat(SEEN).as("delivered again after the restart").containsExactly("x", "x", "x");
                });
    }

    static class RetriedUnacknowledged {
        @KafkoListener(id = "retried-unacked", topics = "retried-unacked")
        void on(String value, Acknowledgment ack) {
            SEEN.add(value);
            if (CALLS.incrementAndGet() == 1) {
                throw new IllegalStateException("transient");
            }
            // returns without acknowledging: its work is not done (acknowledged later, or never)
        }
    }

    @SuppressWarnings("unchecked")
    static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return (KafkoTemplate<Object, Object>) context.getBean(KafkoTemplate.class);
    }
}
