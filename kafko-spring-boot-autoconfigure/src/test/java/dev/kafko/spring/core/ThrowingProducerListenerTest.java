package dev.kafko.spring.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.kafko.Kafko;
import dev.kafko.RecordTooLargeException;
import dev.kafko.spring.LogCapture;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.support.ProducerListener;
import dev.kafko.spring.support.SendResult;
import dev.kafko.spring.test.KafkoTestUtils;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** A producer listener that throws changes nothing of a send's outcome: the future reports what the log did. */
class ThrowingProducerListenerTest {

    @RegisterExtension
    final LogCapture log = new LogCapture(KafkoTemplate.class);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean("failing", ProducerListener.class, Failing::new)
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.small.max-record-size=64");

    @Test
    void aListenerThatThrowsOnSuccessLeavesTheSendSucceededAndIsLogged() {
        runner.run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            SendResult<Object, Object> result = template.send("small", "k", "v").join();
            assertThat(result.offset()).isZero();
            assertThat(KafkoTestUtils.records(context.getBean(Kafko.class), "small")).hasSize(1);
            assertThat(log.events()).anySatisfy(e -> assertThat(e.getFormattedMessage())
                    .contains("The producer listener of template 'kafkoTemplate' failed on the send to small-0 at"
                            + " offset 0; the send succeeded"));
        });
    }

    @Test
    void aListenerThatThrowsOnErrorLeavesTheSendsOwnFailure() {
        runner.run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            assertThatThrownBy(() -> template.send("small", "x".repeat(100)).join())
                    .isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(RecordTooLargeException.class);
            assertThat(log.events()).anySatisfy(e -> assertThat(e.getFormattedMessage())
                    .contains("The producer listener of template 'kafkoTemplate' failed on a failed send to small"));
        });
    }

    @Test
    void aListenerThatThrowsOnEverySendLogsItsStackTraceOnceNotPerSend() {
        runner.run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            for (int i = 0; i < 50; i++) {
                template.send("steady", "k", "v" + i).join();
                assertThatThrownBy(() -> template.send("small", "x".repeat(100)).join())
                        .hasCauseInstanceOf(RecordTooLargeException.class);
            }
            List<ILoggingEvent> onSuccess = log.events().stream()
                    .filter(e -> e.getFormattedMessage().contains("the send succeeded")).toList();
            List<ILoggingEvent> onError = log.events().stream()
                    .filter(e -> e.getFormattedMessage().contains("failed on a failed send")).toList();
            assertThat(onSuccess).as("every failure is logged").hasSize(50);
            assertThat(onError).as("every failure is logged").hasSize(50);
            assertThat(onSuccess).as("one stack trace a minute, as a failed send's")
                    .filteredOn(e -> e.getThrowableProxy() != null).hasSize(1);
            assertThat(onError).filteredOn(e -> e.getThrowableProxy() != null).hasSize(1);
            assertThat(onSuccess.get(1).getFormattedMessage()).contains("java.lang.IllegalStateException: audit store"
                    + " down").contains("stack trace logged with an earlier one");
        });
    }

    @Test
    void anAssertionErrorOfAListenerLeavesTheSendSucceededToo() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean("asserting", ProducerListener.class, () -> new ProducerListener<Object, Object>() {
                    @Override
                    public void onSuccess(SendResult<Object, Object> result) {
                        throw new AssertionError("a test's assertion in its producer listener");
                    }
                }).withPropertyValues("kafko.ephemeral=true").run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            assertThat(template.send("plain", "k", "v").join().offset()).isZero();
        });
    }

    static class Failing implements ProducerListener<Object, Object> {
        @Override
        public void onSuccess(SendResult<Object, Object> result) {
            throw new IllegalStateException("audit store down");
        }

        @Override
        public void onError(String topic, @Nullable Integer partition, @Nullable Object key, @Nullable Object value,
                            Throwable exception) {
            throw new IllegalStateException("alerting down");
        }
    }
}
