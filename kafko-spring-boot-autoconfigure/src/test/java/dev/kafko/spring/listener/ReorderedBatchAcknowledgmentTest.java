package dev.kafko.spring.listener;

import static dev.kafko.spring.listener.RecordInterceptorTest.run;
import static dev.kafko.spring.listener.RecordInterceptorTest.send;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.listener.RecordInterceptorTest.Replaced;
import dev.kafko.spring.listener.adapter.RecordFilterStrategy;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.test.KafkoTestUtils;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * What a batch listener's acknowledgment and named failure by index finish when its batch interceptor reordered or
 * replaced records (B292, B296): every record the listener got to, and none it did not.
 */
class ReorderedBatchAcknowledgmentTest {

    static final List<String> PROCESSED = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.retry.max-attempts=2",
                    "kafko.listener.dead-letter.enabled=true");

    @BeforeEach
    void reset() {
        PROCESSED.clear();
    }

    @Test
    void acknowledgingEveryIndexOfAReversedBatchInTurnCommitsTheBatch() {
        runner.withBean(BatchInterceptor.class, () -> InterceptedRecoveryEdgesTest::reversed)
                .withBean(AcknowledgingEach.class)
                .withPropertyValues("kafko.listener.ack-mode=manual-immediate")
                .run(context -> {
                    send(context, "each", "a", "b", "c");
                    run(context, "each");

                    // the listener got [c, b, a] and acknowledged 0, 1 and 2: all three, by the last
                    assertThat(PROCESSED).containsExactly("c", "b", "a");
                    assertThat(RecordInterceptorTest.committed(context, "each")).isEqualTo(3L);
                });
    }

    @Test
    void acknowledgingTheLastIndexOfABatchWhoseFirstRecordMovedLastCommitsTheBatch() {
        runner.withBean(BatchInterceptor.class, () -> records -> {
                    List<KafkoRecord> moved = new ArrayList<>(records.subList(1, records.size()));
                    moved.add(records.get(0));
                    return moved;
                })
                .withBean(AcknowledgingLast.class)
                .run(context -> {
                    send(context, "last", "a", "b", "c");
                    run(context, "last");

                    assertThat(PROCESSED).containsExactly("b", "c", "a");
                    assertThat(RecordInterceptorTest.committed(context, "last")).isEqualTo(3L);
                });
    }

    @Test
    void aPartialAcknowledgmentBeforeAReplacedRecordCommitsWhatItNames() {
        // [a, b, c] given in its order with c replaced by a copy (same partition and offset): acknowledging index 1
        // finishes a and b
        runner.withBean(BatchInterceptor.class, () -> ReorderedBatchAcknowledgmentTest::lastReplaced)
                .withBean(AcknowledgingTwo.class)
                .run(context -> {
                    send(context, "two", "a", "b", "c");
                    run(context, "two");

                    assertThat(PROCESSED).containsExactly("a", "b");
                    assertThat(RecordInterceptorTest.committed(context, "two")).isEqualTo(2L);
                });
    }

    /** The last record replaced, so the named one comes before a replacement; or every record replaced, it too. */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aFailedRecordNamedInAnOrderKeptBatchWithReplacedRecordsIsRecoveredAlone(boolean everyRecordReplaced) {
        BatchInterceptor interceptor = everyRecordReplaced ? ReorderedBatchAcknowledgmentTest::allReplaced
                : ReorderedBatchAcknowledgmentTest::lastReplaced;
        runner.withBean(BatchInterceptor.class, () -> interceptor)
                .withBean(FailingOnBad.class)
                .run(context -> {
                    send(context, "named", "a", "bad", "c");
                    run(context, "named");

                    assertThat(KafkoTestUtils.records(context, "named.DLT"))
                            .extracting(RecordInterceptorTest::value).containsExactly("bad");
                    // a was finished before the failure, c delivered again after it: neither dead-lettered
                    assertThat(PROCESSED).containsExactly("a", "c");
                    assertThat(RecordInterceptorTest.committed(context, "named")).isEqualTo(3L);
                });
    }


    @ParameterizedTest
    @ValueSource(strings = {"record", "batch", "count", "time", "count-time"})
    void aFailedRecordNamedInAReversedBatchLosesNothingUnderEachAutomaticAckModeNorAfterARestart(String ackMode) {
        runner.withBean(BatchInterceptor.class, () -> InterceptedRecoveryEdgesTest::reversed)
                .withBean(FailingOnBad.class)
                .withPropertyValues("kafko.listener.ack-mode=" + ackMode, "kafko.listener.ack-count=100",
                        "kafko.listener.ack-time=1h")
                .run(context -> {
                    send(context, "named", "a", "b", "bad");
                    run(context, "named");
                    RecordInterceptorTest.container(context, "named").stop();

                    List<String> deadLettered = KafkoTestUtils.records(context, "named.DLT").stream()
                            .map(RecordInterceptorTest::value).toList();
                    assertThat(deadLettered).contains("bad");
                    for (String v : List.of("a", "b")) {
                        assertThat(PROCESSED.contains(v) || deadLettered.contains(v)).as(v).isTrue();
                    }
                    assertThat(RecordInterceptorTest.committed(context, "named")).isEqualTo(3L);

                    List<String> before = List.copyOf(PROCESSED);
                    send(context, "named", "z");
                    run(context, "named");
                    RecordInterceptorTest.container(context, "named").stop();
                    assertThat(PROCESSED.subList(before.size(), PROCESSED.size())).containsExactly("z");
                    assertThat(RecordInterceptorTest.committed(context, "named")).isEqualTo(4L);
                });
    }

    @ParameterizedTest
    @ValueSource(strings = {"MANUAL", "MANUAL_IMMEDIATE"})
    void acknowledgingEveryIndexOfAReversedBatchLeavesNothingToRedeliverAfterARestart(String ackMode) {
        runner.withBean(BatchInterceptor.class, () -> InterceptedRecoveryEdgesTest::reversed)
                .withBean(AcknowledgingEach.class)
                .withPropertyValues("kafko.listener.ack-mode=" + ackMode)
                .run(context -> {
                    send(context, "each", "a", "b", "c");
                    run(context, "each");
                    RecordInterceptorTest.container(context, "each").stop();
                    send(context, "each", "d");
                    run(context, "each");

                    assertThat(PROCESSED).containsExactly("c", "b", "a", "d");
                    assertThat(RecordInterceptorTest.committed(context, "each")).isEqualTo(4L);
                });
    }

    @Test
    void aFailedRecordNamedBeforeARecordOfAnotherPartitionPolledBeforeItFailsTheWholeBatch() {
        // the interceptor puts partition 1 first: the listener fails on bad (partition 1) before it gets to a and b
        runner.withPropertyValues("kafko.topics.named.partitions=2")
                .withBean(BatchInterceptor.class, () -> records -> records.stream()
                        .sorted(Comparator.comparingInt(KafkoRecord::partition).reversed()).toList())
                .withBean(FailingOnBad.class)
                .run(context -> {
                    InterceptedRecoveryEdgesTest.sendTo(context, "named", 0, "a");
                    InterceptedRecoveryEdgesTest.sendTo(context, "named", 0, "b");
                    InterceptedRecoveryEdgesTest.sendTo(context, "named", 1, "bad");
                    InterceptedRecoveryEdgesTest.sendTo(context, "named", 1, "d");
                    run(context, "named");

                    List<String> deadLettered = KafkoTestUtils.records(context, "named.DLT").stream()
                            .map(RecordInterceptorTest::value).toList();
                    assertThat(deadLettered).contains("bad");
                    for (String v : List.of("a", "b", "d")) {
                        assertThat(PROCESSED.contains(v) || deadLettered.contains(v)).as(v).isTrue();
                    }
                    Map<Integer, Long> committed = context.getBean(Kafko.class).groupInfo("named", "named")
                            .committed();
                    assertThat(committed).containsEntry(0, 2L).containsEntry(1, 2L);
                });
    }

    @Test
    void aFilteredAndReversedBatchAcknowledgedIndexByIndexCommitsEveryRecord() {
        runner.withBean("dropping", RecordFilterStrategy.class,
                        () -> record -> RecordInterceptorTest.value(record).equals("drop"))
                .withBean(BatchInterceptor.class, () -> InterceptedRecoveryEdgesTest::reversed)
                .withBean(AcknowledgingEachFiltered.class)
                .run(context -> {
                    send(context, "filtered", "a", "drop", "b", "c");
                    run(context, "filtered");

                    assertThat(PROCESSED).containsExactly("c", "b", "a");
                    assertThat(RecordInterceptorTest.committed(context, "filtered")).isEqualTo(4L);
                });
    }

    @Test
    void aNackOfAFilteredAndReversedBatchRedeliversWhatTheListenerDidNotGetTo() {
        runner.withBean("dropping", RecordFilterStrategy.class,
                        () -> record -> RecordInterceptorTest.value(record).equals("drop"))
                .withBean(BatchInterceptor.class, () -> InterceptedRecoveryEdgesTest::reversed)
                .withBean(NackingFiltered.class)
                .run(context -> {
                    send(context, "nackf", "a", "drop", "nack", "c");
                    run(context, "nackf");

                    // got [c, nack, a] and nacked index 1 after a pause: a, polled first, comes again with nack
                    assertThat(PROCESSED).contains("a", "c", "nack");
                    assertThat(PROCESSED.indexOf("a")).isGreaterThan(PROCESSED.indexOf("c"));
                    assertThat(RecordInterceptorTest.committed(context, "nackf")).isEqualTo(4L);
                });
    }

    @Test
    void aFailedRecordNamedBeforeItsOwnCopyIsRecoveredAloneAsTheListenerGotIt() {
        // [a, bad, c] given as [a, bad, bad, c]: the copy after the named record is that record itself, not one the
        // listener did not get to; a is finished, bad retried alone (given twice, so recovered twice), c delivered
        // again
        runner.withBean(BatchInterceptor.class, () -> records -> {
                    List<KafkoRecord> doubled = new ArrayList<>();
                    for (KafkoRecord r : records) {
                        doubled.add(r);
                        if (RecordInterceptorTest.value(r).equals("bad")) {
                            doubled.add(r);
                        }
                    }
                    return doubled;
                })
                .withBean(FailingOnBad.class)
                .run(context -> {
                    send(context, "named", "a", "bad", "c");
                    run(context, "named");

                    assertThat(PROCESSED).containsExactly("a", "c");
                    assertThat(KafkoTestUtils.records(context, "named.DLT"))
                            .extracting(RecordInterceptorTest::value).containsOnly("bad");
                    assertThat(RecordInterceptorTest.committed(context, "named")).isEqualTo(3L);
                });
    }

    @Test
    void aFailedRecordNamedBeforeARecordNotPolledFailsTheWholeBatch() {
        // [a, bad] given with a record of a partition not polled after bad: its place is unknown
        runner.withPropertyValues("kafko.topics.named.partitions=2")
                .withBean(BatchInterceptor.class, () -> records -> {
                    List<KafkoRecord> more = new ArrayList<>(records);
                    more.add(new InterceptedRecoveryEdgesTest.Elsewhere(records.get(0), 1, 42));
                    return more;
                })
                .withBean(FailingOnBad.class)
                .run(context -> {
                    InterceptedRecoveryEdgesTest.sendTo(context, "named", 0, "a");
                    InterceptedRecoveryEdgesTest.sendTo(context, "named", 0, "bad");
                    run(context, "named");

                    List<String> deadLettered = KafkoTestUtils.records(context, "named.DLT").stream()
                            .map(RecordInterceptorTest::value).toList();
                    assertThat(deadLettered).contains("bad");
                    assertThat(RecordInterceptorTest.committed(context, "named")).isEqualTo(2L);
                    assertThat(context.getBean(Kafko.class).groupInfo("named", "named").committed().get(1))
                            .isNull();
                });
    }

    @Test
    void acknowledgingEachIndexOfABatchWhoseEveryRecordWasReplacedCommitsTheBatch() {
        // an interceptor that decorates each record (a copy at the same partition and offset) keeps the batch's order
        runner.withBean(BatchInterceptor.class, () -> ReorderedBatchAcknowledgmentTest::allReplaced)
                .withBean(AcknowledgingEach.class)
                .withPropertyValues("kafko.listener.ack-mode=manual-immediate")
                .run(context -> {
                    send(context, "each", "a", "b", "c");
                    run(context, "each");

                    assertThat(PROCESSED).containsExactly("a", "b", "c");
                    assertThat(RecordInterceptorTest.committed(context, "each")).isEqualTo(3L);
                });
    }


    static List<KafkoRecord> allReplaced(List<KafkoRecord> records) {
        List<KafkoRecord> given = new ArrayList<>(records.size());
        for (KafkoRecord r : records) {
            given.add(new Replaced(r, RecordInterceptorTest.value(r)));
        }
        return given;
    }

    static List<KafkoRecord> lastReplaced(List<KafkoRecord> records) {
        List<KafkoRecord> given = new ArrayList<>(records);
        KafkoRecord last = given.get(given.size() - 1);
        given.set(given.size() - 1, new Replaced(last, RecordInterceptorTest.value(last)));
        return given;
    }

    static class AcknowledgingEach {
        @KafkoListener(id = "each", topics = "each", groupId = "each", batch = "true", autoStartup = "false")
        void on(List<String> values, Acknowledgment ack) {
            for (int i = 0; i < values.size(); i++) {
                PROCESSED.add(values.get(i));
                ack.acknowledge(i);
            }
        }
    }

    static class AcknowledgingLast {
        @KafkoListener(id = "last", topics = "last", groupId = "last", batch = "true",
                ackMode = "MANUAL_IMMEDIATE", autoStartup = "false")
        void on(List<String> values, Acknowledgment ack) {
            PROCESSED.addAll(values);
            ack.acknowledge(values.size() - 1);
        }
    }

    /** Processes the first two records and acknowledges them; never the third. */
    static class AcknowledgingTwo {
        @KafkoListener(id = "two", topics = "two", groupId = "two", batch = "true",
                ackMode = "MANUAL_IMMEDIATE", autoStartup = "false")
        void on(List<String> values, Acknowledgment ack) {
            PROCESSED.addAll(values.subList(0, 2));
            ack.acknowledge(1);
        }
    }

    /** Processes the batch in the order it got it; fails on "bad", naming it by its index. */
    static class FailingOnBad {
        @KafkoListener(id = "named", topics = "named", groupId = "named", batch = "true", autoStartup = "false")
        void on(List<String> values) {
            for (int i = 0; i < values.size(); i++) {
                if (values.get(i).equals("bad")) {
                    throw new BatchListenerFailedException("cannot take it", new IllegalStateException("bad"), i);
                }
                PROCESSED.add(values.get(i));
            }
        }
    }
    static class AcknowledgingEachFiltered {
        @KafkoListener(id = "filtered", topics = "filtered", groupId = "filtered", batch = "true", filter = "dropping",
                ackMode = "MANUAL_IMMEDIATE", autoStartup = "false")
        void on(List<String> values, Acknowledgment ack) {
            for (int i = 0; i < values.size(); i++) {
                PROCESSED.add(values.get(i));
                ack.acknowledge(i);
            }
        }
    }

    /** Nacks a "nack" record the first time it sees it, with a pause; acknowledges the batch otherwise. */
    static class NackingFiltered {
        private boolean nacked;

        @KafkoListener(id = "nackf", topics = "nackf", groupId = "nackf", batch = "true", filter = "dropping",
                ackMode = "MANUAL", autoStartup = "false")
        void on(List<String> values, Acknowledgment ack) {
            for (int i = 0; i < values.size(); i++) {
                if (values.get(i).equals("nack") && !nacked) {
                    nacked = true;
                    ack.nack(i, java.time.Duration.ofMillis(50));
                    return;
                }
                PROCESSED.add(values.get(i));
            }
            ack.acknowledge();
        }
    }
}
