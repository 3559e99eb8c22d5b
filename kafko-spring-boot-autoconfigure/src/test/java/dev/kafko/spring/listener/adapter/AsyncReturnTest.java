package dev.kafko.spring.listener.adapter;

import static dev.kafko.spring.listener.adapter.ListenerTestSupport.committed;
import static dev.kafko.spring.listener.adapter.ListenerTestSupport.template;
import static dev.kafko.spring.listener.adapter.ListenerTestSupport.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.handler.annotation.SendTo;

/**
 * A listener that returns a {@link CompletionStage} is done with its record when the stage completes:
 * a stage that fails is retried and recovered as a throw is (it was committed as a success, with no
 * trace); {@code @SendTo} sends what the stage completes with, and an {@link Optional}'s value.
 */
class AsyncReturnTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final Map<String, AtomicInteger> INVOCATIONS = new ConcurrentHashMap<>();
    /** Completes stages later, on a thread of its own, as an asynchronous client would. */
    static final Executor LATER = CompletableFuture.delayedExecutor(20, java.util.concurrent.TimeUnit.MILLISECONDS);

    private final ApplicationContextRunner runner = ListenerTestSupport.deadLetteringRunner(3);

    @BeforeEach
    void reset() {
        INVOCATIONS.clear();
    }

    @Test
    void aStageThatFailsIsRetriedThenDeadLetteredWithItsCause() {
        runner.withBean(Async.class).run(context -> {
            template(context).send("async-in", "fail").join();
            template(context).send("async-in", "fine").join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(INVOCATIONS.get("fail")).as("max-attempts").hasValue(3);
            assertThat(KafkoTestUtils.records(context, "async-in.DLT")).singleElement().satisfies(r -> {
                assertThat(text(r.value())).isEqualTo("fail");
                assertThat(text(r.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_FQCN)))
                        .isEqualTo(IllegalStateException.class.getName());
                assertThat(text(r.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_MESSAGE)))
                        .contains("cannot handle fail later");
            });
            assertThat(KafkoTestUtils.records(context, "async-out")).extracting(r -> text(r.value()))
                    .as("the stage's result, not the future").containsExactly("FINE");
            assertThat(committed(context, "async-in", "async")).isEqualTo(2);
        });
    }

    @Test
    void anOptionalIsSentAsItsValueAndAnEmptyOneSendsNothing() {
        runner.withBean(Async.class).run(context -> {
            for (String value : List.of("a", "", "b")) {
                template(context).send("optional-in", value).join();
            }
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(KafkoTestUtils.records(context, "optional-out")).extracting(r -> text(r.value()))
                    .containsExactly("A", "B");
            assertThat(KafkoTestUtils.records(context, "optional-out"))
                    .allSatisfy(r -> assertThat(r.headers().lastValue(KafkoHeaders.TYPE)).isNull());
        });
    }

    @Test
    void aStageThatCompletesWithNothingSendsNothingAndCommits() {
        runner.withBean(Async.class).run(context -> {
            template(context).send("void-in", "x").join();
            template(context).send("void-in", "y").join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(INVOCATIONS.get("x")).hasValue(1);
            assertThat(committed(context, "void-in", "async-void")).isEqualTo(2);
        });
    }

    @Test
    void aMonoIsSubscribedAwaitedAndRecoveredLikeAFuture() {
        runner.withBean(Reactive.class).run(context -> {
            for (String value : List.of("ok", "fail", "quiet")) {
                template(context).send("mono-in", value).join();
            }
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(Reactive.RAN).as("the work the Mono describes ran").contains("ok", "quiet");
            assertThat(KafkoTestUtils.records(context, "mono-out")).extracting(r -> text(r.value()))
                    .containsExactly("OK");
            assertThat(INVOCATIONS.get("fail")).as("max-attempts").hasValue(3);
            assertThat(KafkoTestUtils.records(context, "mono-in.DLT")).singleElement()
                    .satisfies(r -> assertThat(text(r.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_MESSAGE)))
                            .contains("mono cannot handle fail"));
            assertThat(committed(context, "mono-in", "mono")).isEqualTo(3);
        });
    }

    static class Reactive {
        static final List<String> RAN = new java.util.concurrent.CopyOnWriteArrayList<>();

        @KafkoListener(id = "mono", topics = "mono-in")
        @SendTo("mono-out")
        reactor.core.publisher.Mono<String> handle(String value) {
            INVOCATIONS.computeIfAbsent(value, k -> new AtomicInteger()).incrementAndGet();
            if (value.equals("fail")) {
                return reactor.core.publisher.Mono.error(new IllegalStateException("mono cannot handle " + value));
            }
            return reactor.core.publisher.Mono.fromCallable(() -> {
                RAN.add(value);
                return value;
            }).filter(v -> !v.equals("quiet")).map(String::toUpperCase);
        }
    }

    static class Async {
        @KafkoListener(id = "async", topics = "async-in")
        @SendTo("async-out")
        CompletableFuture<String> handle(String value) {
            INVOCATIONS.computeIfAbsent(value, k -> new AtomicInteger()).incrementAndGet();
            return CompletableFuture.supplyAsync(() -> {
                if (value.equals("fail")) {
                    throw new IllegalStateException("cannot handle " + value + " later");
                }
                return value.toUpperCase();
            }, LATER);
        }

        @KafkoListener(id = "optional", topics = "optional-in")
        @SendTo("optional-out")
        Optional<String> optional(@org.springframework.messaging.handler.annotation.Payload(required = false)
                String value) {
            return value == null || value.isEmpty() ? Optional.empty() : Optional.of(value.toUpperCase());
        }

        @KafkoListener(id = "async-void", topics = "void-in")
        CompletionStage<Void> nothing(String value) {
            INVOCATIONS.computeIfAbsent(value, k -> new AtomicInteger()).incrementAndGet();
            return CompletableFuture.runAsync(() -> { }, LATER);
        }
    }
}
