package dev.kafko.spring.listener.adapter;

import static dev.kafko.spring.listener.adapter.ListenerTestSupport.committed;
import static dev.kafko.spring.listener.adapter.ListenerTestSupport.template;
import static dev.kafko.spring.listener.adapter.ListenerTestSupport.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.OutgoingRecord;
import dev.kafko.spring.Order;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.listener.KafkoListenerErrorHandler;
import dev.kafko.spring.listener.ListenerExecutionFailedException;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.Message;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.handler.annotation.SendTo;

/**
 * {@code @KafkoListener(errorHandler = ...)}: the {@link KafkoListenerErrorHandler} gets what the method
 * threw with the delivery's message; what it returns is the method's result (sent to {@code @SendTo})
 * and the record is committed without retries; what it throws goes on to the container's retries and
 * dead-letter topic.
 */
class KafkoListenerErrorHandlerTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final Map<String, AtomicInteger> INVOCATIONS = new ConcurrentHashMap<>();
    /** What the handlers saw: "topic@offset cause-class: cause-message". */
    static final List<String> HANDLED = new CopyOnWriteArrayList<>();

    /** Answers a failure with "fallback for <value>", and with nothing for a value starting with "quiet". */
    static final KafkoListenerErrorHandler FALLBACK = (message, exception) -> {
        HANDLED.add(seen(message, exception));
        if (message.getPayload() instanceof List<?> batch) {
            return batch.stream().map(v -> "fallback for " + v).toList();
        }
        String value = new String((byte[]) message.getPayload(), StandardCharsets.UTF_8);
        return value.startsWith("quiet") ? null : "fallback for " + value;
    };

    /** Gives up with an exception of its own. */
    static final KafkoListenerErrorHandler GIVING_UP = (message, exception) -> {
        HANDLED.add(seen(message, exception));
        throw new IllegalStateException("the handler gave up too", exception.getCause());
    };

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean("fallback", KafkoListenerErrorHandler.class, () -> FALLBACK)
            .withBean("givingUp", KafkoListenerErrorHandler.class, () -> GIVING_UP)
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.retry.max-attempts=3",
                    "app.error-handler=fallback");

    @BeforeEach
    void reset() {
        INVOCATIONS.clear();
        HANDLED.clear();
    }

    @Test
    void whatTheHandlerReturnsIsSentToSendToInsteadOfRetryingAndTheRecordIsCommitted() {
        runner.withBean(Failing.class).run(context -> {
            for (String value : List.of("fine", "fail", "quiet fail")) {
                template(context).send("prices", value).join();
            }
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(KafkoTestUtils.records(context, "priced")).extracting(r -> text(r.value()))
                    .containsExactly("FINE", "fallback for fail");
            assertThat(INVOCATIONS.get("fail")).as("no retries").hasValue(1);
            assertThat(INVOCATIONS.get("quiet fail")).hasValue(1);
            assertThat(HANDLED).containsExactly("prices@1 IllegalStateException: cannot price fail",
                    "prices@2 IllegalStateException: cannot price quiet fail");
            assertThat(committed(context, "prices", "pricing")).isEqualTo(3);
        });
    }

    @Test
    void whatTheHandlerThrowsGoesToTheContainersRetriesAndDeadLetterTopic() {
        runner.withBean(Failing.class).withPropertyValues("kafko.listener.dead-letter.enabled=true").run(context -> {
            template(context).send("hopeless", "fail").join();
            template(context).send("hopeless", "fine").join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(INVOCATIONS.get("fail")).as("max-attempts").hasValue(3);
            assertThat(HANDLED).hasSize(3)
                    .allMatch(h -> h.equals("hopeless@0 IllegalStateException: cannot price fail"));
            assertThat(KafkoTestUtils.records(context, "hopeless.DLT")).singleElement().satisfies(r -> {
                assertThat(text(r.value())).isEqualTo("fail");
                assertThat(text(r.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_FQCN)))
                        .isEqualTo(IllegalStateException.class.getName());
                assertThat(text(r.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_STACKTRACE)))
                        .contains("the handler gave up too");
            });
            assertThat(KafkoTestUtils.records(context, "hopeless-priced")).extracting(r -> text(r.value()))
                    .containsExactly("FINE");
            assertThat(committed(context, "hopeless", "hopeless")).isEqualTo(2);
        });
    }

    @Test
    void aPayloadThatCannotBeConvertedReachesTheHandlerToo() {
        runner.withBean(Typed.class).run(context -> {
            template(context).send("typed", "not json").join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(HANDLED).singleElement().satisfies(h -> assertThat(h).startsWith("typed@0 "
                    + MessageConversionException.class.getSimpleName()));
            assertThat(KafkoTestUtils.records(context, "typed-replies")).extracting(r -> text(r.value()))
                    .containsExactly("fallback for not json");
        });
    }

    @Test
    void aBatchListenersHandlerGetsTheBatchAndItsResultIsSentAsARecordPerElement() {
        runner.withBean(FailingBatch.class).run(context -> {
            // one append, so that one poll returns the whole batch
            context.getBean(Kafko.class).producer("batches").sendBatch(List.of(
                    OutgoingRecord.of(null, "a".getBytes(StandardCharsets.UTF_8)),
                    OutgoingRecord.of(null, "b".getBytes(StandardCharsets.UTF_8)))).join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(HANDLED).containsExactly("[batches, batches]@[0, 1] IllegalStateException: no batches today");
            assertThat(KafkoTestUtils.records(context, "batch-replies")).extracting(r -> text(r.value()))
                    .containsExactly("fallback for a", "fallback for b");
            assertThat(committed(context, "batches", "failing-batch")).isEqualTo(2);
        });
    }

    @Test
    void anUnknownErrorHandlerBeanFailsTheStartNamingTheListenerAndTheBean() {
        runner.withBean(UnknownHandler.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("@KafkoListener 'lost-handler' on UnknownHandler.on: errorHandler 'nope' is"
                        + " no KafkoListenerErrorHandler bean; the KafkoListenerErrorHandler beans are [fallback,"
                        + " givingUp]"));
    }

    private static String seen(Message<?> message, ListenerExecutionFailedException exception) {
        Throwable cause = exception.getCause();
        return message.getHeaders().get(KafkoHeaders.RECEIVED_TOPIC) + "@"
                + message.getHeaders().get(KafkoHeaders.OFFSET) + " " + cause.getClass().getSimpleName() + ": "
                + cause.getMessage();
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static String price(String value) {
        INVOCATIONS.computeIfAbsent(value, k -> new AtomicInteger()).incrementAndGet();
        if (value.contains("fail")) {
            throw new IllegalStateException("cannot price " + value);
        }
        return value.toUpperCase();
    }

    static class Failing {
        @KafkoListener(id = "pricing", topics = "prices", errorHandler = "${app.error-handler}")
        @SendTo("priced")
        String pricing(String value) {
            return price(value);
        }

        @KafkoListener(id = "hopeless", topics = "hopeless", errorHandler = "#{@givingUp}")
        @SendTo("hopeless-priced")
        String hopeless(String value) {
            return price(value);
        }
    }

    static class Typed {
        @KafkoListener(id = "typed", topics = "typed", errorHandler = "fallback")
        @SendTo("typed-replies")
        String typed(Order order) {
            return order.id();
        }
    }

    static class FailingBatch {
        @KafkoListener(id = "failing-batch", topics = "batches", batch = "true", errorHandler = "fallback")
        @SendTo("batch-replies")
        List<String> batch(List<String> values) {
            throw new IllegalStateException("no batches today");
        }
    }

    static class UnknownHandler {
        @KafkoListener(id = "lost-handler", topics = "t", errorHandler = "nope")
        void on(String value) {
        }
    }
}
