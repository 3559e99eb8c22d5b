package dev.kafko.spring.listener.adapter;

import static dev.kafko.spring.listener.adapter.ListenerTestSupport.template;
import static dev.kafko.spring.listener.adapter.ListenerTestSupport.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.listener.DeadLetterPublishingRecoverer;
import dev.kafko.spring.listener.FailedInvocation;
import dev.kafko.spring.listener.KafkoErrorHandler;
import dev.kafko.spring.listener.MessageListenerContainer;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Mono;

/**
 * B131's open end: a custom {@link KafkoErrorHandler} that catches everything, including the
 * {@link CancellationException} a retry throws when the stop cancelled the stage the retry's listener returned, and
 * "recovers" the record anyway (dead-letters it, returns so that it is committed, or retries again) must not take
 * the record from the stop: it is not committed, not dead-lettered, not retried again, and is delivered again at
 * the next start over the same directory.
 */
class CustomErrorHandlerAtStopTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();
    /** What the custom handler caught from its retries. */
    static final List<Throwable> CAUGHT = new CopyOnWriteArrayList<>();
    static final AtomicReference<Thread> MEMBER = new AtomicReference<>();
    static volatile CountDownLatch waiting = new CountDownLatch(1);
    static volatile boolean hang;
    /** What the custom handler does once its retry failed: dead-letters, skips (returns) or retries again. */
    static volatile String mode;

    @BeforeEach
    void reset() {
        RECEIVED.clear();
        CAUGHT.clear();
        MEMBER.set(null);
        waiting = new CountDownLatch(1);
        hang = true;
    }

    /** A handler that catches everything its retry and its recoverer throw, and returns: "dealt with". */
    @Configuration(proxyBeanMethods = false)
    static class CatchAllHandler {
        @Bean
        KafkoErrorHandler catchAll(LogBackend backend) {
            DeadLetterPublishingRecoverer dlt = new DeadLetterPublishingRecoverer(backend);
            return new KafkoErrorHandler() {
                @Override
                public void handle(List<KafkoRecord> records, Exception failure, FailedInvocation invocation) {
                    int retries = mode.equals("retries-again") ? 3 : 1;
                    for (int i = 0; i < retries; i++) {
                        try {
                            invocation.retry();
                            return;
                        } catch (Exception e) {
                            CAUGHT.add(e);
                        }
                    }
                    if (mode.equals("dead-letters")) {
                        for (KafkoRecord record : records) {
                            try {
                                dlt.recover(record, failure, invocation);
                            } catch (Exception e) {
                                CAUGHT.add(e); // swallowed too: the handler insists it dealt with the record
                            }
                        }
                    }
                }

                @Override
                public void prepare(String topic) {
                    dlt.prepare(topic);
                }
            };
        }
    }

    /** r2's first attempt fails; its retry returns a stage that never completes. */
    static Mono<Void> r2FailsThenHangs() {
        MEMBER.set(Thread.currentThread());
        if (RECEIVED.stream().filter("r2"::equals).count() == 1) {
            return Mono.error(new IllegalStateException("first attempt fails"));
        }
        return Mono.<Void>never().doOnSubscribe(s -> waiting.countDown());
    }

    static class RetryHangs {
        @KafkoListener(id = "custom-handler", topics = "custom-handler")
        Mono<Void> on(String value) {
            RECEIVED.add(value);
            if (value.equals("r2") && hang) {
                return r2FailsThenHangs();
            }
            return Mono.empty();
        }
    }

    static class BatchRetryHangs {
        @KafkoListener(id = "custom-handler-batch", topics = "custom-handler-batch", batch = "true")
        Mono<Void> on(List<String> values) {
            RECEIVED.addAll(values);
            if (values.contains("r2") && hang) {
                return r2FailsThenHangs();
            }
            return Mono.empty();
        }
    }

    /** Acknowledges by hand: every record but r2, whose retry hangs. */
    static class ManualRetryHangs {
        @KafkoListener(id = "custom-handler-manual", topics = "custom-handler-manual", ackMode = "MANUAL")
        Mono<Void> on(String value, Acknowledgment ack) {
            RECEIVED.add(value);
            if (value.equals("r2") && hang) {
                return r2FailsThenHangs();
            }
            ack.acknowledge();
            return Mono.empty();
        }
    }

    /**
     * Under a manual ack mode the exceptions a custom handler catches for a cancelled retry do not promise that the
     * records come again: the listener may have acknowledged them before the cancellation, and then they are committed.
     */
    @Test
    void theCancellationsOfAManualAckListenersRetryDoNotPromiseItsRecordsComeAgain(@TempDir Path dir) {
        mode = "dead-letters";
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withUserConfiguration(CatchAllHandler.class).withBean(ManualRetryHangs.class)
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.listener.shutdown-timeout=300ms");
        runner.run(context -> {
            template(context).send("custom-handler-manual", "r1").join();
            template(context).send("custom-handler-manual", "r2").join();
            assertThat(waiting.await(20, TimeUnit.SECONDS)).as("the retry waits on r2").isTrue();
        });
        await().atMost(Duration.ofSeconds(20)).until(() -> !MEMBER.get().isAlive());
        assertThat(CAUGHT).extracting(Throwable::getMessage).as("the retry's, then the dead letter's").containsExactly(
                "the container stopped past its shutdown timeout and cancelled the stage the listener returned; the"
                        + " records it was for are not committed unless the listener acknowledged them before; those"
                        + " it did not are delivered again when the group next reads them",
                "Listener 'custom-handler-manual' stopped past its shutdown timeout and cancelled the stage its"
                        + " listener returned: custom-handler-manual-0@1 is not dead-lettered, and is not committed"
                        + " unless the listener acknowledged it before; if not, it is delivered again when the group"
                        + " next reads it");
        RECEIVED.clear();
        hang = false;
        runner.run(context -> {
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            await().atMost(Duration.ofSeconds(10)).until(() -> RECEIVED.contains("r2"));
            assertThat(RECEIVED).as("r1 acknowledged and committed; r2 not: delivered again").containsExactly("r2");
        });
    }

    /** The same for a batch listener: the handler that catches everything and returns does not commit the batch. */
    @Test
    void aBatchWhoseRetryTheStopCancelledIsNotCommittedWhenTheHandlerReturns(@TempDir Path dir) {
        mode = "skips";
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withUserConfiguration(CatchAllHandler.class).withBean(BatchRetryHangs.class)
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.listener.shutdown-timeout=300ms");
        runner.run(context -> {
            template(context).send("custom-handler-batch", "r1").join();
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("r1")); // r2 comes in a batch of its own
            template(context).send("custom-handler-batch", "r2").join();
            assertThat(waiting.await(20, TimeUnit.SECONDS)).as("the retry waits on r2").isTrue();
        });
        await().atMost(Duration.ofSeconds(20)).until(() -> !MEMBER.get().isAlive());
        assertThat(CAUGHT).isNotEmpty().allSatisfy(e -> assertThat(e).isInstanceOf(CancellationException.class));
        assertThat(RECEIVED).containsExactly("r1", "r2", "r2");
        RECEIVED.clear();
        hang = false;
        runner.run(context -> {
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            await().atMost(Duration.ofSeconds(10)).until(() -> RECEIVED.contains("r2"));
            assertThat(RECEIVED).as("r2 not committed: delivered again at the next start").containsExactly("r2");
        });
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"dead-letters", "skips", "retries-again"})
    void aRecordWhoseRetryTheStopCancelledIsTheStopsWhateverTheHandlerDoes(String how, @TempDir Path dir) {
        mode = how;
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withUserConfiguration(CatchAllHandler.class).withBean(RetryHangs.class)
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.listener.shutdown-timeout=300ms");
        AtomicReference<MessageListenerContainer> container = new AtomicReference<>();
        runner.run(context -> {
            template(context).send("custom-handler", "r1").join();
            template(context).send("custom-handler", "r2").join();
            assertThat(waiting.await(20, TimeUnit.SECONDS)).as("the retry waits on r2").isTrue();
            container.set(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("custom-handler"));
        }); // closes while the retry waits: the stop overruns its 300 ms and cancels the retry's Mono
        assertThat(container.get().isRunning()).isFalse();
        await().atMost(Duration.ofSeconds(20)).until(() -> !MEMBER.get().isAlive());
        assertThat(CAUGHT).as("what the handler's retries threw").isNotEmpty()
                .allSatisfy(e -> assertThat(e).isInstanceOf(CancellationException.class));
        assertThat(CAUGHT.get(0)).as("the retry the stop cancelled").hasMessageEndingWith("; the records it was for"
                + " are not committed and will be delivered again when the group next reads them");
        if (how.equals("dead-letters")) {
            assertThat(CAUGHT.get(1)).hasMessageEndingWith(": custom-handler-0@1 is not dead-lettered, and is not"
                    + " committed and will be delivered again when the group next reads it");
        } else if (how.equals("retries-again")) {
            assertThat(CAUGHT.get(1)).as("a retry after it").hasMessageEndingWith("; the records are not retried, and"
                    + " are not committed and will be delivered again when the group next reads them");
        }
        assertThat(RECEIVED).as("the delivery and the one retry the stop cancelled; no retry after it")
                .containsExactly("r1", "r2", "r2");
        RECEIVED.clear();
        hang = false;
        runner.run(context -> {
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(KafkoTestUtils.records(context, "custom-handler.DLT")).extracting(r -> text(r.value()))
                    .as("not dead-lettered").isEmpty();
            await().atMost(Duration.ofSeconds(10)).until(() -> RECEIVED.contains("r2"));
            assertThat(RECEIVED).as("r2 not committed: delivered again at the next start").containsExactly("r2");
        });
    }
}
