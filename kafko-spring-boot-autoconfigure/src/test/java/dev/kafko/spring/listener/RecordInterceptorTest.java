package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Headers;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.adapter.RecordFilterStrategy;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A {@link RecordInterceptor} bean: what each delivery attempt calls, in which order and on which thread, what a
 * skipped or a replaced record becomes, and how a failing listener or interceptor is dealt with.
 */
class RecordInterceptorTest {

    /** What the interceptor, the filter and the listeners saw, in order. */
    static final List<String> EVENTS = new CopyOnWriteArrayList<>();
    /** The callbacks made on another thread than a member's, or outside its setupThreadState/clearThreadState. */
    static final List<String> STRAYS = new CopyOnWriteArrayList<>();
    static final AtomicInteger SETUPS = new AtomicInteger();
    static final AtomicInteger CLEARS = new AtomicInteger();
    /** The intercepts of a record that fail, by offset: "throw" records fail their first one. */
    static final Map<Long, Boolean> THROWN = new ConcurrentHashMap<>();
    private static final ThreadLocal<Boolean> IN_POLL = new ThreadLocal<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Recording.class)
            .withBean("seen", RecordFilterStrategy.class, () -> record -> {
                event("filter:" + value(record));
                return value(record).equals("drop");
            })
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.retry.max-attempts=2");

    @BeforeEach
    void reset() {
        EVENTS.clear();
        STRAYS.clear();
        SETUPS.set(0);
        CLEARS.set(0);
        THROWN.clear();
    }

    @Test
    void eachRecordIsInterceptedOnThePollingThreadBeforeTheFilterAndTheListenerGetsTheReplacedRecordConverted() {
        runner.withBean(Plain.class).run(context -> {
            send(context, "plain", "up:a", "drop", "b");
            run(context, "plain");

            assertThat(EVENTS).containsExactly(
                    "intercept:up:a", "filter:UP:A", "listener:UP:A", "success:UP:A", "after:UP:A",
                    // a record the filter discards: the listener is not called, but it returned
                    "intercept:drop", "filter:drop", "success:drop", "after:drop",
                    "intercept:b", "filter:b", "listener:b", "success:b", "after:b");
            container(context, "plain").stop(); // waits for the member's end
            assertThat(STRAYS).isEmpty();
            assertThat(SETUPS.get()).isPositive().isEqualTo(CLEARS.get());
            // the offsets committed are those polled, whatever record the listener got
            assertThat(committed(context, "plain")).isEqualTo(3L);
        });
    }

    @ParameterizedTest
    @EnumSource(value = AckMode.class, names = {"RECORD", "BATCH"})
    void aSkippedRecordIsCommittedWithoutReachingTheListenerOrBeingRetried(AckMode ackMode) {
        runner.withBean(Plain.class).withPropertyValues("kafko.listener.ack-mode=" + ackMode.name().toLowerCase())
                .run(context -> {
                    send(context, "plain", "a", "skip", "b", "skip");
                    run(context, "plain");

                    assertThat(EVENTS).containsExactly(
                            "intercept:a", "filter:a", "listener:a", "success:a", "after:a",
                            "intercept:skip", // no other call for it, and no retry
                            "intercept:b", "filter:b", "listener:b", "success:b", "after:b",
                            "intercept:skip");
                    assertThat(committed(context, "plain")).isEqualTo(4L);
                });
    }

    @Test
    void underAManualAckModeASkippedRecordIsCommittedWithTheNextAcknowledgmentOfItsPartition() {
        runner.withBean(Manual.class).run(context -> {
            send(context, "manual", "skip");
            run(context, "manual");
            assertThat(EVENTS).containsExactly("intercept:skip");
            assertThat(committed(context, "manual")).as("not acknowledged").isNull();

            send(context, "manual", "b");
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(EVENTS).endsWith("listener:b", "success:b", "after:b");
            assertThat(committed(context, "manual")).isEqualTo(2L);
        });
    }

    @Test
    void failureIsCalledForEachFailedAttemptBeforeTheErrorHandlerAndAfterRecordAfterItsHandling() {
        runner.withBean(Failing.class).run(context -> {
            send(context, "failing", "bad", "ok");
            run(context, "failing");

            assertThat(EVENTS).containsExactly(
                    "intercept:bad", "listener:bad", "failure:bad:boom", "after:bad", // each intercept has its after
                    "intercept:bad", "listener:bad", "failure:bad:boom", // the retry (2 attempts in all)
                    "after:bad", // once the error handler logged and skipped it
                    "intercept:ok", "listener:ok", "success:ok", "after:ok");
            container(context, "failing").stop(); // waits for the member's end
            assertThat(STRAYS).isEmpty();
            assertThat(SETUPS.get()).isPositive().isEqualTo(CLEARS.get());
            assertThat(committed(context, "failing")).isEqualTo(2L);
        });
    }

    @Test
    void theRecordTheListenerGotIsTheOneDeadLetteredAndToldToTheRetryListeners() {
        List<String> told = new CopyOnWriteArrayList<>();
        RetryListener retryListener = recordingRetryListener(told);
        runner.withBean(Failing.class).withBean(RetryListener.class, () -> retryListener)
                .withPropertyValues("kafko.listener.dead-letter.enabled=true")
                .run(context -> {
                    send(context, "failing", "up:bad");
                    run(context, "failing");

                    // as spring-kafka's error handler, given the record its interceptor returned
                    assertThat(told).containsExactly("failed:UP:BAD:1", "failed:UP:BAD:2", "recovered:UP:BAD");
                    List<KafkoRecord> deadLetters = KafkoTestUtils.records(context, "failing.DLT");
                    assertThat(deadLetters).extracting(RecordInterceptorTest::value).containsExactly("UP:BAD");
                    // the offset committed is the polled record's, as is the original offset the dead letter names
                    assertThat(new String(deadLetters.get(0).headers().lastValue(KafkoHeaders.DLT_ORIGINAL_OFFSET),
                            StandardCharsets.UTF_8)).isEqualTo("0");
                    assertThat(committed(context, "failing")).isEqualTo(1L);
                });
    }

    @Test
    void aListenerHasNotCaughtUpUntilItsInterceptorWasToldOfItsLastRecord() {
        // under these ack modes the record is committed before afterRecord: the wait must not end on the commit alone
        for (Class<?> listener : List.of(Checked.class, CheckedManually.class)) {
            List<String> caughtUpInAfterRecord = new CopyOnWriteArrayList<>();
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                    .withPropertyValues("kafko.ephemeral=true")
                    .withBean(listener)
                    .withBean(RecordInterceptor.class, () -> new RecordInterceptor() {
                        @Override
                        public KafkoRecord intercept(KafkoRecord record) {
                            return record;
                        }

                        @Override
                        public void afterRecord(KafkoRecord record) {
                            try {
                                List<String> behind = ((ConcurrentMessageListenerContainer) CHECKED.get())
                                        .awaitCaughtUp(Duration.ZERO);
                                caughtUpInAfterRecord.add(value(record)
                                        + (behind.isEmpty() ? ": caught up" : ": behind"));
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                    })
                    .run(context -> {
                        CHECKED.set(container(context, "checked"));
                        send(context, "checked", "a");
                        run(context, "checked");

                        assertThat(caughtUpInAfterRecord).as(listener.getSimpleName()).containsExactly("a: behind");
                        assertThat(committed(context, "checked")).isEqualTo(1L);
                    });
        }
    }

    @Test
    void anInterceptorThatThrowsFailsTheAttemptAndTheErrorHandlerRetriesTheRecord() {
        runner.withBean(Plain.class).run(context -> {
            send(context, "plain", "throw", "b");
            run(context, "plain");

            assertThat(EVENTS).containsExactly(
                    "intercept:throw", "failure:throw:intercept failed", "after:throw", // the polled record
                    "intercept:throw", "filter:throw", "listener:throw", "success:throw", "after:throw",
                    "intercept:b", "filter:b", "listener:b", "success:b", "after:b");
            assertThat(container(context, "plain").isRunning()).isTrue();
            assertThat(committed(context, "plain")).isEqualTo(2L);
        });
    }

    @Test
    void anAsyncListenersOutcomeIsToldOnceItsStageCompleted() {
        runner.withBean(Async.class).run(context -> {
            send(context, "async", "a", "bad");
            run(context, "async");

            assertThat(EVENTS).containsExactly(
                    "intercept:a", "listener:a", "completed:a", "success:a", "after:a",
                    "intercept:bad", "listener:bad", "completed:bad", "failure:bad:async boom", "after:bad",
                    "intercept:bad", "listener:bad", "completed:bad", "failure:bad:async boom", "after:bad");
            assertThat(committed(context, "async")).isEqualTo(2L);
        });
    }

    @Test
    void aCompositeStopsInterceptingAtTheFirstNullAndCallsEveryDelegateInOrder() {
        List<String> calls = new ArrayList<>();
        RecordInterceptor skips = new RecordInterceptor() {
            @Override
            public @Nullable KafkoRecord intercept(KafkoRecord record) {
                calls.add("1:intercept");
                return value(record).equals("skip") ? null : new Replaced(record, "one");
            }

            @Override
            public void success(KafkoRecord record) {
                calls.add("1:success:" + value(record));
            }

            @Override
            public void clearThreadState() {
                calls.add("1:clear");
            }
        };
        RecordInterceptor second = new RecordInterceptor() {
            @Override
            public KafkoRecord intercept(KafkoRecord record) {
                calls.add("2:intercept:" + value(record));
                return record;
            }

            @Override
            public void success(KafkoRecord record) {
                calls.add("2:success:" + value(record));
            }

            @Override
            public void clearThreadState() {
                calls.add("2:clear");
            }
        };
        CompositeRecordInterceptor composite = new CompositeRecordInterceptor(skips, second);
        KafkoRecord a = new Replaced(null, "a");

        assertThat(composite.intercept(new Replaced(null, "skip"))).isNull();
        assertThat(calls).containsExactly("1:intercept");
        KafkoRecord intercepted = composite.intercept(a);
        assertThat(value(intercepted)).isEqualTo("one");
        composite.success(intercepted);
        composite.clearThreadState();
        assertThat(calls).containsExactly("1:intercept", "1:intercept", "2:intercept:one", "1:success:one",
                "2:success:one", "1:clear", "2:clear");
    }

    static void send(ConfigurableApplicationContext context, String topic, String... values) {
        @SuppressWarnings("unchecked")
        KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
        for (String v : values) {
            template.send(topic, v).join();
        }
    }

    /** Starts the listener and waits until it has dealt with its records. */
    static void run(ConfigurableApplicationContext context, String id) {
        container(context, id).start();
        KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
    }

    static MessageListenerContainer container(ConfigurableApplicationContext context, String id) {
        return context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer(id);
    }

    static @Nullable Long committed(ConfigurableApplicationContext context, String topic) {
        return context.getBean(Kafko.class).groupInfo(topic, topic).committed().get(0);
    }

    static String value(KafkoRecord record) {
        return new String(record.value(), StandardCharsets.UTF_8);
    }

    static void event(String event) {
        if (!isMember()) {
            STRAYS.add(event + " on " + Thread.currentThread().getName());
        }
        EVENTS.add(event);
    }

    /** Records a callback that should be made between the member's setupThreadState and clearThreadState. */
    static void inPoll(String event) {
        if (IN_POLL.get() == null) {
            STRAYS.add(event + " outside a poll on " + Thread.currentThread().getName());
        }
        event(event);
    }

    private static boolean isMember() {
        String name = Thread.currentThread().getName();
        return Set.of("plain-0", "manual-0", "failing-0", "async-0").contains(name);
    }

    /** A record with another value than the one it stands for. */
    record Replaced(@Nullable KafkoRecord from, String text) implements KafkoRecord {
        @Override
        public String topic() {
            return from == null ? "none" : from.topic();
        }

        @Override
        public int partition() {
            return from == null ? 0 : from.partition();
        }

        @Override
        public long offset() {
            return from == null ? 0 : from.offset();
        }

        @Override
        public long timestamp() {
            return from == null ? 0 : from.timestamp();
        }

        @Override
        public byte @Nullable [] key() {
            return from == null ? null : from.key();
        }

        @Override
        public byte[] value() {
            return text.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public Headers headers() {
            return from == null ? Headers.empty() : from.headers();
        }
    }

    /** "up:" records are replaced by their upper case, "skip" ones skipped, "throw" ones fail their first intercept. */
    static class Recording implements RecordInterceptor {
        @Override
        public @Nullable KafkoRecord intercept(KafkoRecord record) {
            String value = value(record);
            inPoll("intercept:" + value);
            if (value.equals("skip")) {
                return null;
            }
            if (value.equals("throw") && THROWN.putIfAbsent(record.offset(), true) == null) {
                throw new IllegalStateException("intercept failed");
            }
            return value.startsWith("up:") ? new Replaced(record, value.toUpperCase()) : record;
        }

        @Override
        public void success(KafkoRecord record) {
            inPoll("success:" + value(record));
        }

        @Override
        public void failure(KafkoRecord record, Exception exception) {
            Throwable cause = exception;
            while (cause.getCause() != null) {
                cause = cause.getCause();
            }
            inPoll("failure:" + value(record) + ":" + cause.getMessage());
        }

        @Override
        public void afterRecord(KafkoRecord record) {
            inPoll("after:" + value(record));
        }

        @Override
        public void setupThreadState() {
            if (IN_POLL.get() != null) {
                STRAYS.add("setup twice");
            }
            IN_POLL.set(true);
            SETUPS.incrementAndGet();
        }

        @Override
        public void clearThreadState() {
            if (IN_POLL.get() == null) {
                STRAYS.add("clear without setup");
            }
            IN_POLL.remove();
            CLEARS.incrementAndGet();
        }
    }

    static class Plain {
        @KafkoListener(id = "plain", topics = "plain", groupId = "plain", filter = "seen", autoStartup = "false")
        void on(String value) {
            inPoll("listener:" + value);
        }
    }

    static class Manual {
        @KafkoListener(id = "manual", topics = "manual", groupId = "manual", ackMode = "MANUAL",
                autoStartup = "false")
        void on(String value, Acknowledgment ack) {
            inPoll("listener:" + value);
            ack.acknowledge();
        }
    }

    static class Failing {
        @KafkoListener(id = "failing", topics = "failing", groupId = "failing", autoStartup = "false")
        void on(String value) {
            inPoll("listener:" + value);
            if (value.equalsIgnoreCase("bad") || value.equals("UP:BAD")) {
                throw new IllegalStateException("boom");
            }
        }
    }

    static final AtomicReference<MessageListenerContainer> CHECKED = new AtomicReference<>();

    static class Checked {
        @KafkoListener(id = "checked", topics = "checked", groupId = "checked", ackMode = "RECORD",
                autoStartup = "false")
        void on(String value) {
        }
    }

    static class CheckedManually {
        @KafkoListener(id = "checked", topics = "checked", groupId = "checked", ackMode = "MANUAL_IMMEDIATE",
                autoStartup = "false")
        void on(String value, Acknowledgment ack) {
            ack.acknowledge();
        }
    }

    static class Async {
        @KafkoListener(id = "async", topics = "async", groupId = "async", autoStartup = "false")
        CompletableFuture<Void> on(String value) {
            inPoll("listener:" + value);
            return CompletableFuture.runAsync(() -> {
                EVENTS.add("completed:" + value); // on another thread
                if (value.equals("bad")) {
                    throw new IllegalStateException("async boom");
                }
            });
        }
    }

    /** A retry listener that adds {@code failed:<value>:<attempt>} and {@code recovered:<value>} to {@code told}. */
    static RetryListener recordingRetryListener(List<String> told) {
        return new RetryListener() {
            @Override
            public void failedDelivery(KafkoRecord record, Exception failure, int deliveryAttempt) {
                told.add("failed:" + value(record) + ":" + deliveryAttempt);
            }

            @Override
            public void recovered(KafkoRecord record, Exception failure) {
                told.add("recovered:" + value(record));
            }
        };
    }
}
