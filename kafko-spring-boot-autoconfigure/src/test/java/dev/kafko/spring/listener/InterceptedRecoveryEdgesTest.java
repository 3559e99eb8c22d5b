package dev.kafko.spring.listener;

import static dev.kafko.spring.listener.RecordInterceptorTest.container;
import static dev.kafko.spring.listener.RecordInterceptorTest.run;
import static dev.kafko.spring.listener.RecordInterceptorTest.send;
import static dev.kafko.spring.listener.RecordInterceptorTest.value;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.listener.RecordInterceptorTest.Replaced;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import dev.kafko.spring.transaction.KafkoTransactionManager;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.SendTo;

/**
 * What a container interceptor's records become when the listener fails on them (B288, B292, B301): the records the
 * error handler is handed, recovers and tells of, what is committed, and that a batch interceptor that reorders its
 * batch loses no record the listener did not get to, whichever record it names as failed, nacks or acknowledges.
 */
class InterceptedRecoveryEdgesTest {

    /** The values the listeners processed (returned for), in order. */
    static final List<String> PROCESSED = new CopyOnWriteArrayList<>();
    static final List<String> TOLD = new CopyOnWriteArrayList<>();
    static final AtomicInteger INTERCEPTS = new AtomicInteger();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(RetryListener.class, () -> RecordInterceptorTest.recordingRetryListener(TOLD))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.retry.max-attempts=2",
                    "kafko.listener.dead-letter.enabled=true");

    @BeforeEach
    void reset() {
        PROCESSED.clear();
        TOLD.clear();
        INTERCEPTS.set(0);
    }

    @Test
    void aRecordReplacedByOneOfAnotherPartitionAndOffsetIsRecoveredAsReplacedAndCommittedWherePolled() {
        runner.withPropertyValues("kafko.topics.failing.partitions=2")
                .withBean(RecordInterceptor.class, () -> record -> new Elsewhere(record, 1, 42))
                .withBean(RecordInterceptorTest.Failing.class)
                .run(context -> {
                    sendTo(context, "failing", 0, "bad");
                    sendTo(context, "failing", 0, "ok");
                    run(context, "failing");

                    assertThat(TOLD).containsExactly("failed:bad:1", "failed:bad:2", "recovered:bad");
                    List<KafkoRecord> deadLetters = KafkoTestUtils.records(context, "failing.DLT");
                    assertThat(deadLetters).extracting(RecordInterceptorTest::value).containsExactly("bad");
                    // the dead letter is the record the listener got, as spring-kafka's recoverer is given it: its
                    // original-* headers and its partition are those the replacement names
                    KafkoRecord deadLetter = deadLetters.get(0);
                    assertThat(new String(deadLetter.headers().lastValue(KafkoHeaders.DLT_ORIGINAL_PARTITION),
                            StandardCharsets.UTF_8)).isEqualTo("1");
                    assertThat(new String(deadLetter.headers().lastValue(KafkoHeaders.DLT_ORIGINAL_OFFSET),
                            StandardCharsets.UTF_8)).isEqualTo("42");
                    assertThat(deadLetter.partition()).isEqualTo(1);
                    // the offsets committed are the polled ones: none for the partition the replacement names
                    Map<Integer, Long> committed = context.getBean(Kafko.class).groupInfo("failing", "failing")
                            .committed();
                    assertThat(committed.get(0)).isEqualTo(2L);
                    assertThat(committed.get(1)).isNull();
                    assertThat(container(context, "failing").isRunning()).isTrue();
                });
    }

    @Test
    void aRecordReplacedByAnotherOneAtEachAttemptIsRecoveredAsTheLastAttemptGotIt() {
        runner.withBean(RecordInterceptor.class, () -> record ->
                        new Replaced(record, value(record) + "#" + INTERCEPTS.incrementAndGet()))
                .withBean(Numbered.class)
                .run(context -> {
                    send(context, "numbered", "bad");
                    run(context, "numbered");

                    assertThat(TOLD).containsExactly("failed:bad#1:1", "failed:bad#2:2", "recovered:bad#2");
                    assertThat(KafkoTestUtils.records(context, "numbered.DLT"))
                            .extracting(RecordInterceptorTest::value).containsExactly("bad#2");
                });
    }

    @Test
    void aRecordItsInterceptorSkipsOnARetryIsNeitherRecoveredNorRetriedAgain() {
        runner.withBean(RecordInterceptor.class, () -> record ->
                        INTERCEPTS.incrementAndGet() == 1 ? new Replaced(record, "bad#1") : null)
                .withBean(Numbered.class)
                .run(context -> {
                    send(context, "numbered", "bad");
                    run(context, "numbered");

                    assertThat(TOLD).containsExactly("failed:bad#1:1");
                    assertThat(INTERCEPTS.get()).isEqualTo(2);
                    assertThat(KafkoTestUtils.records(context, "numbered.DLT")).isEmpty();
                    assertThat(RecordInterceptorTest.committed(context, "numbered")).isEqualTo(1L);
                });
    }

    @Test
    void aBatchInterceptorThatDropsEveryRecordCommitsTheBatch() {
        runner.withBean(BatchInterceptor.class, () -> records -> List.of())
                .withBean(InOrder.class)
                .run(context -> {
                    send(context, "ordered", "a", "bad", "c");
                    run(context, "ordered");

                    assertThat(PROCESSED).isEmpty();
                    assertThat(TOLD).isEmpty();
                    assertThat(RecordInterceptorTest.committed(context, "ordered")).isEqualTo(3L);
                });
    }

    @Test
    void aFailedRecordNamedInAReversedBatchLeavesNoRecordTheListenerDidNotGetTo() {
        runner.withBean(BatchInterceptor.class, () -> InterceptedRecoveryEdgesTest::reversed)
                .withBean(InOrder.class)
                .run(context -> {
                    send(context, "ordered", "a", "b", "bad");
                    run(context, "ordered");

                    // the listener got [bad, b, a] and named index 0, processing neither a nor b, which come before
                    // bad in the polled batch: not finished unprocessed, the whole batch fails (and, failing again
                    // on bad first, is dead-lettered as the listener got it)
                    List<String> deadLettered = KafkoTestUtils.records(context, "ordered.DLT").stream()
                            .map(RecordInterceptorTest::value).toList();
                    assertThat(deadLettered).contains("bad");
                    for (String v : List.of("a", "b")) {
                        assertThat(PROCESSED.contains(v) || deadLettered.contains(v)).as(v).isTrue();
                    }
                    assertThat(RecordInterceptorTest.committed(context, "ordered")).isEqualTo(3L);
                });
    }

    @Test
    void aFailedRecordNamedInABatchWhoseRecordsAfterItComeAfterItIsRecoveredAlone() {
        // [a, bad, c] given as [c, a, bad]: c, before bad in the list, was processed; nothing after bad comes before it
        runner.withBean(BatchInterceptor.class, () -> records -> records.size() == 3
                        ? List.of(records.get(2), records.get(0), records.get(1)) : records)
                .withBean(InOrder.class)
                .run(context -> {
                    send(context, "ordered", "a", "bad", "c");
                    run(context, "ordered");

                    assertThat(KafkoTestUtils.records(context, "ordered.DLT"))
                            .extracting(RecordInterceptorTest::value).containsExactly("bad");
                    assertThat(PROCESSED).containsExactly("c", "a", "c"); // c, after bad in the polled batch, again
                    assertThat(RecordInterceptorTest.committed(context, "ordered")).isEqualTo(3L);
                });
    }

    @Test
    void aNackInAReversedBatchLeavesNoRecordTheListenerDidNotGetTo() {
        runner.withBean(BatchInterceptor.class, () -> InterceptedRecoveryEdgesTest::reversed)
                .withBean(Nacking.class)
                .run(context -> {
                    send(context, "nacking", "a", "nack", "c");
                    run(context, "nacking");

                    // the listener got [c, nack, a], processed c and nacked index 1: a comes again
                    assertThat(PROCESSED).contains("a", "c", "nack");
                    assertThat(RecordInterceptorTest.committed(context, "nacking")).isEqualTo(3L);
                });
    }

    @Test
    void anAcknowledgmentByIndexInAReversedBatchCommitsNoRecordTheListenerDidNotGetTo() {
        runner.withBean(BatchInterceptor.class, () -> InterceptedRecoveryEdgesTest::reversed)
                .withBean(AcknowledgingFirst.class)
                .run(context -> {
                    send(context, "acking", "a", "b", "c");
                    run(context, "acking");

                    // the listener got [c, b, a] and acknowledged index 0 alone (c): nothing before it, nor a or b
                    assertThat(PROCESSED).containsExactly("c");
                    assertThat(RecordInterceptorTest.committed(context, "acking")).isNull();
                });
    }

    @Test
    void aReplacedRecordsReplyAndItsErrorHandlersReplyAreMadeFromTheReplacement() {
        runner.withBean(RecordInterceptor.class, () -> record -> new Replaced(record, value(record).toUpperCase()))
                .withBean("fallback", KafkoListenerErrorHandler.class,
                        () -> (message, exception) -> "fallback:"
                                + new String((byte[]) message.getPayload(), StandardCharsets.UTF_8))
                .withBean(Replying.class)
                .run(context -> {
                    send(context, "replying", "a", "bad");
                    run(context, "replying");

                    assertThat(KafkoTestUtils.records(context, "replies")).extracting(RecordInterceptorTest::value)
                            .containsExactly("reply:A", "fallback:BAD");
                    assertThat(TOLD).isEmpty(); // the error handler of the listener answered: no failed delivery
                    assertThat(RecordInterceptorTest.committed(context, "replying")).isEqualTo(2L);
                });
    }

    @Test
    void anAfterRecordThatThrowsNeitherHoldsTheWaitNorTheRecord() {
        runner.withBean(RecordInterceptor.class, () -> new RecordInterceptor() {
                    @Override
                    public KafkoRecord intercept(KafkoRecord record) {
                        return record;
                    }

                    @Override
                    public void afterRecord(KafkoRecord record) {
                        INTERCEPTS.incrementAndGet();
                        throw new IllegalStateException("after failed");
                    }
                })
                .withBean(Numbered.class)
                .withPropertyValues("kafko.listener.ack-mode=record")
                .run(context -> {
                    send(context, "numbered", "a", "b");
                    run(context, "numbered"); // waits until told of both

                    assertThat(INTERCEPTS.get()).isEqualTo(2);
                    assertThat(PROCESSED).containsExactly("a", "b");
                    assertThat(RecordInterceptorTest.committed(context, "numbered")).isEqualTo(2L);
                });
    }

    @Test
    void anErrorHandlerOfTheApplicationsOwnIsHandedTheRecordTheListenerGot() {
        List<String> handed = new CopyOnWriteArrayList<>();
        runner.withBean(RecordInterceptor.class, () -> record -> new Replaced(record, value(record) + "#1"))
                .withBean(KafkoErrorHandler.class, () -> (records, failure, invocation) ->
                        records.forEach(r -> handed.add(value(r))))
                .withBean(Numbered.class)
                .run(context -> {
                    send(context, "numbered", "bad");
                    run(context, "numbered");

                    // as spring-kafka's CommonErrorHandler.handleOne is given the intercepted record
                    assertThat(handed).containsExactly("bad#1");
                    assertThat(RecordInterceptorTest.committed(context, "numbered")).isEqualTo(1L);
                });
    }

    @Test
    void aRecovererAndRetryListenersOfTheApplicationsOwnAreGivenTheRecordTheListenerGot() {
        List<String> recovered = new CopyOnWriteArrayList<>();
        List<String> told = new CopyOnWriteArrayList<>();
        runner.withBean(RecordInterceptor.class, () -> record -> new Replaced(record, value(record) + "#1"))
                .withBean(KafkoErrorHandler.class, () -> {
                    DefaultErrorHandler handler = DefaultErrorHandler.withAttempts(2, 0,
                            (record, failure, invocation) -> recovered.add(value(record)));
                    handler.setRetryListeners(RecordInterceptorTest.recordingRetryListener(told));
                    return handler;
                })
                .withBean(Numbered.class)
                .run(context -> {
                    send(context, "numbered", "bad");
                    run(context, "numbered");

                    assertThat(recovered).containsExactly("bad#1");
                    assertThat(told).containsExactly("failed:bad#1:1", "failed:bad#1:2", "recovered:bad#1");
                    assertThat(RecordInterceptorTest.committed(context, "numbered")).isEqualTo(1L);
                });
    }

    @Test
    void anErrorHandlerOfTheApplicationsOwnIsHandedTheBatchTheListenerGot() {
        List<String> handed = new CopyOnWriteArrayList<>();
        runner.withBean(BatchInterceptor.class, () -> records -> records.stream()
                        .filter(r -> !value(r).equals("dropped")).map(r -> (KafkoRecord) new Replaced(r, value(r)
                                .toUpperCase())).toList())
                .withBean(KafkoErrorHandler.class, () -> (records, failure, invocation) ->
                        records.forEach(r -> handed.add(value(r))))
                .withBean(Failing.class)
                .run(context -> {
                    send(context, "failingBatch", "a", "dropped", "c");
                    run(context, "failingBatch");

                    // as spring-kafka's CommonErrorHandler.handleBatch is given the intercepted ConsumerRecords
                    assertThat(handed).containsExactly("A", "C");
                    assertThat(RecordInterceptorTest.committed(context, "failingBatch")).isEqualTo(3L);
                });
    }

    @Test
    void aFailedRecordNamedInAReplacedBatchIsRecoveredAsTheListenerGotItWithoutARetry() {
        runner.withPropertyValues("kafko.listener.retry.max-attempts=1")
                // every record copied, "x" given as "bad": the listener names the copy it got
                .withBean(BatchInterceptor.class, () -> records -> records.stream()
                        .map(r -> (KafkoRecord) new Replaced(r, value(r).equals("x") ? "bad" : value(r))).toList())
                .withBean(InOrder.class)
                .run(context -> {
                    send(context, "ordered", "a", "x", "c");
                    run(context, "ordered");

                    assertThat(TOLD).containsExactly("failed:bad:1", "recovered:bad");
                    assertThat(KafkoTestUtils.records(context, "ordered.DLT"))
                            .extracting(RecordInterceptorTest::value).containsExactly("bad");
                    assertThat(PROCESSED).containsExactly("a", "c");
                    assertThat(RecordInterceptorTest.committed(context, "ordered")).isEqualTo(3L);
                });
    }

    @Test
    void aFailedRecordNamedInAReplacedBatchIsRecoveredAsTheListenerGotItInATransaction() {
        runner.withPropertyValues("kafko.listener.retry.max-attempts=1", "kafko.template.transactional=true",
                        "kafko.template.allow-non-transactional=true")
                .withUserConfiguration(WithManager.class)
                .withBean(BatchInterceptor.class, () -> records -> records.stream()
                        .map(r -> (KafkoRecord) new Replaced(r, value(r).equals("x") ? "bad" : value(r))).toList())
                .withBean(InOrder.class)
                .run(context -> {
                    send(context, "ordered", "a", "x", "c");
                    run(context, "ordered");

                    // a, before it, ran again in a transaction of its own before the named record was recovered
                    assertThat(TOLD).containsExactly("failed:bad:1", "recovered:bad");
                    assertThat(RecordInterceptorTest.committed(context, "ordered")).isEqualTo(3L);
                });
    }

    @Test
    void aFailedRecordNamedInABatchWithCopiesIsRecoveredOnceAfterItsRetry() {
        // every record given twice: [a, a, bad, bad, c, c]; the listener names the first bad (index 2)
        runner.withBean(BatchInterceptor.class, () -> records -> records.stream()
                        .flatMap(r -> java.util.stream.Stream.of(r, r)).toList())
                .withBean(InOrder.class)
                .run(context -> {
                    send(context, "ordered", "a", "bad", "c");
                    run(context, "ordered");

                    // as spring-kafka recovers the one record a BatchListenerFailedException names
                    assertThat(TOLD).containsExactly("failed:bad:1", "failed:bad:2", "recovered:bad");
                    assertThat(KafkoTestUtils.records(context, "ordered.DLT"))
                            .extracting(RecordInterceptorTest::value).containsExactly("bad");
                    // a before it finished, c after it delivered again (twice, as the interceptor gives it)
                    assertThat(PROCESSED).containsExactly("a", "a", "c", "c");
                    assertThat(RecordInterceptorTest.committed(context, "ordered")).isEqualTo(3L);
                });
    }

    @Test
    void aFailedBatchWithARecordGivenTwiceDeadLettersItTwiceAndCommitsThePolledBatch() {
        runner.withBean(BatchInterceptor.class, () -> records -> java.util.stream.Stream.concat(
                        records.stream(), java.util.stream.Stream.of(records.get(0))).toList())
                .withBean(Failing.class)
                .run(context -> {
                    send(context, "failingBatch", "a", "b");
                    run(context, "failingBatch");

                    // the listener got [a, b, a] and failed it whole: each record it got is recovered, as
                    // spring-kafka's FallbackBatchErrorHandler recovers each record of the intercepted ConsumerRecords
                    assertThat(KafkoTestUtils.records(context, "failingBatch.DLT"))
                            .extracting(RecordInterceptorTest::value).containsExactly("a", "b", "a");
                    assertThat(TOLD).containsExactly("failed:a:1", "failed:b:1", "failed:a:1",
                            "failed:a:2", "failed:b:2", "failed:a:2", "recovered:a", "recovered:b", "recovered:a");
                    assertThat(RecordInterceptorTest.committed(context, "failingBatch")).isEqualTo(2L);
                });
    }

    static List<KafkoRecord> reversed(List<KafkoRecord> records) {
        List<KafkoRecord> reversed = new ArrayList<>(records);
        Collections.reverse(reversed);
        return reversed;
    }

    static void sendTo(ConfigurableApplicationContext context, String topic, int partition, String value) {
        @SuppressWarnings("unchecked")
        var template = (dev.kafko.spring.core.KafkoTemplate<Object, Object>) context.getBean(
                dev.kafko.spring.core.KafkoTemplate.class);
        template.send(topic, partition, null, value).join();
    }

    /** A record that names another partition and offset than the one it stands for. */
    record Elsewhere(KafkoRecord from, int partition, long offset) implements KafkoRecord {
        @Override
        public String topic() {
            return from.topic();
        }

        @Override
        public long timestamp() {
            return from.timestamp();
        }

        @Override
        public byte @Nullable [] key() {
            return from.key();
        }

        @Override
        public byte @Nullable [] value() {
            return from.value();
        }

        @Override
        public dev.kafko.Headers headers() {
            return from.headers();
        }
    }

    static class Replying {
        @KafkoListener(id = "replying", topics = "replying", groupId = "replying", errorHandler = "fallback",
                autoStartup = "false")
        @SendTo("replies")
        String on(String value) {
            if (value.equals("BAD")) {
                throw new IllegalStateException("boom");
            }
            return "reply:" + value;
        }
    }

    static class Numbered {
        @KafkoListener(id = "numbered", topics = "numbered", groupId = "numbered", autoStartup = "false")
        void on(String value) {
            if (value.startsWith("bad")) {
                throw new IllegalStateException("boom");
            }
            PROCESSED.add(value);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class WithManager {
        @Bean
        KafkoTransactionManager kafkoTransactionManager(LogBackend backend) {
            return new KafkoTransactionManager(backend);
        }
    }

    /** Fails every batch as a whole. */
    static class Failing {
        @KafkoListener(id = "failingBatch", topics = "failingBatch", groupId = "failingBatch", batch = "true",
                autoStartup = "false")
        void on(List<String> values) {
            throw new IllegalStateException("boom");
        }
    }

    /** Processes the batch in the order it got it; fails on "bad", naming it by its index. */
    static class InOrder {
        @KafkoListener(id = "ordered", topics = "ordered", groupId = "ordered", batch = "true",
                autoStartup = "false")
        void on(List<String> values) {
            for (int i = 0; i < values.size(); i++) {
                if (values.get(i).equals("bad")) {
                    throw new BatchListenerFailedException("cannot take it", new IllegalStateException("bad"), i);
                }
                PROCESSED.add(values.get(i));
            }
        }
    }

    /** Processes the batch in the order it got it; nacks a "nack" record the first time it sees it. */
    static class Nacking {
        private boolean nacked;

        @KafkoListener(id = "nacking", topics = "nacking", groupId = "nacking", batch = "true", ackMode = "MANUAL",
                autoStartup = "false")
        void on(List<String> values, Acknowledgment ack) {
            for (int i = 0; i < values.size(); i++) {
                if (values.get(i).equals("nack") && !nacked) {
                    nacked = true;
                    ack.nack(i, Duration.ofMillis(1));
                    return;
                }
                PROCESSED.add(values.get(i));
            }
            ack.acknowledge();
        }
    }

    /** Processes the first record of the batch it got and acknowledges it alone; never the others. */
    static class AcknowledgingFirst {
        @KafkoListener(id = "acking", topics = "acking", groupId = "acking", batch = "true",
                ackMode = "MANUAL_IMMEDIATE", autoStartup = "false")
        void on(List<String> values, Acknowledgment ack) {
            PROCESSED.add(values.get(0));
            ack.acknowledge(0);
        }
    }
}
