package dev.kafko.spring.listener;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.support.KafkoHeaders;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.util.backoff.FixedBackOff;

/**
 * {@link SeekEndsARetryBackOffTest}'s seek that ends a retry's back-off, at its edges: what is committed under each
 * ack mode when the seek skips the failing record (only what the seek skips, nothing of the other partition), a seek
 * by one from the current position (exactly the failing record), a seek to the failing record itself (its attempts
 * counted from 1 again), the end and a timestamp, a batch listener's named record, and a seek of another partition
 * followed by a pause or a stop of the container.
 */
class SeekEndsARetryBackOffEdgesTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** "partition@offset:value#attempt" of each delivery, "recovered:value" of each recovery. */
    static final List<String> SEEN = new CopyOnWriteArrayList<>();
    /** Whether "bad" fails every time (else only its first delivery fails). */
    static volatile boolean alwaysFails;

    @BeforeEach
    void reset() {
        SEEN.clear();
        alwaysFails = true;
    }

    abstract static class Recording extends AbstractConsumerSeekAware {
        /** Records the delivery; throws for "bad" (only at its first delivery unless {@link #alwaysFails}). */
        static void record(String value, int partition, long offset, int attempt) {
            SEEN.add(partition + "@" + offset + ":" + value + "#" + attempt);
            if (value.equals("bad") && (alwaysFails || attempt == 1 && delivered("bad") == 1)) {
                throw new IllegalStateException("refused " + value);
            }
        }

        List<ConsumerSeekCallback> callbacks(int partition) {
            return getSeekCallbacksFor("edges", partition);
        }
    }

    static class Failing extends Recording {
        @KafkoListener(id = "edges", topics = "edges", autoStartup = "false")
        void on(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition,
                @Header(KafkoHeaders.OFFSET) long offset, @Header(KafkoHeaders.DELIVERY_ATTEMPT) int attempt) {
            record(value, partition, offset, attempt);
        }
    }

    /** {@link Failing} under a manual ack mode: it acknowledges each record it processed. */
    static class FailingAcknowledging extends Recording {
        @KafkoListener(id = "edges", topics = "edges", autoStartup = "false")
        void on(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition,
                @Header(KafkoHeaders.OFFSET) long offset, @Header(KafkoHeaders.DELIVERY_ATTEMPT) int attempt,
                Acknowledgment ack) {
            record(value, partition, offset, attempt);
            ack.acknowledge();
        }
    }

    @ParameterizedTest
    @EnumSource(AckMode.class)
    void aSeekPastTheFailingRecordCommitsWhatItSkipsAndNothingOfTheOtherPartition(AckMode mode) {
        run(mode.isManual() ? FailingAcknowledging.class : Failing.class, mode, context -> {
            send(context, 1, "x", "y");
            send(context, 0, "a", "bad", "b", "c");
            start(context);
            await().atMost(WAIT).until(() -> delivered("bad") == 1);

            context.getBean(Recording.class).callbacks(0).forEach(c -> c.seek("edges", 0, 3)); // skips "bad" and "b"

            await().atMost(WAIT).until(() -> delivered("c") == 1 && delivered("x") == 1 && delivered("y") == 1);
            stop(context);
            assertThat(values()).containsExactlyInAnyOrder("x", "y", "a", "bad", "c");
            assertThat(committed(context)).isEqualTo(Map.of(0, 4L, 1, 2L));
        });
    }

    @Test
    void aSeekByOneFromTheCurrentPositionSkipsExactlyTheFailingRecord() {
        run(AckMode.BATCH, context -> {
            send(context, 0, "a", "bad", "b");
            start(context);
            await().atMost(WAIT).until(() -> delivered("bad") == 1);

            context.getBean(Failing.class).callbacks(0).forEach(c -> c.seekRelative("edges", 0, 1, true));

            await().atMost(WAIT).until(() -> delivered("b") == 1);
            stop(context);
            assertThat(SEEN).containsExactly("0@0:a#1", "0@1:bad#1", "0@2:b#1");
            assertThat(committed(context)).isEqualTo(Map.of(0, 3L));
        });
    }

    @Test
    void aSeekToTheFailingRecordDeliversItAgainFromAttemptOne() {
        alwaysFails = false; // the first delivery of "bad" fails, the one after the seek succeeds
        run(AckMode.RECORD, context -> {
            send(context, 0, "a", "bad", "b");
            start(context);
            await().atMost(WAIT).until(() -> delivered("bad") == 1);

            context.getBean(Failing.class).callbacks(0).forEach(c -> c.seek("edges", 0, 1));

            await().atMost(WAIT).until(() -> delivered("b") == 1);
            stop(context);
            assertThat(SEEN).containsExactly("0@0:a#1", "0@1:bad#1", "0@1:bad#1", "0@2:b#1");
            assertThat(committed(context)).isEqualTo(Map.of(0, 3L));
        });
    }

    @Test
    void aSeekToTheEndEndsTheBackOffAndReadsNothingMore() {
        run(AckMode.BATCH, context -> {
            send(context, 0, "a", "bad", "b");
            start(context);
            await().atMost(WAIT).until(() -> delivered("bad") == 1);

            context.getBean(Failing.class).seekToEnd();

            // every partition sought to its end, and committed there (the empty one at 0)
            await().atMost(WAIT).until(() -> committed(context).equals(Map.of(0, 3L, 1, 0L)));
            send(context, 0, "c");
            await().atMost(WAIT).until(() -> delivered("c") == 1);
            assertThat(values()).containsExactly("a", "bad", "c");
        });
    }

    @Test
    void aSeekToATimestampEndsTheBackOffAndReadsFromTheRecordAtIt() {
        run(AckMode.BATCH, context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            template.send("edges", 0, 1_000L, null, "a").join();
            template.send("edges", 0, 2_000L, null, "bad").join();
            template.send("edges", 0, 3_000L, null, "b").join();
            start(context);
            await().atMost(WAIT).until(() -> delivered("bad") == 1);

            context.getBean(Failing.class).seekToTimestamp(2_500L); // the first record at or after it: "b"

            await().atMost(WAIT).until(() -> delivered("b") == 1);
            stop(context);
            assertThat(values()).containsExactly("a", "bad", "b");
            assertThat(committed(context)).isEqualTo(Map.of(0, 3L, 1, 0L)); // the empty partition sought too
        });
    }

    static class FailingBatch extends AbstractConsumerSeekAware {
        @KafkoListener(id = "edges", topics = "edges", autoStartup = "false", batch = "true")
        void on(List<String> values) {
            SEEN.add(String.join(",", values));
            int bad = values.indexOf("bad");
            if (bad >= 0) {
                throw new BatchListenerFailedException("refused", new IllegalStateException("refused"), bad);
            }
        }
    }

    @Test
    void aSeekPastABatchListenersNamedRecordFinishesThoseBeforeItAndSkipsIt() {
        run(FailingBatch.class, AckMode.BATCH, context -> {
            send(context, 0, "a", "bad", "b", "c");
            start(context);
            await().atMost(WAIT).until(() -> SEEN.contains("a,bad,b,c"));

            context.getBean(FailingBatch.class).getSeekCallbacksFor("edges", 0)
                    .forEach(c -> c.seek("edges", 0, 2));

            await().atMost(WAIT).until(() -> SEEN.contains("b,c"));
            stop(context);
            assertThat(SEEN).containsExactly("a,bad,b,c", "b,c");
            assertThat(committed(context)).isEqualTo(Map.of(0, 4L));
        });
    }

    @Test
    void aPauseAfterASeekOfAnotherPartitionMakesTheSeekAndDeliversTheFailingRecordAgainAfterTheResume() {
        run(AckMode.BATCH, context -> {
            send(context, 1, "x");
            start(context);
            await().atMost(WAIT).until(() -> delivered("x") == 1); // before "bad" holds the member in its back-off
            send(context, 0, "bad");
            await().atMost(WAIT).until(() -> delivered("bad") == 1);
            context.getBean(Failing.class).callbacks(1).forEach(c -> c.seek("edges", 1, 0)); // waits for the retries
            MessageListenerContainer container = container(context);

            container.pause();
            await().atMost(WAIT).until(container::isPaused);
            assertThat(values()).containsExactly("x", "bad");
            container.resume();

            await().atMost(WAIT).until(() -> delivered("bad") == 2 && delivered("x") == 2);
            assertThat(SEEN).doesNotContain("recovered:bad").contains("0@0:bad#1", "1@0:x#1");
        });
    }

    @Test
    void aStopAfterASeekOfAnotherPartitionLeavesTheFailingRecordUncommittedAndUnrecovered() {
        run(AckMode.BATCH, context -> {
            send(context, 1, "x");
            start(context);
            await().atMost(WAIT).until(() -> delivered("x") == 1);
            send(context, 0, "a", "bad");
            await().atMost(WAIT).until(() -> delivered("bad") == 1);
            context.getBean(Failing.class).callbacks(1).forEach(c -> c.seek("edges", 1, 0));

            stop(context);
            assertThat(SEEN).doesNotContain("recovered:bad");
            assertThat(committed(context)).isEqualTo(Map.of(0, 1L, 1, 1L)); // the seek was not made: x stays read

            alwaysFails = false;
            start(context);
            await().atMost(WAIT).until(() -> delivered("bad") == 2);
            assertThat(values()).containsExactly("x", "a", "bad", "bad");
        });
    }

    private static void start(ApplicationContext context) {
        container(context).start();
    }

    private static void stop(ApplicationContext context) {
        MessageListenerContainer container = container(context);
        container.stop();
        await().atMost(WAIT).until(() -> !container.isRunning());
    }

    private static MessageListenerContainer container(ApplicationContext context) {
        return context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("edges");
    }

    private static long delivered(String value) {
        return SEEN.stream().filter(s -> s.contains(":" + value + "#")).count();
    }

    /** The values delivered, in order. */
    private static List<String> values() {
        return SEEN.stream().filter(s -> s.contains("#")).map(s -> s.substring(s.indexOf(':') + 1, s.indexOf('#')))
                .toList();
    }

    private static Map<Integer, Long> committed(ApplicationContext context) {
        return context.getBean(Kafko.class).groupInfo("edges", "edges").committed();
    }

    private static void run(AckMode mode, SeekEndsARetryBackOffTest.ThrowingConsumer<ApplicationContext> test) {
        run(Failing.class, mode, test);
    }

    private static void run(Class<?> listener, AckMode mode,
                            SeekEndsARetryBackOffTest.ThrowingConsumer<ApplicationContext> test) {
        // a back-off far longer than the test: without the seek the record would wait in it, then be recovered
        DefaultErrorHandler handler = new DefaultErrorHandler(new FixedBackOff(600_000, 2),
                (record, failure, invocation) -> SEEN.add("recovered:" + new String(record.value(), UTF_8)));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms",
                        "kafko.topics.edges.partitions=2", "kafko.listener.ack-mode=" + mode.name().toLowerCase())
                .withBean(listener).withBean(KafkoErrorHandler.class, () -> handler).run(test::accept);
    }

    @SuppressWarnings("unchecked")
    private static void send(ApplicationContext context, int partition, String... values) {
        KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
        for (String value : values) {
            template.send("edges", partition, null, value).join();
        }
    }
}
