package dev.kafko.spring.parity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.BatchListenerFailedException;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@link Acknowledgment#nack} inside the error handler's retries: a listener that nacks and then throws fails as it
 * would without the nack (retries, then recovery), at every attempt; a retry that nacks and returns has its records
 * delivered again after the pause, a batch listener's as a record listener's.
 */
class NackDuringRetriesTest {

    static final List<String> SEEN = new CopyOnWriteArrayList<>();
    static final AtomicInteger CALLS = new AtomicInteger();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=100ms",
                    "kafko.listener.ack-mode=manual", "kafko.listener.retry.max-attempts=3",
                    "kafko.listener.dead-letter.enabled=true");

    @BeforeEach
    void reset() {
        SEEN.clear();
        CALLS.set(0);
    }

    @Test
    void aRecordThatIsNackedAndThrownAtEveryAttemptIsDeadLetteredOnceAfterItsAttempts() {
        runner.withBean(NackThenThrow.class).run(context -> {
            template(context).send("nack-throw", "poison").join();
            Kafko kafko = context.getBean(Kafko.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> committed(kafko, "nack-throw") == 1);
            Thread.sleep(500); // time to go round again, were it to
            assertThat(KafkoTestUtils.records(context, "nack-throw.DLT")).as("dead letters").hasSize(1);
            assertThat(SEEN).as("its three attempts, then recovered").containsExactly("poison", "poison", "poison");
        });
    }

    @Test
    void aBatchRetryThatNacksHasTheBatchDeliveredAgainAfterThePause() {
        runner.withBean(BatchRetryNacks.class).run(context -> {
            for (String v : List.of("a", "b", "c")) {
                template(context).send("batch-retry-nack", v);
            }
            template(context).send("batch-retry-nack", "d").join();
            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("batch-retry-nack").start();
            Kafko kafko = context.getBean(Kafko.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> SEEN.size() >= 3);
            await().atMost(Duration.ofSeconds(20)).until(() -> committed(kafko, "batch-retry-nack") == 4);
            // thrown, retried and nacked from index 1: a is acknowledged by the nack, b, c and d come again
            assertThat(SEEN).containsExactly("[a, b, c, d]", "[a, b, c, d]", "[b, c, d]");
        });
    }

    @Test
    void aBatchRetryOfTheNamedRecordThatNacksHasItDeliveredAgainAfterThePause() {
        runner.withBean(NamedRetryNacks.class).run(context -> {
            for (String v : List.of("a", "b", "c")) {
                template(context).send("named-retry-nack", v);
            }
            template(context).send("named-retry-nack", "d").join();
            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("named-retry-nack").start();
            Kafko kafko = context.getBean(Kafko.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> committed(kafko, "named-retry-nack") == 4);
            // b named as failed; its retry nacks it: b comes again with what follows it, nothing is skipped
            assertThat(SEEN).containsExactly("[a, b, c, d]", "[b]", "[b, c, d]");
            assertThat(KafkoTestUtils.records(context, "named-retry-nack.DLT")).isEmpty();
        });
    }

    static long committed(Kafko kafko, String topic) {
        return kafko.groupInfo(topic, topic).committed().getOrDefault(0, -1L);
    }

    static class NackThenThrow {
        @KafkoListener(id = "nack-throw", topics = "nack-throw")
        void on(String value, Acknowledgment ack) {
            SEEN.add(value);
            ack.nack(Duration.ofMillis(50));
            throw new IllegalStateException("failed after the nack");
        }
    }

    static class BatchRetryNacks {
        @KafkoListener(id = "batch-retry-nack", topics = "batch-retry-nack", batch = "true", autoStartup = "false")
        void on(List<String> values, Acknowledgment ack) {
            SEEN.add(values.toString());
            switch (CALLS.incrementAndGet()) {
                case 1 -> throw new IllegalStateException("transient");
                case 2 -> ack.nack(1, Duration.ofMillis(100));
                default -> ack.acknowledge();
            }
        }
    }

    static class NamedRetryNacks {
        @KafkoListener(id = "named-retry-nack", topics = "named-retry-nack", batch = "true", autoStartup = "false")
        void on(List<String> values, Acknowledgment ack) {
            SEEN.add(values.toString());
            switch (CALLS.incrementAndGet()) {
                case 1 -> throw new BatchListenerFailedException("b failed", new IllegalStateException("transient"), 1);
                case 2 -> ack.nack(0, Duration.ofMillis(100));
                default -> ack.acknowledge();
            }
        }
    }

    @SuppressWarnings("unchecked")
    static KafkoTemplate<Object, Object> template(org.springframework.context.ApplicationContext context) {
        return (KafkoTemplate<Object, Object>) context.getBean(KafkoTemplate.class);
    }
}
