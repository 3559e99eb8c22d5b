package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.Order;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.KafkoInstrumentation;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.invocation.MethodArgumentResolutionException;

@ExtendWith(OutputCaptureExtension.class)
class ErrorHandlingTest {

    static final Map<String, AtomicInteger> ATTEMPTS = new ConcurrentHashMap<>();
    static final List<String> DONE = new CopyOnWriteArrayList<>();
    static final List<Order> ORDERS = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Listeners.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.work.partitions=2",
                    "kafko.listener.retry.max-attempts=3", "kafko.listener.retry.backoff=5ms");

    @BeforeEach
    void reset() {
        ATTEMPTS.clear();
        DONE.clear();
        ORDERS.clear();
    }

    @Test
    void aRecordListenerReadsWhichAttemptEachInvocationIs() {
        runner.withBean(Flaky.class).run(context -> {
            template(context).send("flaky", "f").join();
            template(context).send("flaky", "g").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            // the third attempt succeeds; the next record starts again at 1
            assertThat(DONE).containsExactly("f@1", "f@2", "f@3", "g@1", "g@2", "g@3");
        });
    }

    /** Three attempts each: the first failure's, then the other exception's own back-off (counted from its failure). */
    @Test
    void aRetryFailingWithAnotherExceptionStartsTheConfiguredBackOffAgain() {
        runner.withBean(Changing.class).run(context -> {
            template(context).send("changing", "c").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(DONE).containsExactly("c@1", "c@2", "c@3", "c@4");
        });
    }

    @Test
    void aPoisonRecordIsRetriedThenPublishedToTheDeadLetterTopicWithItsHistory() {
        runner.withPropertyValues("kafko.listener.dead-letter.enabled=true").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            template.send("work", 1, "k1", "a").join();
            template.send("work", 1, "k2", "poison").join();
            template.send("work", 1, "k3", "b").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));

            assertThat(ATTEMPTS.get("poison")).hasValue(3);
            assertThat(DONE).containsExactly("a", "b");
            Kafko kafko = context.getBean(Kafko.class);
            assertThat(kafko.topic("work.DLT").orElseThrow().partitionCount()).isGreaterThanOrEqualTo(2);
            List<KafkoRecord> dead = kafko.consumer("work.DLT").poll(Duration.ofSeconds(5));
            assertThat(dead).hasSize(1);
            KafkoRecord r = dead.get(0);
            assertThat(r.partition()).isEqualTo(1);
            assertThat(new String(r.key())).isEqualTo("k2");
            assertThat(new String(r.value())).isEqualTo("poison");
            assertThat(header(r, KafkoHeaders.DLT_EXCEPTION_FQCN)).isEqualTo(IllegalStateException.class.getName());
            assertThat(header(r, KafkoHeaders.DLT_EXCEPTION_MESSAGE)).isEqualTo("cannot digest poison");
            assertThat(header(r, KafkoHeaders.DLT_EXCEPTION_STACKTRACE)).contains("cannot digest poison", "Listeners.work");
            assertThat(header(r, KafkoHeaders.DLT_ORIGINAL_TOPIC)).isEqualTo("work");
            assertThat(header(r, KafkoHeaders.DLT_ORIGINAL_PARTITION)).isEqualTo("1");
            assertThat(header(r, KafkoHeaders.DLT_ORIGINAL_OFFSET)).isEqualTo("1");
            assertThat(header(r, KafkoHeaders.DLT_ORIGINAL_CONSUMER_GROUP)).isEqualTo("work");
            assertThat(kafko.groupInfo("work", "work").committed()).containsEntry(1, 3L);
        });
    }

    @Test
    void aDeadLetterTooLargeWithItsStackTraceIsPublishedWithoutIt() {
        runner.withPropertyValues("kafko.listener.dead-letter.enabled=true", "kafko.defaults.max-record-size=2KB")
                .run(context -> {
                    KafkoTemplate<Object, Object> template = template(context);
                    template.send("big", 0, null, "x".repeat(1500)).join();
                    template.send("big", 0, null, "fine").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(ATTEMPTS.get("big")).hasValue(3);
                    assertThat(DONE).containsExactly("fine");
                    Kafko kafko = context.getBean(Kafko.class);
                    List<KafkoRecord> dead = kafko.consumer("big.DLT").poll(Duration.ofSeconds(5));
                    assertThat(dead).singleElement().satisfies(r -> {
                        assertThat(r.value()).hasSize(1500);
                        assertThat(header(r, KafkoHeaders.DLT_EXCEPTION_STACKTRACE))
                                .isEqualTo(DeadLetterPublishingRecoverer.STACK_TRACE_LEFT_OUT);
                        assertThat(header(r, KafkoHeaders.DLT_EXCEPTION_MESSAGE)).isEqualTo("too big to digest");
                        assertThat(header(r, KafkoHeaders.DLT_ORIGINAL_OFFSET)).isEqualTo("0");
                    });
                    assertThat(kafko.groupInfo("big", "big").committed()).containsEntry(0, 2L);
                });
    }

    @Test
    void aRecordThatCannotFitItsDeadLetterTopicAtAllIsSkippedNotDeliveredForEver() {
        runner.withPropertyValues("kafko.listener.dead-letter.enabled=true", "kafko.defaults.max-record-size=2KB")
                .run(context -> {
                    KafkoTemplate<Object, Object> template = template(context);
                    template.send("big", 0, null, "x".repeat(2000)).join();
                    template.send("big", 0, null, "fine").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(ATTEMPTS.get("big")).as("one round of attempts, no redelivery").hasValue(3);
                    assertThat(DONE).containsExactly("fine");
                    Kafko kafko = context.getBean(Kafko.class);
                    assertThat(kafko.consumer("big.DLT").poll(Duration.ofMillis(100))).isEmpty();
                    assertThat(kafko.groupInfo("big", "big").committed()).containsEntry(0, 2L);
                });
    }

    @Test
    void anErrorThrownByTheListenerIsNamedInTheDeadLetterNotItsWrapper() {
        runner.withPropertyValues("kafko.listener.dead-letter.enabled=true", "kafko.listener.retry.max-attempts=1")
                .run(context -> {
                    template(context).send("work", 0, null, "assert").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    List<KafkoRecord> dead = context.getBean(Kafko.class).consumer("work.DLT").poll(Duration.ofSeconds(5));
                    assertThat(dead).singleElement().satisfies(r -> {
                        assertThat(header(r, KafkoHeaders.DLT_EXCEPTION_FQCN)).isEqualTo(AssertionError.class.getName());
                        assertThat(header(r, KafkoHeaders.DLT_EXCEPTION_MESSAGE)).isEqualTo("an Error, not an Exception");
                    });
                });
    }

    @Test
    void withTopicsNotCreatedOnFirstUseAnUndeclaredDeadLetterTopicFailsTheStartNamingIt() {
        runner.withPropertyValues("kafko.listener.dead-letter.enabled=true", "kafko.auto-create-topics=false",
                "kafko.topics.big.partitions=1", "kafko.topics.typed.partitions=1", "kafko.topics.headed.partitions=1")
                .run(context -> assertThat(context).getFailure().hasStackTraceContaining(".DLT', which does not exist"
                        + " and is not created on first use: declare it (kafko.topics[").hasStackTraceContaining(
                        ".DLT].partitions) or set kafko.auto-create-topics=true"));
    }

    @Test
    void aDeclaredDeadLetterTopicIsUsedWhenTopicsAreNotCreatedOnFirstUse() {
        runner.withPropertyValues("kafko.listener.dead-letter.enabled=true", "kafko.auto-create-topics=false",
                "kafko.topics.big.partitions=1", "kafko.topics.typed.partitions=1", "kafko.topics.headed.partitions=1",
                "kafko.topics[work.DLT].partitions=1", "kafko.topics[big.DLT].partitions=1",
                "kafko.topics[typed.DLT].partitions=1", "kafko.topics[headed.DLT].partitions=1").run(context -> {
                    template(context).send("work", 1, null, "poison").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    Kafko kafko = context.getBean(Kafko.class);
                    assertThat(kafko.topic("work.DLT").orElseThrow().partitionCount()).as("grown to the original's")
                            .isEqualTo(2);
                    assertThat(kafko.consumer("work.DLT").poll(Duration.ofSeconds(5))).singleElement()
                            .satisfies(r -> assertThat(r.partition()).isEqualTo(1));
                });
    }

    @Test
    void aDeadLetterTopicDeclaredWithFewerPartitionsStartsAgainWithThePartitionsItWasGrownTo(@TempDir Path dir) {
        ApplicationContextRunner onDir = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class)).withBean(Listeners.class)
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.listener.dead-letter.enabled=true",
                        "kafko.topics.work.partitions=4", "kafko.topics[work.DLT].partitions=2");
        for (int run = 1; run <= 2; run++) {
            onDir.run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(Kafko.class).topic("work.DLT").orElseThrow().partitionCount())
                        .as("grown to the original's").isEqualTo(4);
            });
        }
    }

    @Test
    void aDeadLetterTopicDeclaredBelowWhatItHasBeyondItsOriginalFailsTheStartNamingTheBracketProperty(
            @TempDir Path dir) {
        ApplicationContextRunner onDir = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class)).withBean(Listeners.class)
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.listener.dead-letter.enabled=true",
                        "kafko.topics.work.partitions=2");
        onDir.withPropertyValues("kafko.topics[work.DLT].partitions=6")
                .run(context -> assertThat(context).hasNotFailed());
        onDir.withPropertyValues("kafko.topics[work.DLT].partitions=3").run(context ->
                assertThat(context).getFailure().hasStackTraceContaining(
                        "kafko.topics[work.DLT].partitions=3 would shrink topic 'work.DLT', which has 6 partitions"));
    }

    @Test
    void withoutDeadLettersAPoisonRecordIsLoggedSkippedAndCommittedPast() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            template.send("work", 0, null, "poison").join();
            template.send("work", 0, null, "c").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(ATTEMPTS.get("poison")).hasValue(3);
            assertThat(DONE).containsExactly("c");
            assertThat(context.getBean(Kafko.class).topic("work.DLT")).isEmpty();
        });
    }

    @Test
    void aFailureCausedByANotRetryableExceptionGoesStraightToTheDeadLetterTopic() {
        runner.withPropertyValues("kafko.listener.dead-letter.enabled=true",
                "kafko.listener.retry.not-retryable=java.io.FileNotFoundException, " + Hopeless.class.getName())
                .run(context -> {
                    KafkoTemplate<Object, Object> template = template(context);
                    template.send("work", 0, null, "hopeless").join();
                    template.send("work", 0, null, "poison").join();
                    template.send("work", 0, null, "d").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));

                    assertThat(ATTEMPTS.get("hopeless")).hasValue(1);
                    assertThat(ATTEMPTS.get("poison")).as("not listed: retried as before").hasValue(3);
                    assertThat(DONE).containsExactly("d");
                    List<KafkoRecord> dead = context.getBean(Kafko.class).consumer("work.DLT")
                            .poll(Duration.ofSeconds(5));
                    assertThat(dead).extracting(r -> new String(r.value())).containsExactly("hopeless", "poison");
                });
    }

    @Test
    void aNotRetryableNameThatIsNoExceptionClassFailsTheStartWithTheName() {
        runner.withPropertyValues("kafko.listener.retry.not-retryable=com.example.NoSuchException")
                .run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining(
                        "kafko.listener.retry.not-retryable names com.example.NoSuchException, which is not a class"));
        runner.withPropertyValues("kafko.listener.retry.not-retryable=java.lang.String")
                .run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining(
                        "kafko.listener.retry.not-retryable names java.lang.String, which is not an exception"));
    }

    @Test
    void conversionFailuresSkipTheRetries() {
        runner.withPropertyValues("kafko.listener.dead-letter.enabled=true").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            template.send("typed", "not json at all").join();
            template.send("typed", new Order("fine", 1)).join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(ORDERS).containsExactly(new Order("fine", 1));
            List<KafkoRecord> dead = context.getBean(Kafko.class).consumer("typed.DLT").poll(Duration.ofSeconds(5));
            assertThat(dead).hasSize(1);
            assertThat(header(dead.get(0), KafkoHeaders.DLT_EXCEPTION_FQCN))
                    .isEqualTo(MessageConversionException.class.getName());
        });
    }

    @Test
    void aMissingHeaderIsAnArgumentFailureThatSkipsTheRetries() {
        Map<String, AtomicInteger> invocations = new ConcurrentHashMap<>();
        KafkoInstrumentation counting = new KafkoInstrumentation() {
            @Override
            public void listenerInvoked(String listenerId, String topic, long nanos, boolean success) {
                invocations.computeIfAbsent(listenerId, k -> new AtomicInteger()).incrementAndGet();
            }
        };
        runner.withBean(KafkoInstrumentation.class, () -> counting)
                .withPropertyValues("kafko.listener.dead-letter.enabled=true").run(context -> {
                    template(context).send("headed", "no trace header").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(invocations.get("headed")).hasValue(1);
                    List<KafkoRecord> dead = context.getBean(Kafko.class).consumer("headed.DLT")
                            .poll(Duration.ofSeconds(5));
                    assertThat(header(dead.get(0), KafkoHeaders.DLT_EXCEPTION_FQCN))
                            .isEqualTo(MethodArgumentResolutionException.class.getName());
                    assertThat(header(dead.get(0), KafkoHeaders.DLT_EXCEPTION_MESSAGE)).contains("trace");
                });
    }

    @Test
    void retryListenerBeansAreToldByTheConfiguredHandlerAlongsideItsDeadLetters() {
        List<String> heard = new CopyOnWriteArrayList<>();
        RetryListener listener = new RetryListener() {
            @Override
            public void failedDelivery(KafkoRecord record, Exception failure, int deliveryAttempt) {
                heard.add(new String(record.value()) + " failed " + deliveryAttempt);
            }

            @Override
            public void recovered(KafkoRecord record, Exception failure) {
                heard.add(new String(record.value()) + " recovered: " + failure.getMessage());
            }
        };
        runner.withPropertyValues("kafko.listener.dead-letter.enabled=true")
                .withBean(RetryListener.class, () -> listener).run(context -> {
                    template(context).send("work", 0, null, "poison").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(heard).containsExactly("poison failed 1", "poison failed 2", "poison failed 3",
                            "poison recovered: cannot digest poison");
                    assertThat(context.getBean(Kafko.class).consumer("work.DLT").poll(Duration.ofSeconds(5)))
                            .hasSize(1);
                });
    }

    @Test
    void anApplicationErrorHandlerBeanReplacesTheDefault() {
        List<String> handled = new ArrayList<>();
        KafkoErrorHandler mine = (records, failure, invocation) ->
                records.forEach(r -> handled.add(new String(r.value()) + ":" + failure.getMessage()));
        runner.withBean(KafkoErrorHandler.class, () -> mine).run(context -> {
            template(context).send("work", 0, null, "poison").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(ATTEMPTS.get("poison")).hasValue(1);
            assertThat(handled).containsExactly("poison:cannot digest poison");
        });
    }

    @Test
    void aListenerThatAlwaysFailsNeverKillsItsContainer() {
        runner.withPropertyValues("kafko.listener.retry.max-attempts=1").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            for (int i = 0; i < 20; i++) {
                template.send("work", 0, null, "poison").join();
            }
            template.send("work", 0, null, "assert").join();
            template.send("work", 0, null, "d").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(ATTEMPTS.get("poison")).hasValue(20);
            assertThat(ATTEMPTS.get("assert")).hasValue(1);
            assertThat(DONE).containsExactly("d");
            MessageListenerContainer container = context.getBean(dev.kafko.spring.config.KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("work");
            assertThat(container.isRunning()).isTrue();
            assertThat(container.isInExpectedState()).isTrue();
        });
    }

    @Test
    void stoppingDuringTheBackOffLeavesTheFailedRecordUncommittedForTheNextRun(CapturedOutput output) {
        runner.withPropertyValues("kafko.listener.retry.max-attempts=1000", "kafko.listener.retry.backoff=1s")
                .run(context -> {
                    template(context).send("work", 0, null, "ok").join();
                    template(context).send("work", 0, null, "poison").join();
                    await().atMost(Duration.ofSeconds(20)).until(() -> ATTEMPTS.containsKey("poison"));
                    long start = System.nanoTime();
                    context.getBean(dev.kafko.spring.config.KafkoListenerEndpointRegistry.class).stop();
                    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
                    assertThat(context.getBean(Kafko.class).groupInfo("work", "work").committed())
                            .containsEntry(0, 1L);
                    // a stop is not a failure: said once, without a warning or a stack trace
                    assertThat(output).contains("Listener 'work' stopped while retrying 1 record(s) from work;")
                            .doesNotContain("did not finish");
                });
    }

    @Test
    void pausingDuringTheRetriesEndsThemAndTheRecordIsDeliveredAgainAfterTheResume(CapturedOutput output) {
        HEALED.set(false);
        runner.withBean(Outage.class)
                .withPropertyValues("kafko.listener.retry.max-attempts=5", "kafko.listener.retry.backoff=1s")
                .run(context -> {
                    template(context).send("outage", 0, null, "ok").join();
                    template(context).send("outage", 0, null, "db").join();
                    await().atMost(Duration.ofSeconds(20)).until(() -> ATTEMPTS.containsKey("db"));
                    MessageListenerContainer container = context
                            .getBean(dev.kafko.spring.config.KafkoListenerEndpointRegistry.class)
                            .getListenerContainer("outage");
                    container.pause();
                    // the back-off ends at the pause: the member stops polling instead of using up the attempts
                    await().atMost(Duration.ofSeconds(10)).until(container::isPaused);
                    assertThat(ATTEMPTS.get("db").get()).as("no attempt after the pause").isLessThanOrEqualTo(2);
                    Kafko kafko = context.getBean(Kafko.class);
                    assertThat(kafko.groupInfo("outage", "outage").committed()).containsEntry(0, 1L);
                    assertThat(DONE).containsExactly("ok");
                    assertThat(output).contains("Listener 'outage' paused while retrying 1 record(s) from outage;")
                            .doesNotContain("gave up");

                    HEALED.set(true);
                    container.resume();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(DONE).containsExactly("ok", "db");
                    assertThat(kafko.groupInfo("outage", "outage").committed()).containsEntry(0, 2L);
                });
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    private static String header(KafkoRecord record, String key) {
        return new String(record.headers().lastValue(key));
    }

    static final class Hopeless extends RuntimeException {
        Hopeless() {
            super("never going to work");
        }
    }

    static class Listeners {
        @KafkoListener(id = "work", topics = "work")
        void work(String value) {
            if (value.equals("assert")) {
                ATTEMPTS.computeIfAbsent(value, k -> new AtomicInteger()).incrementAndGet();
                throw new AssertionError("an Error, not an Exception");
            }
            if (value.equals("hopeless")) {
                ATTEMPTS.computeIfAbsent(value, k -> new AtomicInteger()).incrementAndGet();
                throw new IllegalStateException("wrapped", new Hopeless());
            }
            if (value.equals("poison")) {
                ATTEMPTS.computeIfAbsent(value, k -> new AtomicInteger()).incrementAndGet();
                throw new IllegalStateException("cannot digest poison");
            }
            DONE.add(value);
        }

        @KafkoListener(id = "big", topics = "big")
        void big(String value) {
            if (value.length() > 100) {
                ATTEMPTS.computeIfAbsent("big", k -> new AtomicInteger()).incrementAndGet();
                throw new IllegalStateException("too big to digest");
            }
            DONE.add(value);
        }

        @KafkoListener(id = "headed", topics = "headed")
        void headed(String value, @Header("trace") String trace) {
            DONE.add(value);
        }

        @KafkoListener(id = "typed", topics = "typed")
        void typed(Order order) {
            ORDERS.add(order);
        }
    }

    static final AtomicBoolean HEALED = new AtomicBoolean();

    /** Fails "db" until {@link #HEALED}, as a listener does while its database is down. */
    static class Outage {
        @KafkoListener(id = "outage", topics = "outage", ackMode = "RECORD")
        void outage(String value) {
            if (value.equals("db") && !HEALED.get()) {
                ATTEMPTS.computeIfAbsent(value, k -> new AtomicInteger()).incrementAndGet();
                throw new IllegalStateException("database down");
            }
            DONE.add(value);
        }
    }

    static class Flaky {
        @KafkoListener(id = "flaky", topics = "flaky")
        void flaky(String value, @Header(KafkoHeaders.DELIVERY_ATTEMPT) int attempt) {
            DONE.add(value + "@" + attempt);
            if (attempt < 3) {
                throw new IllegalStateException("not yet");
            }
        }
    }

    static class Changing {
        @KafkoListener(id = "changing", topics = "changing")
        void changing(String value, @Header(KafkoHeaders.DELIVERY_ATTEMPT) int attempt) {
            DONE.add(value + "@" + attempt);
            if (attempt == 1) {
                throw new IllegalStateException("a timeout, say");
            }
            throw new IllegalArgumentException("then a constraint violation");
        }
    }
}
