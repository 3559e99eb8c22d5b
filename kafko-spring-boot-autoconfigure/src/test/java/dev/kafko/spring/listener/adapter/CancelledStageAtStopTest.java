package dev.kafko.spring.listener.adapter;

import static dev.kafko.spring.listener.adapter.ListenerTestSupport.template;
import static dev.kafko.spring.listener.adapter.ListenerTestSupport.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.listener.MessageListenerContainer;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.handler.annotation.SendTo;
import reactor.core.publisher.Mono;

/**
 * A listener's {@code Mono} or {@code CompletableFuture} that does not complete within the shutdown timeout is
 * cancelled by the stop (B128 item 3: its subscription and timers, and the member's thread, outlived the context):
 * the member's thread ends, and the record is not committed, not dead-lettered, not replied to, and is delivered
 * again at the next start.
 */
class CancelledStageAtStopTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();
    static final AtomicInteger CANCELLED = new AtomicInteger();
    static final AtomicReference<Thread> MEMBER = new AtomicReference<>();
    static final AtomicReference<CompletableFuture<String>> FUTURE = new AtomicReference<>();
    static volatile CountDownLatch waiting = new CountDownLatch(1);
    /** Whether the listeners hang (the first context) or answer at once (the restart). */
    static volatile boolean hang;

    @BeforeEach
    void reset() {
        RECEIVED.clear();
        CANCELLED.set(0);
        MEMBER.set(null);
        FUTURE.set(null);
        HANDLED.set(0);
        waiting = new CountDownLatch(1);
        hang = true;
    }

    private static ApplicationContextRunner runner(Path dir, Class<?> listener) {
        return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(listener)
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.listener.shutdown-timeout=300ms",
                        "kafko.listener.retry.max-attempts=2",
                        "kafko.listener.dead-letter.enabled=true");
    }

    /** Runs a context in which the listener hangs on "r2", after it processed "r1"; returns its container. */
    private static MessageListenerContainer hangAndClose(ApplicationContextRunner runner, String id, String topic) {
        AtomicReference<MessageListenerContainer> container = new AtomicReference<>();
        runner.run(context -> {
            template(context).send(topic, "r1").join();
            template(context).send(topic, "r2").join();
            assertThat(waiting.await(20, TimeUnit.SECONDS)).as("the listener waits on r2").isTrue();
            container.set(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer(id));
        }); // closes while the member waits: the stop overruns its 300 ms, then kafko closes
        return container.get();
    }

    private static void assertTheMemberEndedAndR2ComesAgain(ApplicationContextRunner runner,
                                                            MessageListenerContainer container, String topic) {
        assertThat(container.isRunning()).as("the member ended with the close").isFalse();
        await().atMost(Duration.ofSeconds(20)).until(() -> !MEMBER.get().isAlive());
        hang = false;
        runner.run(context -> {
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).as("r1 committed; r2 not: delivered again").containsExactly("r1", "r2", "r2");
            assertThat(KafkoTestUtils.records(context, topic + ".DLT")).as("not dead-lettered").isEmpty();
            assertThat(KafkoTestUtils.records(context, topic + "-out")).extracting(r -> text(r.value()))
                    .as("replied only once processed").containsExactly("R1", "R2");
        });
    }

    /** {@code Mono.never()}, and a {@code Mono.delay} of an hour, whose timer goes with its subscription. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"never-mono", "delayed-mono"})
    void aMonoThatDoesNotCompleteIsCancelledAtTheStopAndItsRecordComesAgain(String topic, @TempDir Path dir) {
        ApplicationContextRunner runner = runner(dir, topic.equals("never-mono") ? NeverMono.class : DelayedMono.class);
        MessageListenerContainer container = hangAndClose(runner, topic, topic);
        assertThat(CANCELLED).as("the Mono's subscription was cancelled").hasValue(1);
        assertTheMemberEndedAndR2ComesAgain(runner, container, topic);
    }

    @Test
    void aFutureThatNeverCompletesIsCancelledAtTheStopAndItsRecordComesAgain(@TempDir Path dir) {
        ApplicationContextRunner runner = runner(dir, NeverFuture.class);
        MessageListenerContainer container = hangAndClose(runner, "never-future", "never-future");
        assertThat(FUTURE.get()).as("the listener's future").isCancelled();
        assertTheMemberEndedAndR2ComesAgain(runner, container, "never-future");
    }

    @Test
    void aRetrysMonoCancelledAtTheStopIsNotDeadLettered(@TempDir Path dir) {
        ApplicationContextRunner runner = runner(dir, RetryHangs.class);
        MessageListenerContainer container = hangAndClose(runner, "retry-hangs", "retry-hangs");
        assertThat(CANCELLED).as("the retry's Mono was cancelled").hasValue(1);
        assertThat(container.isRunning()).isFalse();
        await().atMost(Duration.ofSeconds(20)).until(() -> !MEMBER.get().isAlive());
        hang = false;
        runner.run(context -> {
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            // r2: the delivery that failed, its retry (the last attempt) cancelled, and again after the restart
            assertThat(RECEIVED).containsExactly("r1", "r2", "r2", "r2");
            assertThat(KafkoTestUtils.records(context, "retry-hangs.DLT")).as("not dead-lettered").isEmpty();
        });
    }

    @Test
    void aCancelledMonoGoesNeitherToTheListenersErrorHandlerNorToRecoveryWithoutRetries(@TempDir Path dir) {
        ApplicationContextRunner runner = runner(dir, Handled.class)
                .withPropertyValues("kafko.listener.retry.max-attempts=1")
                .withBean("answerFailures", dev.kafko.spring.listener.KafkoListenerErrorHandler.class,
                        () -> (message, exception) -> {
                            HANDLED.incrementAndGet();
                            return "handled";
                        });
        MessageListenerContainer container = hangAndClose(runner, "handled", "handled");
        assertThat(CANCELLED).hasValue(1);
        assertThat(HANDLED).as("the listener's error handler was not called").hasValue(0);
        assertTheMemberEndedAndR2ComesAgain(runner, container, "handled");
    }

    static final AtomicInteger HANDLED = new AtomicInteger();

    static class Handled {
        @KafkoListener(id = "handled", topics = "handled", errorHandler = "answerFailures")
        @SendTo("handled-out")
        Mono<String> on(String value) {
            RECEIVED.add(value);
            return hangOn(value, Mono.<String>never()).switchIfEmpty(Mono.just(value.toUpperCase()));
        }
    }

    @Test
    void aMonoThatCompletesWithinTheShutdownTimeoutIsNotCancelled(@TempDir Path dir) {
        runner(dir, NeverMono.class).withPropertyValues("kafko.listener.shutdown-timeout=10s").run(context -> {
            hang = false;
            template(context).send("never-mono", "r1").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
        });
        assertThat(CANCELLED).hasValue(0);
        assertThat(RECEIVED).containsExactly("r1");
    }

    private static <T> Mono<T> hangOn(String value, Mono<T> never) {
        if (value.equals("r2") && hang) {
            MEMBER.set(Thread.currentThread());
            return never.doOnSubscribe(s -> waiting.countDown()).doOnCancel(CANCELLED::incrementAndGet);
        }
        return Mono.empty();
    }

    static class NeverMono {
        @KafkoListener(id = "never-mono", topics = "never-mono")
        @SendTo("never-mono-out")
        Mono<String> on(String value) {
            RECEIVED.add(value);
            return hangOn(value, Mono.<String>never()).switchIfEmpty(Mono.just(value.toUpperCase()));
        }
    }

    static class DelayedMono {
        @KafkoListener(id = "delayed-mono", topics = "delayed-mono")
        @SendTo("delayed-mono-out")
        Mono<String> on(String value) {
            RECEIVED.add(value);
            return hangOn(value, Mono.delay(Duration.ofHours(1)).map(x -> "late"))
                    .switchIfEmpty(Mono.just(value.toUpperCase()));
        }
    }

    static class NeverFuture {
        @KafkoListener(id = "never-future", topics = "never-future")
        @SendTo("never-future-out")
        CompletableFuture<String> on(String value) {
            RECEIVED.add(value);
            if (value.equals("r2") && hang) {
                MEMBER.set(Thread.currentThread());
                CompletableFuture<String> never = new CompletableFuture<>();
                FUTURE.set(never);
                waiting.countDown();
                return never;
            }
            return CompletableFuture.completedFuture(value.toUpperCase());
        }
    }

    static class RetryHangs {
        @KafkoListener(id = "retry-hangs", topics = "retry-hangs")
        Mono<Void> on(String value) {
            RECEIVED.add(value);
            if (value.equals("r2") && hang) {
                MEMBER.set(Thread.currentThread());
                if (RECEIVED.stream().filter("r2"::equals).count() == 1) {
                    return Mono.error(new IllegalStateException("first attempt fails"));
                }
                return Mono.<Void>never().doOnSubscribe(s -> waiting.countDown())
                        .doOnCancel(CANCELLED::incrementAndGet);
            }
            return Mono.empty();
        }
    }
}
