package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import dev.kafko.Kafko;
import dev.kafko.spring.LogCapture;
import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.messaging.handler.annotation.Header;

/**
 * Non-blocking retries: a failed record goes through the retry topics, each delivered no earlier than its
 * back-off, then to the dead-letter topic and the bean's {@link DltHandler}; the records behind it are not held up.
 */
class RetryableTopicTest {

    static final List<String> CALLS = new CopyOnWriteArrayList<>();
    static final List<String> DEAD = new CopyOnWriteArrayList<>();
    static final Map<String, AtomicInteger> ATTEMPTS = new ConcurrentHashMap<>();
    static final List<String> EARLY = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.orders.partitions=3",
                    "kafko.topics.payments.partitions=2");

    @RegisterExtension
    final LogCapture containersLog = new LogCapture(RetryableTopicContainers.class);

    @BeforeEach
    void reset() {
        CALLS.clear();
        DEAD.clear();
        ATTEMPTS.clear();
        EARLY.clear();
    }

    @Test
    void aFailedRecordGoesThroughTheRetryTopicThenTheDeadLetterTopicWithoutHoldingUpTheOthers() {
        runner.withBean(Orders.class).run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            template.send("orders", 1, "k1", "poison").join();
            template.send("orders", 1, "k2", "flaky").join();
            template.send("orders", 1, "k3", "ok").join();
            template.send("orders", 1, "k4", "bad").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

            // the listener topic's container went on past each failure: one call each, in order
            assertThat(CALLS).filteredOn(c -> c.startsWith("orders:")).containsExactly("orders:poison@1",
                    "orders:flaky@1", "orders:ok@1", "orders:bad@1");
            // a fixed back-off: one retry topic, read twice for poison, flaky succeeding at its third attempt
            assertThat(CALLS).filteredOn(c -> c.startsWith("orders-retry:")).containsExactlyInAnyOrder(
                    "orders-retry:poison@2", "orders-retry:flaky@2", "orders-retry:poison@3", "orders-retry:flaky@3");
            assertThat(EARLY).isEmpty(); // no retry delivered before its back-off ended
            // poison after its three attempts, bad at once (excluded)
            assertThat(DEAD).containsExactlyInAnyOrder("poison from orders-1@0 after 3: cannot digest poison",
                    "bad from orders-1@3 after 1: bad input");
            Kafko kafko = context.getBean(Kafko.class);
            assertThat(kafko.topic("orders-retry").orElseThrow().partitionCount()).isEqualTo(3);
            assertThat(kafko.topic("orders-dlt").orElseThrow().partitionCount()).isEqualTo(3);
            assertThat(kafko.topic("orders.DLT")).isEmpty();
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            assertThat(registry.getListenerContainerIds()).contains("orders", "orders-retry", "orders-dlt");
        });
    }

    @Test
    void aMultipliedBackOffHasATopicPerBackOffAndADeadLetterTopicLoggedWithoutAHandler() {
        runner.withBean(Payments.class).run(context -> {
            template(context).send("payments", 0, "k", "never").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

            // 10, 20, then 40 capped at 20 ms: the last back-off reuses the second topic
            assertThat(CALLS).containsExactly("payments:never@1", "payments-retry-10:never@2",
                    "payments-retry-20:never@3", "payments-retry-20:never@4");
            assertThat(EARLY).isEmpty();
            List<KafkoRecord> dead = KafkoTestUtils.records(context, "payments-dlt");
            assertThat(dead).hasSize(1);
            assertThat(header(dead.get(0), KafkoHeaders.RETRY_ATTEMPTS)).isEqualTo("4");
            assertThat(header(dead.get(0), KafkoHeaders.DLT_ORIGINAL_TOPIC)).isEqualTo("payments");
            assertThat(dead.get(0).headers().headers(KafkoHeaders.DLT_ORIGINAL_TOPIC)).hasSize(1);
            assertThat(dead.get(0).partition()).isZero();
        });
    }

    @Test
    void aStopDuringABackOffEndsTheWaitAndTheRecordIsStillToBeRetriedAfterARestart(@TempDir Path dir) {
        ApplicationContextRunner onDisk = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.topics.slow.partitions=1")
                .withBean(Slow.class);
        onDisk.run(context -> {
            template(context).send("slow", 0, "k", "later").join();
            Kafko kafko = context.getBean(Kafko.class);
            // forwarded to the retry topic, where it waits an hour
            while (kafko.topic("slow-retry").isEmpty() || kafko.topic("slow-retry").get().partition(0).endOffset() < 1) {
                Thread.sleep(5);
            }
        }); // the close ends the wait: without it, the retry member would hold the close for its shutdown timeout
        assertThat(CALLS).containsExactly("slow:later@1");
        try (Kafko kafko = Kafko.open(dir)) {
            assertThat(kafko.groupInfo("slow-retry", "slow").committed()).doesNotContainEntry(0, 1L);
            assertThat(kafko.groupInfo("slow", "slow").committed()).containsEntry(0, 1L);
        }
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().startsWith("slow-retry"));
    }

    @Test
    void recordsLeftInARetryTopicThatChangedSettingsNoLongerReadAreNamedAtTheNextStart(@TempDir Path dir) {
        ApplicationContextRunner onDisk = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.topics.slow.partitions=1");
        onDisk.withBean(Slow.class).run(context -> {
            template(context).send("slow", 0, "k", "later").join();
            Kafko kafko = context.getBean(Kafko.class);
            // forwarded to the fixed back-off's retry topic, where it waits an hour
            while (kafko.topic("slow-retry").isEmpty() || kafko.topic("slow-retry").get().partition(0).endOffset() < 1) {
                Thread.sleep(5);
            }
        });
        assertThat(containersLog.events()).noneMatch(e -> e.getLevel() == Level.WARN);

        // restarted with a multiplied back-off: its retries read slow-retry-3600000 and slow-retry-7200000, never slow-retry
        onDisk.withBean(SlowMultiplied.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainerIds())
                    .contains("slow", "slow-retry-3600000", "slow-retry-7200000", "slow-dlt").doesNotContain("slow-retry");
        });
        assertThat(containersLog.events()).filteredOn(e -> e.getLevel() == Level.WARN).singleElement()
                .satisfies(e -> assertThat(e.getFormattedMessage()).contains("listener 'slow' of topic 'slow'",
                        "[slow-retry-3600000, slow-retry-7200000]", "not 'slow-retry' (1), which hold 1 record(s)",
                        "group 'slow'"));

        // back to the fixed back-off: slow-retry-3600000 and -7200000 hold nothing, and the record is read again
        containersLog.events().clear();
        onDisk.withBean(Slow.class).run(context -> assertThat(context).hasNotFailed());
        assertThat(containersLog.events()).noneMatch(e -> e.getLevel() == Level.WARN);
    }

    @Test
    void theRetryTopicsOfAMultipliedBackOffThatAFixedOneNoLongerReadsAreNamedWithWhatTheGroupLeftUnconsumed(
            @TempDir Path dir) {
        ApplicationContextRunner onDisk = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.topics.slow.partitions=1");
        // an earlier multiplied back-off left 3 records in slow-retry-1, of which the group consumed 1; beside it,
        // topics whose names only start as a retry topic's do
        onDisk.run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            for (String topic : List.of("slow-retry-1", "slow-retry-1", "slow-retry-1", "slow-retry-archive",
                    "slow-retry-1a", "slow-retryx1")) {
                template(context).send(topic, 0, "k", "left").join();
            }
            try (dev.kafko.Consumer consumer = kafko.groupConsumer("slow-retry-1", "slow")) {
                while (consumer.poll(Duration.ofMillis(100)).isEmpty()) {
                    // assigned once it polled
                }
                consumer.seek(0, 1);
                consumer.commit();
            }
        });

        // now a fixed back-off, reading slow-retry only
        onDisk.withBean(Slow.class).run(context -> assertThat(context).hasNotFailed());
        assertThat(containersLog.events()).filteredOn(e -> e.getLevel() == Level.WARN).singleElement()
                .satisfies(e -> assertThat(e.getFormattedMessage())
                        .contains("reads the retry topics [slow-retry], not 'slow-retry-1' (2), which hold 2 record(s)")
                        .doesNotContain("archive", "slow-retry-1a", "slow-retryx1"));
    }

    @Test
    void settingsThatCannotWorkFailTheStartNamingTheListener() {
        runner.withBean(BatchRetries.class).run(context -> assertThat(context).getFailure()
                .rootCause().hasMessageContaining("@RetryableTopic listener 'batch'")
                .hasMessageContaining("batch listener"));
        runner.withBean(Orders.class).withPropertyValues("orders.attempts=three").run(context ->
                assertThat(context).getFailure().rootCause().hasMessageContaining("attempts 'three' is not a whole"));
        runner.withBean(Orders.class).withPropertyValues("orders.attempts=0").run(context ->
                assertThat(context).getFailure().rootCause().hasMessageContaining("attempts must be at least 1"));
        runner.withBean(Orders.class).withPropertyValues("orders.backoff=soon").run(context ->
                assertThat(context).getFailure().rootCause().hasMessageContaining("backOff delayString 'soon' is not a"
                        + " duration"));
        runner.withBean(TwoDltHandlers.class).run(context -> assertThat(context).getFailure().rootCause()
                .hasMessageContaining("has 2 @DltHandler methods [one, two]"));
        // a retry topic that may not be created fails the start, as an undeclared dead-letter topic does
        runner.withBean(Orders.class).withPropertyValues("kafko.auto-create-topics=false").run(context ->
                assertThat(context).getFailure().hasStackTraceContaining("reads and writes topics that do not exist and"
                        + " are not created on first use: declare them (kafko.topics.orders-retry.partitions=3,"
                        + " kafko.topics.orders-dlt.partitions=3)"));
        runner.withBean(Orders.class).withPropertyValues("kafko.auto-create-topics=false",
                "kafko.topics.orders-retry.partitions=3").run(context ->
                assertThat(context).getFailure().hasStackTraceContaining("reads and writes 'orders-dlt', which does"
                        + " not exist and is not created on first use: declare it (kafko.topics.orders-dlt.partitions=3)"));
        runner.withBean(Orders.class).withPropertyValues("kafko.auto-create-topics=false",
                "kafko.topics.orders-retry.partitions=3", "kafko.topics.orders-dlt.partitions=3")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void theDeadLetterTopicsRecordsAreCommittedUnderAManualAckModeWithoutAHandlerOrWithOneThatCannotAcknowledge() {
        runner.withPropertyValues("kafko.listener.ack-mode=manual", "kafko.topics.manual.partitions=1",
                "kafko.topics.handled.partitions=1").withBean(ManualAcks.class).withBean(ManualAcksHandled.class)
                .run(context -> {
                    template(context).send("manual", 0, "k", "never").join();
                    template(context).send("handled", 0, "k", "never").join();
                    // the dead-letter topics' records are committed: DltLogger, and a @DltHandler without an
                    // Acknowledgment, cannot acknowledge them
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
                    Kafko kafko = context.getBean(Kafko.class);
                    assertThat(kafko.groupInfo("manual-dlt", "manual").committed()).containsEntry(0, 1L);
                    assertThat(kafko.groupInfo("handled-dlt", "handled").committed()).containsEntry(0, 1L);
                    assertThat(DEAD).containsExactly("handled:never");
                });
    }

    @Test
    void theDltHandlerOfABeanExposedAsAJdkProxyIsCalledThroughTheProxy() {
        runner.withPropertyValues("kafko.topics.proxied.partitions=1").withBean(JdkProxying.class)
                .withBean(Proxied.class).run(context -> {
                    assertThat(Proxy.isProxyClass(context.getBean(ProxiedListener.class).getClass())).isTrue();
                    template(context).send("proxied", 0, "k", "never").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
                    assertThat(CALLS).containsExactly("proxied:never@1", "proxied:never@2");
                    assertThat(DEAD).containsExactly("proxied:never");
                });
    }

    @Test
    void aDltHandlerOfAJdkProxyWhoseInterfaceLacksItsHeaderFailsTheStartNamingTheParameter() {
        // called through the interface's method, the @Header of the class's would be lost: the topic parameter given
        // the payload
        runner.withPropertyValues("kafko.topics.hidden.partitions=1").withBean(HiddenHeaderProxying.class)
                .withBean(HiddenHeader.class).run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("@RetryableTopic listener 'hidden' on " + HiddenHeader.class.getName()
                                + ".on (its @DltHandler dead): the bean is a JDK proxy, called through"
                                + " HiddenHeaderListener.dead, whose parameter 2 lacks the @Header of"
                                + " HiddenHeader.dead"));
    }

    @Test
    void aPatternOrAPartitionsListenerCannotTakeRetryTopicsAndTheStartSaysWhatItReads() {
        runner.withBean(PatternRetried.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("@RetryableTopic listener 'pattern' on " + PatternRetried.class.getName()
                        + ".on must read its topics by name (no topicPattern, no topicPartitions); it reads the"
                        + " pattern 'ord.*'"));
        runner.withBean(PartitionsRetried.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("@RetryableTopic listener 'partitions' on "
                        + PartitionsRetried.class.getName() + ".on must read its topics by name (no"
                        + " topicPattern, no topicPartitions); it reads partitions"));
    }

    @Test
    void theBackOffsStringAttributesTakePlaceholdersAndDurations() {
        // 10, 20, 30 (capped: 40 without maxDelayString), 30 ms: three retry topics; a fixed back-off without
        // multiplierString would have one, and no maxDelayString four (40 ms the last)
        runner.withPropertyValues("kafko.topics.strings.partitions=1", "retry.delay=10ms", "retry.multiplier=2",
                "retry.max=30ms").withBean(BackOffStrings.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainerIds())
                            .contains("strings-retry-10", "strings-retry-20", "strings-retry-30", "strings-dlt")
                            .doesNotContain("strings-retry", "strings-retry-40");
                });
        runner.withPropertyValues("kafko.topics.strings.partitions=1", "retry.delay=10ms", "retry.multiplier=twice",
                "retry.max=30ms").withBean(BackOffStrings.class).run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("backOff multiplierString 'twice' is not a number"));
    }

    @Test
    void aRecordWaitingForItsBackOffHoldsBackItsOwnPartitionOnlyNotTheDueRecordsOfTheOthers() {
        runner.withPropertyValues("kafko.topics.spread.partitions=4", "kafko.topics.spread-retry.partitions=4")
                .withBean(Spread.class).run(context -> {
                    LogBackend backend = context.getBean(LogBackend.class);
                    long now = backend.currentTimeMillis();
                    // the retry topic as two waits left it: partitions 0 and 2 due in an hour, 1 and 3 due now;
                    // whatever partition the member's poll starts at, a due record comes after one that is not
                    for (int p = 0; p < 4; p++) {
                        boolean far = p % 2 == 0;
                        Headers headers = Headers.empty()
                                .with(KafkoHeaders.RETRY_ATTEMPTS, "2".getBytes(StandardCharsets.UTF_8))
                                .with(KafkoHeaders.RETRY_BACKOFF_TIMESTAMP, Long.toString(far ? now + 3_600_000 : now)
                                        .getBytes(StandardCharsets.UTF_8));
                        backend.producer("spread-retry").send(p, null, ((far ? "far-" : "due-") + p)
                                .getBytes(StandardCharsets.UTF_8), headers, now).join();
                    }
                    context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("spread-retry").start();
                    assertThat(Spread.DUE.await(20, TimeUnit.SECONDS)).as("the due records, delivered: %s", CALLS)
                            .isTrue();
                    assertThat(CALLS).containsExactlyInAnyOrder("spread-retry:due-1@1", "spread-retry:due-3@1");
                });
    }

    @Test
    void aPrivateDltHandlerOfABeanExposedAsAClassProxyFailsTheStartAsAPrivateListenerMethodDoes() {
        runner.withBean(ClassProxying.class).withBean(PrivateDltHandler.class).run(context ->
                assertThat(context).getFailure().hasStackTraceContaining("@RetryableTopic listener 'private'")
                        .hasStackTraceContaining("its @DltHandler dead cannot be called through the proxy")
                        .hasStackTraceContaining("Switch its visibility to package or protected"));
    }

    @Test
    void waitForListenersWaitsForARecordThroughEveryAttemptOfAFixedBackOffsOneRetryTopic() {
        runner.withPropertyValues("kafko.topics.many.partitions=1").withBean(Many.class).run(context -> {
            template(context).send("many", 0, "k", "never").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
            // nine retries read from many-retry, forwarded into it eight times, then the dead-letter topic: a cycle of
            // one container, longer than the passes the call made for three containers
            assertThat(CALLS).hasSize(10).endsWith("many-retry:never@10");
            assertThat(DEAD).containsExactly("many:never after 10");
        });
    }

    @Test
    void aListenerBeanAddedAtRunTimeWhoseRetryIdIsTakenStartsNoneOfItsContainers() {
        runner.withBean(TakesLateDlt.class).run(context -> {
            GenericApplicationContext live = (GenericApplicationContext) context.getSourceApplicationContext();
            live.registerBean("late", Late.class);
            assertThatThrownBy(() -> live.getBean("late")).rootCause()
                    .hasMessageContaining("@KafkoListener 'late-dlt'").hasMessageContaining("has that id too");
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            assertThat(registry.getListenerContainerIds()).contains("late-dlt").doesNotContain("late", "late-retry");
        });
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    private static String header(KafkoRecord record, String key) {
        return new String(record.headers().lastValue(key), StandardCharsets.UTF_8);
    }

    static void call(String topic, String value, String backOffUntil) {
        int attempt = ATTEMPTS.computeIfAbsent(value, v -> new AtomicInteger()).incrementAndGet();
        CALLS.add(topic + ":" + value + "@" + attempt);
        if (backOffUntil != null && System.currentTimeMillis() < Long.parseLong(backOffUntil)) {
            EARLY.add(topic + ":" + value + "@" + attempt);
        }
    }

    static class Orders {
        @RetryableTopic(attempts = "${orders.attempts:3}", backOff = @BackOff(delay = 60_000,
                delayString = "${orders.backoff:50ms}"),
                exclude = IllegalArgumentException.class)
        @KafkoListener(id = "orders", topics = "orders")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic,
                @Header(name = KafkoHeaders.RETRY_BACKOFF_TIMESTAMP, required = false) String backOffUntil) {
            call(topic, value, backOffUntil);
            switch (value) {
                case "poison" -> throw new IllegalStateException("cannot digest poison");
                case "flaky" -> {
                    if (ATTEMPTS.get(value).get() < 3) {
                        throw new IllegalStateException("not yet");
                    }
                }
                case "bad" -> throw new IllegalArgumentException("bad input");
                default -> { }
            }
        }

        @DltHandler
        void dead(String value, @Header(KafkoHeaders.DLT_ORIGINAL_TOPIC) String topic,
                  @Header(KafkoHeaders.DLT_ORIGINAL_PARTITION) int partition,
                  @Header(KafkoHeaders.DLT_ORIGINAL_OFFSET) long offset,
                  @Header(KafkoHeaders.RETRY_ATTEMPTS) int attempts,
                  @Header(KafkoHeaders.DLT_EXCEPTION_MESSAGE) String message) {
            DEAD.add(value + " from " + topic + "-" + partition + "@" + offset + " after " + attempts + ": " + message);
        }
    }

    static class Slow {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 3_600_000))
        @KafkoListener(id = "slow", topics = "slow")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            call(topic, value, null);
            throw new IllegalStateException("later");
        }
    }

    static class BatchRetries {
        @RetryableTopic
        @KafkoListener(id = "batch", topics = "orders", batch = "true")
        void on(List<String> values) {
        }
    }

    static class TwoDltHandlers {
        @RetryableTopic
        @KafkoListener(id = "two", topics = "orders")
        void on(String value) {
        }

        @DltHandler
        void one(String value) {
        }

        @DltHandler
        void two(String value) {
        }
    }

    static class TakesLateDlt {
        @KafkoListener(id = "late-dlt", topics = "elsewhere")
        void on(String value) {
        }
    }

    static class Late {
        @RetryableTopic
        @KafkoListener(id = "late", topics = "late")
        void on(String value) {
        }
    }

    static class Payments {
        @RetryableTopic(attempts = "4", backOff = @BackOff(delay = 10, multiplier = 2, maxDelay = 20))
        @KafkoListener(id = "payments", topics = "payments")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic,
                @Header(name = KafkoHeaders.RETRY_BACKOFF_TIMESTAMP, required = false) String backOffUntil) {
            call(topic, value, backOffUntil);
            throw new IllegalStateException("never works");
        }
    }

    static class ManualAcks {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10))
        @KafkoListener(id = "manual", topics = "manual")
        void on(String value, Acknowledgment ack) {
            throw new IllegalStateException("never works");
        }
    }

    static class ManualAcksHandled {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10))
        @KafkoListener(id = "handled", topics = "handled")
        void on(String value, Acknowledgment ack) {
            throw new IllegalStateException("never works");
        }

        @DltHandler
        void dead(String value) {
            DEAD.add("handled:" + value);
        }
    }

    static class SlowMultiplied {
        @RetryableTopic(attempts = "3", backOff = @BackOff(delay = 3_600_000, multiplier = 2, maxDelay = 7_200_000))
        @KafkoListener(id = "slow", topics = "slow")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            call(topic, value, null);
            throw new IllegalStateException("later");
        }
    }

    static class Spread {
        static final CountDownLatch DUE = new CountDownLatch(2);

        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 3_600_000))
        @KafkoListener(id = "spread", topics = "spread", autoStartup = "false")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            call(topic, value, null);
            if (value.startsWith("due-")) {
                DUE.countDown();
            }
        }
    }

    static class Many {
        @RetryableTopic(attempts = "10", backOff = @BackOff(delay = 50))
        @KafkoListener(id = "many", topics = "many")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            call(topic, value, null);
            throw new IllegalStateException("never works");
        }

        @DltHandler
        void dead(String value, @Header(KafkoHeaders.RETRY_ATTEMPTS) int attempts) {
            DEAD.add("many:" + value + " after " + attempts);
        }
    }

    interface ProxiedListener {
        void on(String value);

        void dead(String value);
    }

    static class Proxied implements ProxiedListener {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10))
        @KafkoListener(id = "proxied", topics = "proxied")
        @Override
        public void on(String value) {
            call("proxied", value, null);
            throw new IllegalStateException("never works");
        }

        @DltHandler
        @Override
        public void dead(String value) {
            DEAD.add("proxied:" + value);
        }
    }

    /** Exposes {@link Proxied} as a JDK proxy before kafko's post-processor sees it, as an AOP auto-proxy does. */
    static class JdkProxying implements BeanPostProcessor, Ordered {
        @Override
        public Object postProcessAfterInitialization(Object bean, String beanName) {
            if (!(bean instanceof Proxied)) {
                return bean;
            }
            ProxyFactory factory = new ProxyFactory(bean);
            factory.setInterfaces(ProxiedListener.class);
            factory.setProxyTargetClass(false);
            return factory.getProxy(getClass().getClassLoader());
        }

        @Override
        public int getOrder() {
            return Ordered.HIGHEST_PRECEDENCE;
        }
    }

    static class PrivateDltHandler {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10))
        @KafkoListener(id = "private", topics = "orders")
        void on(String value) {
        }

        @DltHandler
        private void dead(String value) {
        }
    }

    /** Exposes {@link PrivateDltHandler} as a class proxy before kafko's post-processor sees it. */
    static class ClassProxying implements BeanPostProcessor, Ordered {
        @Override
        public Object postProcessAfterInitialization(Object bean, String beanName) {
            if (!(bean instanceof PrivateDltHandler)) {
                return bean;
            }
            ProxyFactory factory = new ProxyFactory(bean);
            factory.setProxyTargetClass(true);
            return factory.getProxy(getClass().getClassLoader());
        }

        @Override
        public int getOrder() {
            return Ordered.HIGHEST_PRECEDENCE;
        }
    }

    interface HiddenHeaderListener {
        void on(String value);

        void dead(String value, String topic);
    }

    static class HiddenHeader implements HiddenHeaderListener {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10))
        @KafkoListener(id = "hidden", topics = "hidden")
        @Override
        public void on(String value) {
        }

        @DltHandler
        @Override
        public void dead(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
        }
    }

    /** Exposes {@link HiddenHeader} as a JDK proxy of {@link HiddenHeaderListener}, as an AOP auto-proxy does. */
    static class HiddenHeaderProxying implements BeanPostProcessor, Ordered {
        @Override
        public Object postProcessAfterInitialization(Object bean, String beanName) {
            if (!(bean instanceof HiddenHeader)) {
                return bean;
            }
            ProxyFactory factory = new ProxyFactory(bean);
            factory.setInterfaces(HiddenHeaderListener.class);
            factory.setProxyTargetClass(false);
            return factory.getProxy(getClass().getClassLoader());
        }

        @Override
        public int getOrder() {
            return Ordered.HIGHEST_PRECEDENCE;
        }
    }

    static class PatternRetried {
        @RetryableTopic
        @KafkoListener(id = "pattern", topicPattern = "ord.*")
        void on(String value) {
        }
    }

    static class PartitionsRetried {
        @RetryableTopic
        @KafkoListener(id = "partitions", topicPartitions = @TopicPartition(topic = "orders", partitions = "0"))
        void on(String value) {
        }
    }

    static class BackOffStrings {
        @RetryableTopic(attempts = "5", backOff = @BackOff(delayString = "${retry.delay}",
                multiplierString = "${retry.multiplier}", maxDelayString = "${retry.max}"))
        @KafkoListener(id = "strings", topics = "strings")
        void on(String value) {
        }
    }
}
