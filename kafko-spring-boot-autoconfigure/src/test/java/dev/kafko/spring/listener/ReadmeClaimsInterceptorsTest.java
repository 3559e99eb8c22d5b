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
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Claims of the README's section on record and batch interceptors that no other test checks, each test quoting the
 * sentence it checks.
 */
class ReadmeClaimsInterceptorsTest {

    static final List<String> SEEN = new CopyOnWriteArrayList<>();
    /** What the listener threw, and what the interceptor's {@code failure} was given. */
    static final AtomicReference<Exception> THROWN = new AtomicReference<>();
    static final AtomicReference<Exception> GIVEN = new AtomicReference<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.retry.max-attempts=2",
                    "kafko.listener.retry.backoff=0s");

    @BeforeEach
    void reset() {
        SEEN.clear();
        THROWN.set(null);
        GIVEN.set(null);
    }

    /** The README's example: the record's place is in the MDC while the listener runs, and gone after it. */
    @Test
    void theReadmesTracingInterceptorPutsTheOffsetInTheMdcForTheListener() {
        // a second interceptor after the README's one tells what the MDC holds once its afterRecord ran
        RecordInterceptor checking = new RecordInterceptor() {
            @Override
            public KafkoRecord intercept(KafkoRecord record) {
                return record;
            }

            @Override
            public void afterRecord(KafkoRecord record) {
                SEEN.add("after " + value(record) + ": " + MDC.get("offset"));
            }
        };
        runner.withBean("tracing", RecordInterceptor.class, () -> new CompositeRecordInterceptor(tracing(), checking))
                .withBean(Traced.class)
                .run(context -> {
                    send(context, "traced", "a", "b");
                    run(context, "traced");
                    assertThat(SEEN).containsExactly("a traced-0@0", "after a: null", "b traced-0@1",
                            "after b: null");
                });
    }

    /** The README's example, as it is written there. */
    static RecordInterceptor tracing() {
        return new RecordInterceptor() {
            public KafkoRecord intercept(KafkoRecord record) {
                MDC.put("offset", record.topic() + "-" + record.partition() + "@" + record.offset());
                return record;                       // or another record, or null to skip it
            }
            public void afterRecord(KafkoRecord record) {
                MDC.remove("offset");
            }
        };
    }

    static class Traced {
        @KafkoListener(id = "traced", topics = "traced", autoStartup = "false")
        void on(String value) {
            SEEN.add(value + " " + MDC.get("offset"));
        }
    }

    /**
     * "An exception from {@code intercept} fails the attempt as the listener's would ...; one from any other method is
     * logged and changes nothing": every record is delivered once, a failed one retried as the error handler says,
     * everything committed, and the member goes on.
     */
    @Test
    void anExceptionFromAnyMethodButInterceptIsLoggedAndChangesNothing() {
        runner.withBean("throwing", RecordInterceptor.class, Throwing::new).withBean(Flaky.class)
                .run(context -> {
                    send(context, "flaky", "a", "flaky", "b");
                    run(context, "flaky");
                    send(context, "flaky", "c"); // a later poll: the member went on
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(SEEN).containsExactly("a", "flaky", "flaky", "b", "c");
                    assertThat(committed(context, "flaky")).isEqualTo(4L);
                    assertThat(container(context, "flaky").isRunning()).isTrue();
                    assertThat(container(context, "flaky").isInExpectedState()).isTrue();
                });
    }

    /** Throws from every method but {@code intercept}. */
    static class Throwing implements RecordInterceptor {
        @Override
        public KafkoRecord intercept(KafkoRecord record) {
            return record;
        }

        @Override
        public void success(KafkoRecord record) {
            throw new IllegalStateException("success throws");
        }

        @Override
        public void failure(KafkoRecord record, Exception exception) {
            throw new IllegalStateException("failure throws");
        }

        @Override
        public void afterRecord(KafkoRecord record) {
            throw new IllegalStateException("afterRecord throws");
        }

        @Override
        public void setupThreadState() {
            throw new IllegalStateException("setupThreadState throws");
        }

        @Override
        public void clearThreadState() {
            throw new IllegalStateException("clearThreadState throws");
        }
    }

    static class Flaky {
        private boolean failed;

        @KafkoListener(id = "flaky", topics = "flaky", autoStartup = "false")
        void on(String value) {
            SEEN.add(value);
            if (value.equals("flaky") && !failed) {
                failed = true;
                throw new IllegalStateException("first attempt fails");
            }
        }
    }

    /**
     * "{@code failure} is given the exception the method threw (spring-kafka's is the
     * {@code ListenerExecutionFailedException} around it: ported code that reads its {@code getCause()} reads the
     * exception itself here)."
     */
    @Test
    void failureIsGivenTheExceptionTheListenerThrewItself() {
        runner.withPropertyValues("kafko.listener.retry.max-attempts=1")
                .withBean("given", RecordInterceptor.class, () -> new RecordInterceptor() {
                    @Override
                    public KafkoRecord intercept(KafkoRecord record) {
                        return record;
                    }

                    @Override
                    public void failure(KafkoRecord record, Exception exception) {
                        GIVEN.set(exception);
                    }
                })
                .withBean(Refusing.class)
                .run(context -> {
                    send(context, "refusing", "x");
                    run(context, "refusing");
                    assertThat(THROWN.get()).isNotNull();
                    assertThat(GIVEN.get()).isSameAs(THROWN.get());
                });
    }

    static class Refusing {
        @KafkoListener(id = "refusing", topics = "refusing", autoStartup = "false")
        void on(String value) {
            IllegalArgumentException thrown = new IllegalArgumentException("refused " + value);
            THROWN.set(thrown);
            throw thrown;
        }
    }

    /**
     * "A batch interceptor that returns {@code null} or an empty list skips the batch": the listener is not called,
     * and the polled records are committed.
     */
    @Test
    void aBatchInterceptorThatReturnsAnEmptyListSkipsTheBatch() {
        runner.withBean("emptying", BatchInterceptor.class, () -> new BatchInterceptor() {
                    @Override
                    public @Nullable List<KafkoRecord> intercept(List<KafkoRecord> records) {
                        SEEN.add("intercept:" + records.stream().map(RecordInterceptorTest::value).toList());
                        return records.stream().filter(r -> !value(r).startsWith("drop")).toList();
                    }

                    @Override
                    public void success(List<KafkoRecord> records) {
                        SEEN.add("success");
                    }
                })
                .withBean(Batches.class)
                .run(context -> {
                    send(context, "emptied", "drop-1", "drop-2");
                    run(context, "emptied");
                    assertThat(SEEN).containsExactly("intercept:[drop-1, drop-2]");
                    assertThat(committed(context, "emptied")).isEqualTo(2L);
                });
    }

    static class Batches {
        @KafkoListener(id = "emptied", topics = "emptied", batch = "true", autoStartup = "false")
        void on(List<String> values) {
            SEEN.add("listener:" + values);
        }
    }
}
