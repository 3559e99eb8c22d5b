package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.transaction.KafkoTransactionManager;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A record that fails in the middle of a poll: the records of the poll processed before it are committed before its
 * retries' back-off, as spring-kafka's container commits (under the ack mode's rules) before its error handler
 * seeks and backs off; a crash during a long back-off then repeats the failing record, not those. Nothing from the
 * failing record on is committed while it is being retried.
 */
class CommitBeforeBackOffTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** The values delivered, in order, attempts included. */
    static final List<String> DELIVERED = new CopyOnWriteArrayList<>();
    /** The failed deliveries of the failing record. */
    static final AtomicInteger FAILURES = new AtomicInteger();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms",
                    "kafko.listener.max-poll-records=10", "kafko.listener.retry.max-attempts=3",
                    "kafko.listener.retry.backoff=1h");

    @BeforeEach
    void reset() {
        DELIVERED.clear();
        FAILURES.set(0);
    }

    @Test
    void batchCommitsTheRecordsBeforeTheFailingOneBeforeItsBackOff() {
        runner.withBean(FailsOnTwo.class).run(context -> assertCommittedBeforeTheBackOff(context, "failing"));
    }

    @Test
    void countCommitsTheRecordsBeforeTheFailingOneBeforeItsBackOffOnceAckCountIsReached() {
        runner.withBean(FailsOnTwo.class)
                .withPropertyValues("kafko.listener.ack-mode=count", "kafko.listener.ack-count=2")
                .run(context -> assertCommittedBeforeTheBackOff(context, "failing"));
    }

    @Test
    void timeCommitsTheRecordsBeforeTheFailingOneBeforeItsBackOffOnceAckTimePassed() {
        runner.withBean(FailsOnTwo.class)
                .withPropertyValues("kafko.listener.ack-mode=time", "kafko.listener.ack-time=1ms")
                .run(context -> assertCommittedBeforeTheBackOff(context, "failing"));
    }

    @Test
    void manualCommitsWhatWasAcknowledgedBeforeTheFailingRecordBeforeItsBackOff() {
        runner.withBean(AcknowledgesAndFailsOnTwo.class).withPropertyValues("kafko.listener.ack-mode=manual")
                .run(context -> assertCommittedBeforeTheBackOff(context, "acknowledging"));
    }

    @Test
    void inATransactionTheRecordsBeforeTheFailingOneAreCommittedBeforeItsBackOff() {
        // each attempt's transaction committed before the container commits its offsets
        runner.withUserConfiguration(WithManager.class).withBean(FailsOnTwo.class)
                .withPropertyValues("kafko.template.transactional=true",
                        "kafko.template.allow-non-transactional=true")
                .run(context -> assertCommittedBeforeTheBackOff(context, "failing"));
    }

    @Test
    void aBatchThatNamesTheFailedRecordHasTheRecordsBeforeItCommittedBeforeItsBackOff() {
        runner.withBean(BatchFailsOnTwo.class).run(context -> assertCommittedBeforeTheBackOff(context, "batcher"));
    }

    @Test
    void aBatchThatNamesTheFailedRecordHasTheRecordsBeforeItCommittedBeforeItsBackOffWhateverTheAckMode() {
        // spring-kafka's error handler commits them itself, before it seeks and backs off
        runner.withBean(BatchFailsOnTwo.class)
                .withPropertyValues("kafko.listener.ack-mode=time", "kafko.listener.ack-time=1h")
                .run(context -> assertCommittedBeforeTheBackOff(context, "batcher"));
    }

    private static void assertCommittedBeforeTheBackOff(ApplicationContext context, String id) {
        @SuppressWarnings("unchecked")
        KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
        for (int i = 0; i < 5; i++) {
            template.send("backed-off", "v" + i).join();
        }
        MessageListenerContainer container =
                context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer(id);
        container.start();
        await().atMost(WAIT).until(() -> FAILURES.get() == 1); // v2 failed: an hour's back-off begins

        // v0 and v1 are committed while v2 waits for its retry, not an hour later
        await().atMost(WAIT).until(() -> committed(context, id) == 2L);
        assertThat(DELIVERED).containsExactly("v0", "v1", "v2");

        container.stop(); // ends the back-off: v2 was not dealt with
        assertThat(committed(context, id)).as("nothing from the failing record on").isEqualTo(2L);
        assertThat(DELIVERED).containsExactly("v0", "v1", "v2");
    }

    private static long committed(ApplicationContext context, String group) {
        return context.getBean(Kafko.class).groupInfo("backed-off", group).committed().getOrDefault(0, -1L);
    }

    static class FailsOnTwo {

        @KafkoListener(id = "failing", topics = "backed-off", autoStartup = "false")
        void on(String value) {
            DELIVERED.add(value);
            if (value.equals("v2")) {
                FAILURES.incrementAndGet();
                throw new IllegalStateException("no " + value);
            }
        }
    }

    static class BatchFailsOnTwo {

        @KafkoListener(id = "batcher", topics = "backed-off", batch = "true", autoStartup = "false")
        void on(List<String> values) {
            for (int i = 0; i < values.size(); i++) {
                String value = values.get(i);
                DELIVERED.add(value);
                if (value.equals("v2")) {
                    FAILURES.incrementAndGet();
                    throw new BatchListenerFailedException("no " + value, i);
                }
            }
        }
    }

    static class AcknowledgesAndFailsOnTwo {

        @KafkoListener(id = "acknowledging", topics = "backed-off", autoStartup = "false")
        void on(String value, Acknowledgment ack) {
            DELIVERED.add(value);
            if (value.equals("v2")) {
                FAILURES.incrementAndGet();
                throw new IllegalStateException("no " + value);
            }
            ack.acknowledge();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class WithManager {

        @Bean
        KafkoTransactionManager kafkoTransactionManager(LogBackend backend) {
            return new KafkoTransactionManager(backend);
        }
    }
}
