package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.kafko.Compression;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.spring.LogCapture;
import dev.kafko.spring.annotation.BackOff;
import dev.kafko.spring.annotation.DltHandler;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.annotation.RetryableTopic;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.Header;

/**
 * Claims of the README's section on errors, retries and dead letters that no other test checks, each test quoting the
 * sentence it checks.
 */
@ExtendWith(OutputCaptureExtension.class)
class ReadmeClaimsErrorsTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final List<String> SEEN = new CopyOnWriteArrayList<>();

    @RegisterExtension
    final LogCapture recovererLog = new LogCapture(DeadLetterPublishingRecoverer.class);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    /** Three attempts, then the dead-letter topic; a {@link RetryListener} bean hears every failed attempt. */
    private final ApplicationContextRunner retrying = runner.withPropertyValues("kafko.listener.retry.max-attempts=3",
            "kafko.listener.dead-letter.enabled=true").withBean(Attempts.class);

    @BeforeEach
    void reset() {
        SEEN.clear();
    }

    /**
     * "sends the log refuses for good ({@code RecordTooLargeException}, {@code InvalidRecordException},
     * {@code InvalidNameException}, {@code InvalidPartitionException}) ... skip the retries".
     */
    @Test
    void sendsTheLogRefusesForGoodSkipTheRetries() {
        retrying.withPropertyValues("kafko.topics[tiny].max-record-size=64B",
                "kafko.topics[compacted].cleanup-policy=compact").withBean(RefusedSender.class).run(context -> {
                    for (String kind : List.of("large", "keyless", "name", "partition")) {
                        template(context).send("refused-sends", kind).join();
                    }
                    List<KafkoRecord> dead = KafkoTestUtils.records(context, "refused-sends.DLT", 4, WAIT);
                    assertThat(values(dead)).containsExactly("large", "keyless", "name", "partition");
                    KafkoTestUtils.waitForListeners(context, WAIT);
                    assertThat(SEEN).as("one attempt each").containsExactly("attempt large", "attempt keyless",
                            "attempt name", "attempt partition");
                });
    }

    /**
     * "With dead letters enabled, each listener topic's {@code <topic>.DLT} is created when its container starts, also
     * for a listener on a dead-letter topic ({@code orders.DLT.DLT})".
     */
    @Test
    void aListenerOfADeadLetterTopicGetsItsOwnDeadLetterTopicAtItsStart() {
        retrying.withBean(DeadLetterReader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            await().atMost(WAIT).until(() -> kafko.topics().contains("orders.DLT.DLT"));
            assertThat(SEEN).isEmpty();
        });
    }

    /**
     * "the class of its cause ({@code kafko_dlt-exception-cause-fqcn}, only when it has one)" and "A record
     * dead-lettered again ... gains a second set of {@code kafko_dlt-original-*} headers; {@code @Header} reads the
     * last, the newest."
     */
    @Test
    void anExceptionWithoutACauseHasNoCauseHeaderAndHeaderReadsTheNewestOriginalHeaders() {
        retrying.withBean(DeadLetterReplayer.class).run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            template.send("replayed", "first").join();
            KafkoRecord dead = KafkoTestUtils.records(context, "replayed.DLT", 1, WAIT).get(0);
            assertThat(dead.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_FQCN)).asString(StandardCharsets.UTF_8)
                    .isEqualTo(IllegalStateException.class.getName());
            assertThat(dead.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_CAUSE_FQCN)).isNull();
            // the dead letter replayed to its topic by its reader, failed again and dead-lettered again
            KafkoTestUtils.records(context, "replayed.DLT", 2, WAIT);
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).containsExactly("attempt first", "attempt first", "attempt first",
                    "dead letter of replayed@0", "attempt first", "attempt first", "attempt first",
                    "dead letter of replayed@1");
            KafkoRecord again = KafkoTestUtils.records(context, "replayed.DLT").get(1);
            assertThat(again.headers().headers(KafkoHeaders.DLT_ORIGINAL_OFFSET))
                    .extracting(h -> new String(h.value(), StandardCharsets.UTF_8))
                    .containsExactly("0", "1");
        });
    }

    /** "A resolver that returns {@code null} publishes nothing: the record is skipped with a warning and committed." */
    @Test
    void aResolverThatChoosesNoDestinationSkipsTheRecordWithAWarningAndCommitsIt() {
        runner.withUserConfiguration(NoDestination.class).withBean(AlwaysFails.class).run(context -> {
            template(context).send("no-destination", "lost").join();
            template(context).send("no-destination", "lost too").join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).containsExactly("fail lost", "fail lost too");
            assertThat(committed(context, "no-destination", "no-destination")).isEqualTo(2);
            assertThat(context.getBean(Kafko.class).topics()).doesNotContain("no-destination.DLT");
            assertThat(messages(recovererLog, Level.WARN)).hasSize(2)
                    .allSatisfy(m -> assertThat(m).contains("chose no destination"));
        });
    }

    /**
     * "one ... without a key while its dead-letter topic is compacted (a {@code kafko.defaults.cleanup-policy} of
     * {@code compact} makes topics created on first use so), is skipped with an error log naming its offset (it stays
     * in its own topic)".
     */
    @Test
    void aKeylessDeadLetterOfACompactedDeadLetterTopicIsSkippedWithAnErrorNamingItsOffset() {
        runner.withPropertyValues("kafko.listener.retry.max-attempts=1", "kafko.listener.dead-letter.enabled=true",
                "kafko.defaults.cleanup-policy=compact", "kafko.topics[plain].cleanup-policy=delete")
                .withBean(PlainFails.class).run(context -> {
                    template(context).send("plain", "keyless").join();
                    KafkoTestUtils.waitForListeners(context, WAIT);
                    assertThat(SEEN).containsExactly("fail keyless");
                    assertThat(committed(context, "plain", "plain")).isEqualTo(1);
                    assertThat(KafkoTestUtils.records(context, "plain.DLT")).isEmpty();
                    assertThat(messages(recovererLog, Level.ERROR)).singleElement().asString()
                            .contains("plain-0@0", "stays in plain at offset 0");
                    assertThat(KafkoTestUtils.records(context, "plain")).hasSize(1);
                });
    }

    /**
     * "A dead-letter topic kafko creates has the original's partition count and the settings of
     * {@code kafko.defaults.*}, not the original's compression or retention".
     */
    @Test
    void aDeadLetterTopicKafkoCreatesHasTheOriginalsPartitionsAndTheDefaultsSettings() {
        retrying.withPropertyValues("kafko.topics[zipped].partitions=3", "kafko.topics[zipped].compression=lz4",
                "kafko.topics[zipped].retention=1h", "kafko.defaults.retention=2d").withBean(ZippedReader.class)
                .run(context -> {
                    Kafko kafko = context.getBean(Kafko.class);
                    await().atMost(WAIT).until(() -> kafko.topics().contains("zipped.DLT"));
                    TopicConfig original = kafko.topic("zipped").map(Topic::config).orElseThrow();
                    assertThat(original.compression()).isEqualTo(Compression.LZ4);
                    Topic dlt = kafko.topic("zipped.DLT").orElseThrow();
                    assertThat(dlt.partitionCount()).isEqualTo(3);
                    assertThat(dlt.config().compression()).isEqualTo(Compression.NONE);
                    assertThat(dlt.config().retention()).isEqualTo(Duration.ofDays(2));
                });
    }

    /**
     * "A batch listener that throws has its whole batch ... retried, and after the retries each record of that batch is
     * recovered with the batch's exception in its headers, also the records that did nothing wrong".
     */
    @Test
    void aThrowingBatchListenersBatchIsRetriedWholeThenEachRecordDeadLetteredWithTheBatchsException() {
        retrying.withBean(FailingBatch.class).run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            for (String v : List.of("a", "b", "c")) {
                template.send("failing-batch", v).join();
            }
            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("failingBatch").start();
            List<KafkoRecord> dead = KafkoTestUtils.records(context, "failing-batch.DLT", 3, WAIT);
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).containsExactly("batch [a, b, c]", "attempt a", "attempt b", "attempt c",
                    "batch [a, b, c]", "attempt a", "attempt b", "attempt c",
                    "batch [a, b, c]", "attempt a", "attempt b", "attempt c");
            assertThat(values(dead)).containsExactly("a", "b", "c");
            assertThat(dead).allSatisfy(r -> assertThat(r.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_MESSAGE))
                    .asString(StandardCharsets.UTF_8).isEqualTo("b is bad"));
        });
    }

    /**
     * "A record of a {@code List<T>} batch whose payload cannot be converted to {@code T} reaches the method as a
     * {@code null} element" and "A listener that ignores the header processes the others and commits the batch, that
     * record with it".
     */
    @Test
    void aBatchRecordThatCannotBeConvertedIsANullElementAndTheBatchIsCommittedWhenTheListenerIgnoresIt() {
        retrying.withBean(IntBatch.class).run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            template.send("int-batch", 1).join();
            template.send("int-batch", "not a number").join();
            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("intBatch").start();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).as("one call, no failed attempt").containsExactly("batch [1, null]");
            assertThat(KafkoTestUtils.records(context, "int-batch.DLT")).isEmpty();
            assertThat(committed(context, "int-batch", "intBatch")).isEqualTo(2);
        });
    }

    /**
     * "Records that the error handler recovers (dead-lettered or logged) count as processed: they are committed in
     * every ack mode, the manual ones included".
     */
    @Test
    void recordsTheErrorHandlerRecoversAreCommittedUnderAManualAckMode() {
        retrying.withPropertyValues("kafko.listener.ack-mode=manual").withBean(ManualFails.class).run(context -> {
            template(context).send("manual-fails", "bad").join();
            template(context).send("manual-fails", "good").join();
            KafkoTestUtils.records(context, "manual-fails.DLT", 1, WAIT);
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(committed(context, "manual-fails", "manualFails")).isEqualTo(2);
        });
        runner.withPropertyValues("kafko.listener.ack-mode=manual_immediate", "kafko.listener.retry.max-attempts=2")
                .withBean(ManualFails.class).run(context -> {
                    template(context).send("manual-fails", "bad").join(); // logged and skipped
                    KafkoTestUtils.waitForListeners(context, WAIT);
                    assertThat(committed(context, "manual-fails", "manualFails")).isEqualTo(1);
                });
    }

    /**
     * "These containers make no blocking retries: each attempt is one delivery, so {@code kafko.listener.retry.*} and a
     * {@code KafkoErrorHandler} bean do not apply to them, nor are {@code RetryListener} beans told of their failures
     * (count the attempts in the method, from {@code @Header(name = KafkoHeaders.RETRY_ATTEMPTS, required = false)}:
     * absent at the first, then 2, 3, ...)" and "both decimal text (read them as {@code Integer} and {@code Long})".
     */
    @Test
    void aRetryTopicListenerCountsItsAttemptsFromTheHeaderAndNoBlockingRetryApplies() {
        retrying.withPropertyValues("kafko.listener.retry.max-attempts=5").withBean(RetriedAcrossTopics.class)
                .run(context -> {
                    template(context).send("across", "x").join();
                    KafkoTestUtils.waitForListeners(context, WAIT);
                    await().atMost(WAIT).until(() -> SEEN.contains("dead x after 3"));
                    assertThat(SEEN).containsExactly("attempt null (no back-off)", "attempt 2 (back-off)",
                            "attempt 3 (back-off)", "dead x after 3");
                });
    }

    /**
     * The README's {@code @DltHandler} sample, which reads the exception's message: an exception without a message
     * gives its dead letter no message header ("its message when it has one"), and the handler still gets it.
     */
    @Test
    void theReadmesDltHandlerGetsTheDeadLetterOfAnExceptionWithoutAMessage() {
        runner.withBean(Messageless.class).run(context -> {
            template(context).send("messageless", "with").join();
            template(context).send("messageless", "without").join();
            await().atMost(WAIT).until(() -> SEEN.size() == 4);
            assertThat(SEEN).containsExactlyInAnyOrder("with", "without", "dead with (refused with)",
                    "dead without (null)");
        });
    }

    /**
     * "The retry and dead-letter containers are containers of their own in the registry: {@code autoStartup = "false"}
     * holds them all back, but stopping or pausing the listener's own container ({@code orders}) leaves them running".
     */
    @Test
    void autoStartupFalseHoldsBackTheRetryContainersAndStoppingTheListenersOwnLeavesThemRunning() {
        runner.withBean(HeldBack.class).withBean(Retried.class).run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            assertThat(registry.getListenerContainerIds()).contains("held", "held-retry", "held-dlt", "retried",
                    "retried-retry", "retried-dlt");
            for (String id : List.of("held", "held-retry", "held-dlt")) {
                assertThat(registry.getListenerContainer(id).isRunning()).as(id).isFalse();
            }
            registry.getListenerContainer("retried").stop();
            for (String id : List.of("retried-retry", "retried-dlt")) {
                assertThat(registry.getListenerContainer(id).isRunning()).as(id).isTrue();
            }
        });
    }

    /**
     * "Two {@code @RetryableTopic} listeners of one topic in different groups share its retry and dead-letter topics
     * unless their suffixes differ ...: the start warns of such a pair, naming both listeners and the shared topic."
     */
    @Test
    void twoRetryableTopicListenersOfATopicInOtherGroupsAreWarnedThatTheyShareItsRetryTopics(CapturedOutput output) {
        runner.withBean(SharedRetries.class).run(context -> assertThat(context).hasNotFailed());
        // the two in the order their methods were found
        assertThat(output.getAll()).contains("'billing' (group 'billing')", "'shipping' (group 'shipping')",
                "of topic 'shared-orders' share the retry topic 'shared-orders-retry'");
        int before = output.getAll().length();
        runner.withBean(OwnSuffixes.class).run(context -> assertThat(context).hasNotFailed());
        assertThat(output.getAll().substring(before)).doesNotContain("share the retry topic");
    }

    /**
     * "A {@code RetryListener} is told of each failed delivery ({@code failedDelivery(record, failure, attempt)}, attempt
     * 1 for the first), and of the recovery that followed ..., on the member's polling thread".
     */
    @Test
    void aRetryListenerIsToldOfEachAttemptAndTheRecoveryOnTheMembersPollingThread() {
        runner.withPropertyValues("kafko.listener.retry.max-attempts=2").withBean(ThreadNames.class)
                .withBean(ThreadedFailure.class).run(context -> {
                    template(context).send("threaded", "x").join();
                    KafkoTestUtils.waitForListeners(context, WAIT);
                    String member = "threaded-0";
                    assertThat(SEEN).containsExactly("listener on " + member, "attempt 1 on " + member,
                            "listener on " + member, "attempt 2 on " + member, "recovered on " + member);
                });
    }

    @SuppressWarnings("unchecked")
    static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static long committed(ApplicationContext context, String topic, String group) {
        return context.getBean(Kafko.class).groupInfo(topic, group).committed().getOrDefault(0, 0L);
    }

    static List<String> values(List<KafkoRecord> records) {
        List<String> out = new ArrayList<>();
        for (KafkoRecord r : records) {
            out.add(r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8));
        }
        return out;
    }

    static List<String> messages(LogCapture log, Level level) {
        return log.events().stream().filter(e -> e.getLevel() == level).map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    /** Hears each failed attempt of a record. */
    static class Attempts implements RetryListener {
        @Override
        public void failedDelivery(KafkoRecord record, Exception failure, int deliveryAttempt) {
            SEEN.add("attempt " + (record.value() == null ? null : new String(record.value(), StandardCharsets.UTF_8)));
        }
    }

    static class ThreadNames implements RetryListener {
        @Override
        public void failedDelivery(KafkoRecord record, Exception failure, int deliveryAttempt) {
            SEEN.add("attempt " + deliveryAttempt + " on " + Thread.currentThread().getName());
        }

        @Override
        public void recovered(KafkoRecord record, Exception failure) {
            SEEN.add("recovered on " + Thread.currentThread().getName());
        }
    }

    static class ThreadedFailure {
        @KafkoListener(id = "threaded", topics = "threaded")
        void on(String value) {
            SEEN.add("listener on " + Thread.currentThread().getName());
            throw new IllegalStateException("fails");
        }
    }

    static class RefusedSender {
        private final KafkoTemplate<Object, Object> template;

        RefusedSender(KafkoTemplate<Object, Object> template) {
            this.template = template;
        }

        @KafkoListener(id = "refusedSender", topics = "refused-sends")
        void on(String kind) {
            switch (kind) {
                case "large" -> template.send("tiny", "x".repeat(1_000)).join();
                case "keyless" -> template.send("compacted", "no key").join();
                case "name" -> template.send("not a topic name!", "x").join();
                case "partition" -> template.send("refused-sends", 7, null, "x").join();
                default -> throw new IllegalArgumentException(kind);
            }
        }
    }

    static class DeadLetterReader {
        @KafkoListener(id = "deadLetterReader", topics = "orders.DLT")
        void on(String value) {
            SEEN.add(value);
        }
    }

    static class DeadLetterReplayer {
        private final Kafko kafko;

        DeadLetterReplayer(Kafko kafko) {
            this.kafko = kafko;
        }

        @KafkoListener(id = "replayed", topics = "replayed")
        void on(String value) {
            throw new IllegalStateException("no cause for " + value);
        }

        @KafkoListener(id = "replayer", topics = "replayed.DLT")
        void dead(KafkoRecord record, @Header(KafkoHeaders.DLT_ORIGINAL_TOPIC) String topic,
                  @Header(KafkoHeaders.DLT_ORIGINAL_OFFSET) long offset) {
            SEEN.add("dead letter of " + topic + "@" + offset);
            if (offset == 0) { // replayed to its topic with its headers, as a dead-letter router does
                kafko.producer("replayed").send(OutgoingRecord.of(record.key(), record.value(), record.headers()))
                        .join();
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class NoDestination {
        @Bean
        KafkoErrorHandler errorHandler(LogBackend backend) {
            return DefaultErrorHandler.withAttempts(1, 0, new DeadLetterPublishingRecoverer(backend,
                    (record, failure) -> null));
        }
    }

    static class AlwaysFails {
        @KafkoListener(id = "no-destination", topics = "no-destination")
        void on(String value) {
            SEEN.add("fail " + value);
            throw new IllegalStateException("fails " + value);
        }
    }

    static class PlainFails {
        @KafkoListener(id = "plain", topics = "plain")
        void on(String value) {
            SEEN.add("fail " + value);
            throw new IllegalStateException("fails " + value);
        }
    }

    static class ZippedReader {
        @KafkoListener(id = "zipped", topics = "zipped")
        void on(String value) {
            SEEN.add(value);
        }
    }

    static class FailingBatch {
        @KafkoListener(id = "failingBatch", topics = "failing-batch", batch = "true", autoStartup = "false")
        void on(List<String> values) {
            SEEN.add("batch " + values);
            if (values.contains("b")) {
                throw new IllegalStateException("b is bad");
            }
        }
    }

    static class IntBatch {
        @KafkoListener(id = "intBatch", topics = "int-batch", batch = "true", autoStartup = "false")
        void on(List<Integer> values) {
            SEEN.add("batch " + values);
        }
    }

    static class ManualFails {
        @KafkoListener(id = "manualFails", topics = "manual-fails")
        void on(String value, Acknowledgment ack) {
            if (value.equals("bad")) {
                throw new IllegalStateException("bad");
            }
            ack.acknowledge();
        }
    }

    static class RetriedAcrossTopics {
        @RetryableTopic(attempts = "3", backOff = @BackOff(delay = 10))
        @KafkoListener(id = "across", topics = "across")
        void on(String value, @Header(name = KafkoHeaders.RETRY_ATTEMPTS, required = false) @Nullable Integer attempt,
                @Header(name = KafkoHeaders.RETRY_BACKOFF_TIMESTAMP, required = false) @Nullable Long until) {
            SEEN.add("attempt " + attempt + (until == null ? " (no back-off)" : " (back-off)"));
            throw new IllegalStateException("never works");
        }

        @DltHandler
        void dead(String value, @Header(KafkoHeaders.RETRY_ATTEMPTS) Integer attempts) {
            SEEN.add("dead " + value + " after " + attempts);
        }
    }

    static class Messageless {
        @RetryableTopic(attempts = "1")
        @KafkoListener(id = "messageless", topics = "messageless")
        void on(String value) {
            SEEN.add(value);
            throw value.equals("with") ? new IllegalStateException("refused " + value) : new IllegalStateException();
        }

        @DltHandler
        void dead(String value,
                  @Header(name = KafkoHeaders.DLT_EXCEPTION_MESSAGE, required = false) @Nullable String why) {
            SEEN.add("dead " + value + " (" + why + ")");
        }
    }

    static class HeldBack {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10))
        @KafkoListener(id = "held", topics = "held", autoStartup = "false")
        void on(String value) {
        }

        @DltHandler
        void dead(String value) {
        }
    }

    static class Retried {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10))
        @KafkoListener(id = "retried", topics = "retried")
        void on(String value) {
        }

        @DltHandler
        void dead(String value) {
        }
    }

    static class SharedRetries {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10))
        @KafkoListener(id = "billing", topics = "shared-orders")
        void bill(String value) {
        }

        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10))
        @KafkoListener(id = "shipping", topics = "shared-orders")
        void ship(String value) {
        }
    }

    static class OwnSuffixes {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10))
        @KafkoListener(id = "billing", topics = "shared-orders")
        void bill(String value) {
        }

        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10), retryTopicSuffix = "-shipping-retry",
                dltTopicSuffix = "-shipping-dlt")
        @KafkoListener(id = "shipping", topics = "shared-orders")
        void ship(String value) {
        }
    }
}
