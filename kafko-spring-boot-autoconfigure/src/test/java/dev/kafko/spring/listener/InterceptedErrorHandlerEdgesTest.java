package dev.kafko.spring.listener;

import static dev.kafko.spring.listener.RecordInterceptorTest.run;
import static dev.kafko.spring.listener.RecordInterceptorTest.send;
import static dev.kafko.spring.listener.RecordInterceptorTest.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.BackOff;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.annotation.RetryableTopic;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.event.ConcurrentContainerStoppedEvent;
import dev.kafko.spring.listener.InterceptedRecoveryEdgesTest.Elsewhere;
import dev.kafko.spring.listener.InterceptedRecoveryEdgesTest.WithManager;
import dev.kafko.spring.listener.RecordInterceptorTest.Replaced;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationListener;
import org.springframework.messaging.handler.annotation.Header;

/**
 * What an error handler is handed, and says, when a container interceptor gave the listener other records than those
 * polled (B301): the stopping handler's report of what is not committed, the record a batch listener names at a retry
 * in a transaction, and a failure after one that named a record.
 */
@ExtendWith(OutputCaptureExtension.class)
class InterceptedErrorHandlerEdgesTest {

    static final List<String> TOLD = new CopyOnWriteArrayList<>();
    static final List<String> PROCESSED = new CopyOnWriteArrayList<>();
    static final AtomicInteger INTERCEPTS = new AtomicInteger();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(RetryListener.class, () -> RecordInterceptorTest.recordingRetryListener(TOLD))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.retry.max-attempts=2",
                    "kafko.listener.dead-letter.enabled=true");

    @BeforeEach
    void reset() {
        TOLD.clear();
        PROCESSED.clear();
        INTERCEPTS.set(0);
    }

    @Test
    void theStoppingHandlerReportsThePolledRecordAReplacementStandsFor(CapturedOutput output) throws Exception {
        CountDownLatch stopped = new CountDownLatch(1);
        runner.withPropertyValues("kafko.topics.failing.partitions=2")
                .withBean(RecordInterceptor.class, () -> record -> new Elsewhere(record, 1, 42))
                .withBean(KafkoErrorHandler.class, ContainerStoppingErrorHandler::new)
                .withBean("stopped", ApplicationListener.class,
                        () -> (ApplicationListener<ConcurrentContainerStoppedEvent>) e -> stopped.countDown())
                .withBean(RecordInterceptorTest.Failing.class)
                .run(context -> {
                    InterceptedRecoveryEdgesTest.sendTo(context, "failing", 0, "bad");
                    RecordInterceptorTest.container(context, "failing").start();

                    assertThat(stopped.await(20, TimeUnit.SECONDS)).as("the container stopped").isTrue();
                    // what is not committed, and comes again, is the polled record: not the partition and offset its
                    // replacement names
                    assertThat(output).contains("Listener 'failing' failed on 1 record(s) from failing-0 at offset 0;"
                            + " stopping its container");
                });
    }

    @Test
    void theStoppingHandlerReportsThePolledBatchWhenItsInterceptorDroppedARecord(CapturedOutput output)
            throws Exception {
        CountDownLatch stopped = new CountDownLatch(1);
        runner.withBean(BatchInterceptor.class, () -> records -> records.subList(1, records.size()))
                .withBean(KafkoErrorHandler.class, ContainerStoppingErrorHandler::new)
                .withBean("stopped", ApplicationListener.class,
                        () -> (ApplicationListener<ConcurrentContainerStoppedEvent>) e -> stopped.countDown())
                .withBean(InterceptedRecoveryEdgesTest.Failing.class)
                .run(context -> {
                    send(context, "failingBatch", "a", "b", "c");
                    RecordInterceptorTest.container(context, "failingBatch").start();

                    assertThat(stopped.await(20, TimeUnit.SECONDS)).as("the container stopped").isTrue();
                    // the listener got b and c, but a is not committed either: it comes again at the next start
                    assertThat(output).contains("Listener 'failingBatch' failed on 3 record(s) from failingBatch-0"
                            + " at offset 0; stopping its container");
                    assertThat(RecordInterceptorTest.committed(context, "failingBatch")).isNull();
                });
    }

    @Test
    void aRecordNamedAtARetryInATransactionIsRecoveredAsThatRetryGotIt() {
        runner.withPropertyValues("kafko.template.transactional=true", "kafko.template.allow-non-transactional=true")
                .withUserConfiguration(WithManager.class)
                .withBean(BatchInterceptor.class, () -> records -> {
                    int n = INTERCEPTS.incrementAndGet();
                    return records.stream().map(r -> (KafkoRecord) new Replaced(r, value(r) + "#" + n)).toList();
                })
                .withBean(Naming.class)
                .run(context -> {
                    send(context, "naming", "a", "bad", "c");
                    run(context, "naming");

                    // intercepts: 1 the batch, 2 a again in its own transaction, 3 bad's retry; then c's batch (4)
                    assertThat(TOLD).containsExactly("failed:bad#1:1", "failed:bad#3:2", "recovered:bad#3");
                    assertThat(KafkoTestUtils.records(context, "naming.DLT"))
                            .extracting(RecordInterceptorTest::value).containsExactly("bad#3");
                    assertThat(PROCESSED).containsExactly("a#1", "a#2", "c#4");
                    assertThat(RecordInterceptorTest.committed(context, "naming")).isEqualTo(3L);
                });
    }

    @Test
    void aBatchThatFailsWholeAfterOneThatNamedARecordIsHandedAsItsListenerGotIt() {
        List<String> handed = new CopyOnWriteArrayList<>();
        runner.withBean(BatchInterceptor.class, () -> records -> records.stream()
                        .map(r -> (KafkoRecord) new Replaced(r, value(r).toUpperCase())).toList())
                .withBean(KafkoErrorHandler.class, () -> (records, failure, invocation) ->
                        records.forEach(r -> handed.add(value(r))))
                .withBean(Naming.class)
                .run(context -> {
                    send(context, "naming", "a", "bad");
                    run(context, "naming");
                    assertThat(handed).containsExactly("BAD");

                    // the next batch, polled whole once the container starts again, fails without naming a record
                    RecordInterceptorTest.container(context, "naming").stop();
                    send(context, "naming", "whole", "d");
                    run(context, "naming");
                    assertThat(handed).containsExactly("BAD", "WHOLE", "D");
                    assertThat(RecordInterceptorTest.committed(context, "naming")).isEqualTo(4L);
                });
    }

    @Test
    void aRetryableTopicForwardsTheRecordItsListenerGotAndItsRetryContainerInterceptsItAgain() {
        runner.withBean(RecordInterceptor.class, () -> record -> new Replaced(record, value(record) + "+"))
                .withBean(Forwarding.class)
                .run(context -> {
                    send(context, "forwarding", "poison");
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

                    // as spring-kafka's DeadLetterPublishingRecoverer publishes the intercepted record it is given
                    assertThat(KafkoTestUtils.records(context, "forwarding-retry"))
                            .extracting(RecordInterceptorTest::value).containsExactly("poison+");
                    assertThat(KafkoTestUtils.records(context, "forwarding-dlt"))
                            .extracting(RecordInterceptorTest::value).containsExactly("poison++");
                    assertThat(PROCESSED).containsExactly("forwarding:poison+", "forwarding-retry:poison++");
                });
    }

    static class Forwarding {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10))
        @KafkoListener(id = "forwarding", topics = "forwarding")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            PROCESSED.add(topic + ":" + value);
            throw new IllegalStateException("cannot digest " + value);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"manual", "manual_immediate", "batch", "record", "count", "count_time"})
    void aRecordNamedInAReplacedBatchIsRecoveredAsTheListenerGotItUnderEachAckMode(String ackMode) {
        runner.withPropertyValues("kafko.listener.ack-mode=" + ackMode)
                .withBean(BatchInterceptor.class, () -> records -> {
                    int n = INTERCEPTS.incrementAndGet();
                    return records.stream().map(r -> (KafkoRecord) new Replaced(r, value(r) + "#" + n)).toList();
                })
                .withUserConfiguration(ackMode.startsWith("manual") ? Acknowledging.class : Unacknowledging.class)
                .run(context -> {
                    send(context, "acknowledging", "a", "bad", "c");
                    run(context, "acknowledging");

                    assertThat(TOLD).containsExactly("failed:bad#1:1", "failed:bad#2:2", "recovered:bad#2");
                    assertThat(KafkoTestUtils.records(context, "acknowledging.DLT"))
                            .extracting(RecordInterceptorTest::value).containsExactly("bad#2");
                    assertThat(PROCESSED).containsExactly("a#1", "c#3");
                    // under count and count_time the commit may follow the wait, which counts processed records
                    await().atMost(Duration.ofSeconds(20)).until(
                            () -> Long.valueOf(3).equals(RecordInterceptorTest.committed(context, "acknowledging")));
                });
    }

    /** {@link Naming}'s, acknowledging the batch when it returns. */
    static class Acknowledging {
        @KafkoListener(id = "acknowledging", topics = "acknowledging", groupId = "acknowledging", batch = "true",
                autoStartup = "false")
        void on(List<String> values, Acknowledgment ack) {
            new Naming().on(values);
            ack.acknowledge();
        }
    }

    /** {@link Naming}'s, for the ack modes without an acknowledgment. */
    static class Unacknowledging {
        @KafkoListener(id = "acknowledging", topics = "acknowledging", groupId = "acknowledging", batch = "true",
                autoStartup = "false")
        void on(List<String> values) {
            new Naming().on(values);
        }
    }

    /** Names a record starting with "bad" by its index; fails the batch whole on one starting with "whole". */
    static class Naming {
        @KafkoListener(id = "naming", topics = "naming", groupId = "naming", batch = "true", autoStartup = "false")
        void on(List<String> values) {
            for (int i = 0; i < values.size(); i++) {
                String v = values.get(i).toLowerCase();
                if (v.startsWith("bad")) {
                    throw new BatchListenerFailedException("cannot take it", new IllegalStateException("bad"), i);
                }
                if (v.startsWith("whole")) {
                    throw new IllegalStateException("the batch");
                }
                PROCESSED.add(values.get(i));
            }
        }
    }
}
