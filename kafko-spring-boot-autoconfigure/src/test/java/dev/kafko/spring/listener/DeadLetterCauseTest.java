package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.RecordTooLargeException;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.KafkoInstrumentation;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.messaging.support.MessageBuilder;

/** What a dead letter names as its cause, and a recoverer built by hand. */
class DeadLetterCauseTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Echo.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.dead-letter.enabled=true",
                    "kafko.listener.retry.max-attempts=3", "kafko.topics.replies.max-record-size=1KB");

    @BeforeEach
    void reset() {
        ECHOED.set(0);
    }

    @Test
    void aReplyTooLargeForItsTopicIsNamedByItsCauseNotTheFuturesWrapper() {
        runner.run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            template.send("requests", "x".repeat(2000)).join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            List<KafkoRecord> dead = context.getBean(Kafko.class).consumer("requests.DLT").poll(Duration.ofSeconds(5));
            assertThat(dead).singleElement().satisfies(r -> assertThat(
                    new String(r.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_FQCN)))
                    .isEqualTo(RecordTooLargeException.class.getName()));
            // it would fail the same way every time: the method, which did its work, does not run again
            assertThat(ECHOED).hasValue(1);
        });
    }

    @Test
    void aWrappedExceptionIsNamedWithItsCauseAndAReplayedDeadLetterCarriesOnlyItsNewException() {
        runner.run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            // a dead letter replayed to its topic: it carries the headers of its first dead-lettering
            template.send(MessageBuilder.withPayload("again").setHeader(KafkoHeaders.TOPIC, "wraps")
                    .setHeader(KafkoHeaders.DLT_EXCEPTION_FQCN, "com.example.OldException")
                    .setHeader(KafkoHeaders.DLT_EXCEPTION_CAUSE_FQCN, "com.example.OldCause")
                    .setHeader(KafkoHeaders.DLT_EXCEPTION_MESSAGE, "old message")
                    .setHeader(KafkoHeaders.DLT_EXCEPTION_STACKTRACE, "old stack trace")
                    .setHeader(KafkoHeaders.DLT_ORIGINAL_OFFSET, "7").build()).join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            List<KafkoRecord> dead = context.getBean(Kafko.class).consumer("wraps.DLT").poll(Duration.ofSeconds(5));
            assertThat(dead).singleElement().satisfies(r -> {
                assertThat(values(r, KafkoHeaders.DLT_EXCEPTION_FQCN)).containsExactly(IllegalStateException.class.getName());
                assertThat(values(r, KafkoHeaders.DLT_EXCEPTION_CAUSE_FQCN))
                        .containsExactly(IllegalArgumentException.class.getName());
                assertThat(values(r, KafkoHeaders.DLT_EXCEPTION_MESSAGE)).containsExactly("could not bill again");
                assertThat(values(r, KafkoHeaders.DLT_EXCEPTION_STACKTRACE)).singleElement().asString()
                        .contains("negative amount -5");
                assertThat(values(r, KafkoHeaders.DLT_ORIGINAL_OFFSET)).as("the history, newest last")
                        .containsExactly("7", "0");
            });
        });
    }

    private static List<String> values(KafkoRecord record, String key) {
        return record.headers().headers(key).stream().map(h -> new String(h.value())).toList();
    }

    @Test
    void aRecovererWithoutInstrumentationIsRefusedAtOnceAndOneWithoutCountsNothing() {
        runner.run(context -> {
            LogBackend backend = context.getBean(LogBackend.class);
            assertThatThrownBy(() -> new DeadLetterPublishingRecoverer(backend, (KafkoInstrumentation) null))
                    .isInstanceOf(NullPointerException.class).hasMessageContaining("KafkoInstrumentation.NOOP");
            assertThat(new DeadLetterPublishingRecoverer(backend)).isNotNull();
        });
    }

    static final AtomicInteger ECHOED = new AtomicInteger();

    static class Echo {
        @KafkoListener(id = "echo", topics = "requests")
        @SendTo("replies")
        String echo(String request) {
            ECHOED.incrementAndGet();
            return request;
        }

        @KafkoListener(id = "wraps", topics = "wraps")
        void wraps(String value) {
            throw new IllegalStateException("could not bill " + value,
                    new IllegalArgumentException("negative amount -5"));
        }
    }
}
