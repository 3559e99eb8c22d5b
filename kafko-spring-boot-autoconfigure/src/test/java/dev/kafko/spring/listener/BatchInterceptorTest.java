package dev.kafko.spring.listener;

import static dev.kafko.spring.listener.RecordInterceptorTest.committed;
import static dev.kafko.spring.listener.RecordInterceptorTest.container;
import static dev.kafko.spring.listener.RecordInterceptorTest.run;
import static dev.kafko.spring.listener.RecordInterceptorTest.send;
import static dev.kafko.spring.listener.RecordInterceptorTest.value;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.test.KafkoTestUtils;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A {@link BatchInterceptor} bean: what a batch listener gets, what is committed and retried, and that each kind of
 * interceptor is used by its kind of listener only.
 */
class BatchInterceptorTest {

    static final List<String> EVENTS = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Recording.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.retry.max-attempts=2");

    @BeforeEach
    void reset() {
        EVENTS.clear();
    }

    @Test
    void theListenerGetsWhatTheInterceptorReturnedOnThePollingThreadAndEveryPolledRecordIsCommitted() {
        runner.withBean(Batcher.class).run(context -> {
            send(context, "batches", "drop", "v1", "v2");
            run(context, "batches");
            container(context, "batches").stop(); // waits for the member's end

            assertThat(delivered()).containsExactly("intercept:[drop, v1, v2]@batches-0",
                    "listener:[v1, v2]@batches-0", "success:[v1, v2]@batches-0");
            assertBracketed();
            assertThat(committed(context, "batches")).isEqualTo(3L);
        });
    }

    @Test
    void aSkippedBatchIsCommittedWithoutReachingTheListener() {
        runner.withBean(Batcher.class).run(context -> {
            send(context, "batches", "skip", "v1");
            run(context, "batches");

            assertThat(delivered()).containsExactly("intercept:[skip, v1]@batches-0");
            assertThat(committed(context, "batches")).isEqualTo(2L);
        });
    }

    /**
     * A composite whose first delegate drops every record skips the batch there: the delegates after it are not
     * handed an empty batch (which no interceptor is otherwise given), so one that reads the batch's first record
     * does not fail it and have its records retried and dead-lettered instead of skipped.
     */
    @Test
    void aCompositeWhoseDelegateDropsEveryRecordSkipsTheBatchWithoutCallingTheNextDelegate() {
        BatchInterceptor dropAll = new BatchInterceptor() {
            @Override
            public List<KafkoRecord> intercept(List<KafkoRecord> records) {
                EVENTS.add("drop-all:" + values(records));
                return List.of();
            }

            @Override
            public void failure(List<KafkoRecord> records, Exception exception) {
                EVENTS.add("failure:" + values(records));
            }
        };
        BatchInterceptor firstOffset = records -> {
            EVENTS.add("first-offset:" + records.get(0).offset());
            return records;
        };
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.retry.max-attempts=2",
                        "kafko.listener.dead-letter.enabled=true")
                .withBean("composite", BatchInterceptor.class, () -> new CompositeBatchInterceptor(dropAll, firstOffset))
                .withBean(Batcher.class)
                .run(context -> {
                    send(context, "batches", "v1", "v2");
                    run(context, "batches");

                    assertThat(EVENTS).containsExactly("drop-all:[v1, v2]");
                    assertThat(committed(context, "batches")).isEqualTo(2L);
                    assertThat(KafkoTestUtils.records(context, "batches.DLT")).isEmpty();
                });
    }

    @Test
    void aFailedRecordNamedInTheInterceptedListIsTheOneRetriedAndFailureIsCalledForEachAttempt() {
        runner.withBean(Batcher.class).run(context -> {
            send(context, "batches", "drop", "v1", "bad", "v3");
            run(context, "batches");

            // the listener names index 1 of the list it got: "bad", index 2 of the polled batch
            container(context, "batches").stop();
            assertBracketed(); // balanced although the listener threw
            assertThat(delivered()).containsExactly(
                    "intercept:[drop, v1, bad, v3]@batches-0", "listener:[v1, bad, v3]@batches-0",
                    "failure:[v1, bad, v3]:bad record",
                    "intercept:[bad]@batches-0", "listener:[bad]@batches-0", "failure:[bad]:bad record",
                    "intercept:[v3]@batches-0", "listener:[v3]@batches-0", "success:[v3]@batches-0");
            assertThat(committed(context, "batches")).isEqualTo(4L);
        });
    }

    @Test
    void aFailedBatchRecoversTheRecordsTheListenerGotAndCommitsThoseTheInterceptorDropped() {
        runner.withBean(Batcher.class).withPropertyValues("kafko.listener.dead-letter.enabled=true").run(context -> {
            send(context, "batches", "drop", "v1", "fail");
            run(context, "batches");

            assertThat(delivered()).containsExactly(
                    "intercept:[drop, v1, fail]@batches-0", "listener:[v1, fail]@batches-0",
                    "failure:[v1, fail]:whole batch",
                    "intercept:[drop, v1, fail]@batches-0", "listener:[v1, fail]@batches-0",
                    "failure:[v1, fail]:whole batch");
            // "drop" did not fail: the listener never got it (as spring-kafka's error handler gets the intercepted
            // records); it counts as processed, committed with the others
            assertThat(KafkoTestUtils.records(context, "batches.DLT")).extracting(RecordInterceptorTest::value)
                    .containsExactly("v1", "fail");
            assertThat(committed(context, "batches")).isEqualTo(3L);
        });
    }

    @Test
    void aRecordInterceptorIsNotUsedByABatchListenerNorABatchInterceptorByARecordListener() {
        RecordInterceptorTest.EVENTS.clear();
        runner.withBean(Batcher.class).withBean(RecordInterceptorTest.Recording.class).withBean(OneByOne.class)
                .run(context -> {
                    send(context, "batches", "v1");
                    send(context, "single", "s1");
                    run(context, "batches");
                    run(context, "single");
                    container(context, "single").stop();

                    assertThat(delivered()).containsExactly("intercept:[v1]@batches-0",
                            "listener:[v1]@batches-0", "success:[v1]@batches-0");
                    assertThat(EVENTS).filteredOn(e -> e.startsWith("setup@") || e.startsWith("clear@"))
                            .isNotEmpty().allMatch(e -> e.endsWith("@batches-0"));
                    assertThat(RecordInterceptorTest.EVENTS).containsExactly("intercept:s1", "listener:s1",
                            "success:s1", "after:s1");
                });
    }

    @Test
    void aCompositeStopsInterceptingAtTheFirstNullAndCallsEveryDelegateInOrder() {
        List<String> calls = new ArrayList<>();
        BatchInterceptor first = new BatchInterceptor() {
            @Override
            public @Nullable List<KafkoRecord> intercept(List<KafkoRecord> records) {
                calls.add("1:intercept:" + records.size());
                return records.isEmpty() ? null : records.subList(1, records.size());
            }

            @Override
            public void failure(List<KafkoRecord> records, Exception exception) {
                calls.add("1:failure:" + records.size() + ":" + exception.getMessage());
            }

            @Override
            public void setupThreadState() {
                calls.add("1:setup");
            }
        };
        BatchInterceptor second = new BatchInterceptor() {
            @Override
            public List<KafkoRecord> intercept(List<KafkoRecord> records) {
                calls.add("2:intercept:" + records.size());
                return records;
            }

            @Override
            public void failure(List<KafkoRecord> records, Exception exception) {
                calls.add("2:failure:" + records.size() + ":" + exception.getMessage());
            }

            @Override
            public void setupThreadState() {
                calls.add("2:setup");
            }
        };
        CompositeBatchInterceptor composite = new CompositeBatchInterceptor(first, second);
        KafkoRecord a = new RecordInterceptorTest.Replaced(null, "a");

        assertThat(composite.intercept(List.of())).isNull();
        assertThat(composite.intercept(List.of(a, a))).hasSize(1);
        composite.failure(List.of(a), new IllegalStateException("x"));
        composite.setupThreadState();
        assertThat(calls).containsExactly("1:intercept:0", "1:intercept:2", "2:intercept:1", "1:failure:1:x",
                "2:failure:1:x", "1:setup", "2:setup");
    }

    /** The events but for the thread-state hooks. */
    static List<String> delivered() {
        return EVENTS.stream().filter(e -> !e.startsWith("setup@") && !e.startsWith("clear@")).toList();
    }

    /** Every delivery event comes between a setup and its clear; setups and clears alternate, ending with a clear. */
    static void assertBracketed() {
        boolean in = false;
        for (String e : EVENTS) {
            if (e.startsWith("setup@")) {
                assertThat(in).as("setup twice: %s", EVENTS).isFalse();
                in = true;
            } else if (e.startsWith("clear@")) {
                assertThat(in).as("clear without setup: %s", EVENTS).isTrue();
                in = false;
            } else {
                assertThat(in).as("%s outside a poll: %s", e, EVENTS).isTrue();
            }
        }
        assertThat(in).as("a setup left without its clear: %s", EVENTS).isFalse();
        assertThat(EVENTS).contains("setup@batches-0");
    }

    static String values(List<KafkoRecord> records) {
        return records.stream().map(RecordInterceptorTest::value).toList().toString();
    }

    /** Drops "drop" records; skips a batch that holds "skip". */
    static class Recording implements BatchInterceptor {
        @Override
        public @Nullable List<KafkoRecord> intercept(List<KafkoRecord> records) {
            EVENTS.add("intercept:" + values(records) + "@" + Thread.currentThread().getName());
            if (records.stream().anyMatch(r -> value(r).equals("skip"))) {
                return null;
            }
            return records.stream().filter(r -> !value(r).equals("drop")).toList();
        }

        @Override
        public void success(List<KafkoRecord> records) {
            EVENTS.add("success:" + values(records) + "@" + Thread.currentThread().getName());
        }

        @Override
        public void failure(List<KafkoRecord> records, Exception exception) {
            Throwable cause = exception;
            while (cause.getCause() != null) {
                cause = cause.getCause();
            }
            EVENTS.add("failure:" + values(records) + ":" + cause.getMessage());
        }

        @Override
        public void setupThreadState() {
            EVENTS.add("setup@" + Thread.currentThread().getName());
        }

        @Override
        public void clearThreadState() {
            EVENTS.add("clear@" + Thread.currentThread().getName());
        }
    }

    static class Batcher {
        @KafkoListener(id = "batches", topics = "batches", groupId = "batches", batch = "true",
                autoStartup = "false")
        void on(List<String> values) {
            EVENTS.add("listener:" + values + "@" + Thread.currentThread().getName());
            if (values.contains("fail")) {
                throw new IllegalStateException("whole batch");
            }
            int bad = values.indexOf("bad");
            if (bad >= 0) {
                throw new BatchListenerFailedException("cannot take it", new IllegalStateException("bad record"), bad);
            }
        }
    }

    static class OneByOne {
        @KafkoListener(id = "single", topics = "single", groupId = "single", autoStartup = "false")
        void on(String value) {
            RecordInterceptorTest.inPoll("listener:" + value);
        }
    }
}
