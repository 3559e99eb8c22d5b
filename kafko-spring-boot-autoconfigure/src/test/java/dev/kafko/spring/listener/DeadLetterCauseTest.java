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
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.handler.annotation.SendTo;

/** What a dead letter names as its cause, and a recoverer built by hand. */
class DeadLetterCauseTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Echo.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.dead-letter.enabled=true",
                    "kafko.listener.retry.max-attempts=1", "kafko.topics.replies.max-record-size=1KB");

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
        });
    }

    @Test
    void aRecovererWithoutInstrumentationIsRefusedAtOnceAndOneWithoutCountsNothing() {
        runner.run(context -> {
            LogBackend backend = context.getBean(LogBackend.class);
            assertThatThrownBy(() -> new DeadLetterPublishingRecoverer(backend, null))
                    .isInstanceOf(NullPointerException.class).hasMessageContaining("KafkoInstrumentation.NOOP");
            assertThat(new DeadLetterPublishingRecoverer(backend)).isNotNull();
        });
    }

    static class Echo {
        @KafkoListener(id = "echo", topics = "requests")
        @SendTo("replies")
        String echo(String request) {
            return request;
        }
    }
}
