package dev.kafko.spring.listener;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.util.backoff.FixedBackOff;

/**
 * A seek the listener asks for, through its registered callback, of the partition of a record that waits out its
 * retry's back-off ends the back-off, as spring-kafka makes a seek after the back-off of one failed attempt: the
 * record is not recovered, and the partition is read from where it was sought (past it, to skip it; before it, to
 * read it again). A seek of another partition leaves the back-off alone.
 */
class SeekEndsARetryBackOffTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** The values delivered, and those recovered ("recovered:value"). */
    static final List<String> SEEN = new CopyOnWriteArrayList<>();

    @BeforeEach
    void reset() {
        SEEN.clear();
    }

    static class Failing extends AbstractConsumerSeekAware {
        @KafkoListener(id = "poisoned", topics = "poisoned", autoStartup = "false")
        void on(String value) {
            SEEN.add(value);
            if (value.equals("bad") && SEEN.stream().filter("bad"::equals).count() < 3) {
                throw new IllegalStateException("refused " + value);
            }
        }

        void seek(int partition, long offset) {
            getSeekCallbacksFor("poisoned", partition).forEach(callback -> callback.seek("poisoned", partition, offset));
        }
    }

    @Test
    void aSeekPastTheRecordSkipsItWithoutWaitingForItsBackOff() {
        run(context -> {
            send(context, 0, "a", "bad", "b", "c");
            await().atMost(WAIT).until(() -> SEEN.contains("bad")); // failed once: its back-off began

            context.getBean(Failing.class).seek(0, 2);

            await().atMost(WAIT).until(() -> SEEN.size() == 4);
            assertThat(SEEN).containsExactly("a", "bad", "b", "c");
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(context.getBean(Kafko.class).groupInfo("poisoned", "poisoned").committed())
                    .containsEntry(0, 4L);
        });
    }

    @Test
    void aReplayFromBeforeTheRecordReadsItAgainWithoutWaitingForItsBackOff() {
        run(context -> {
            send(context, 0, "a", "bad", "b");
            await().atMost(WAIT).until(() -> SEEN.contains("bad"));

            context.getBean(Failing.class).seekToBeginning();

            await().atMost(WAIT).until(() -> SEEN.size() == 4);
            assertThat(SEEN).containsExactly("a", "bad", "a", "bad"); // the second "bad" fails and waits again
        });
    }

    @Test
    void aSeekOfAnotherPartitionLeavesTheBackOffAlone() {
        run(context -> {
            send(context, 1, "x");
            await().atMost(WAIT).until(() -> SEEN.contains("x")); // before "bad" holds the member in its back-off
            send(context, 0, "bad");
            await().atMost(WAIT).until(() -> SEEN.contains("bad"));

            context.getBean(Failing.class).seek(1, 0);

            await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> SEEN.stream().filter("bad"::equals).count() == 1);
            assertThat(SEEN).doesNotContain("recovered:bad");
        });
    }

    static class FailingBatch extends AbstractConsumerSeekAware {
        @KafkoListener(id = "poisoned", topics = "poisoned", autoStartup = "false", batch = "true")
        void on(List<String> values) {
            SEEN.add(String.join(",", values));
            if (values.contains("bad")) {
                throw new IllegalStateException("refused " + values);
            }
        }
    }

    @Test
    void aSeekEndsTheBackOffOfABatchOfThePartition() {
        run(FailingBatch.class, context -> {
            send(context, 0, "a", "bad");
            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("poisoned").start();
            await().atMost(WAIT).until(() -> SEEN.contains("a,bad")); // the batch failed once: its back-off began

            context.getBean(FailingBatch.class).getSeekCallbacksFor("poisoned", 0)
                    .forEach(callback -> callback.seek("poisoned", 0, 2));
            send(context, 0, "c");

            await().atMost(WAIT).until(() -> SEEN.contains("c"));
            assertThat(SEEN).containsExactly("a,bad", "c");
        });
    }

    private static void run(ThrowingConsumer<ApplicationContext> test) {
        run(Failing.class, context -> {
            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("poisoned").start();
            test.accept(context);
        });
    }

    private static void run(Class<?> listener, ThrowingConsumer<ApplicationContext> test) {
        // a back-off far longer than the test: without the seek the record would wait in it, then be recovered
        DefaultErrorHandler handler = new DefaultErrorHandler(new FixedBackOff(600_000, 2),
                (record, failure, invocation) -> SEEN.add("recovered:" + new String(record.value(), UTF_8)));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms",
                        "kafko.topics.poisoned.partitions=2")
                .withBean(listener).withBean(KafkoErrorHandler.class, () -> handler).run(test::accept);
    }

    @SuppressWarnings("unchecked")
    private static void send(ApplicationContext context, int partition, String... values) {
        KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
        for (String value : values) {
            template.send("poisoned", partition, null, value).join();
        }
    }

    interface ThrowingConsumer<T> {
        void accept(T value) throws Exception;
    }
}
