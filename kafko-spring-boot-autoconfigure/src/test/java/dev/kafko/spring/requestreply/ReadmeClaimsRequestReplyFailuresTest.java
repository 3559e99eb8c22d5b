package dev.kafko.spring.requestreply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.InvalidNameException;
import dev.kafko.InvalidPartitionException;
import dev.kafko.KafkoException;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.listener.KafkoListenerErrorHandler;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.RecordMessageConverter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.messaging.support.MessageBuilder;

/**
 * Claims of the README's section "Request and reply" on how a request fails (a listener that throws, a request the
 * template refuses at once, a stop) and on how a batch listener answers, each test quoting the sentence it checks.
 */
class ReadmeClaimsRequestReplyFailuresTest {

    static final Duration WAIT = Duration.ofSeconds(20);

    @Configuration(proxyBeanMethods = false)
    static class Config {
        @Bean
        Listeners listeners() {
            return new Listeners();
        }

        @Bean
        KafkoListenerErrorHandler answerTheFailure() {
            return (message, failure) -> "failed: " + failure.getCause().getMessage();
        }

        @Bean
        ReplyingKafkoTemplate<String, String, String> requests(KafkoTemplate<String, String> kafkoTemplate,
                                                               LogBackend backend, RecordMessageConverter converter) {
            return new ReplyingKafkoTemplate<>(kafkoTemplate, backend, converter, "answers", String.class);
        }
    }

    static class Listeners {
        @KafkoListener(id = "throws", topics = "throws")
        @SendTo
        String fails(String text) {
            throw new IllegalStateException("no answer to " + text);
        }

        @KafkoListener(id = "handled", topics = "handled", errorHandler = "answerTheFailure")
        @SendTo
        String failsHandled(String text) {
            throw new IllegalStateException("no answer to " + text);
        }

        @KafkoListener(id = "batchMessages", topics = "batch-messages", batch = "true")
        @SendTo("answers")
        List<Message<?>> answerEach(List<Message<String>> requests) {
            List<Message<?>> replies = new ArrayList<>();
            for (Message<String> request : requests) {
                replies.add(MessageBuilder.withPayload("batch " + request.getPayload())
                        .setHeader(KafkoHeaders.CORRELATION_ID, request.getHeaders().get(KafkoHeaders.CORRELATION_ID))
                        .build());
            }
            return replies;
        }

        @KafkoListener(id = "batchValues", topics = "batch-values", batch = "true")
        @SendTo("answers")
        List<String> answerNone(List<String> requests) {
            return requests;
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withUserConfiguration(Config.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.throws.partitions=1",
                    "kafko.topics.handled.partitions=1", "kafko.topics.batch-messages.partitions=1",
                    "kafko.topics.batch-values.partitions=1", "kafko.topics.answers.partitions=3");

    /**
     * "A listener that throws sends no reply, as in spring-kafka: its request fails at its timeout ..., unless the
     * listener's {@code errorHandler} (a {@code KafkoListenerErrorHandler}) returns a value, which is the reply".
     */
    @Test
    @SuppressWarnings("unchecked")
    void aListenerThatThrowsAnswersNothingUnlessItsErrorHandlerReturnsAReply() {
        runner.run(context -> {
            ReplyingKafkoTemplate<String, String, String> requests = context.getBean(ReplyingKafkoTemplate.class);
            RequestReplyFuture<String, String, String> unanswered = requests.sendAndReceive("throws", null, null, "a",
                    Duration.ofMillis(500));
            assertThatThrownBy(() -> unanswered.get(WAIT.toSeconds(), TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(KafkoReplyTimeoutException.class);
            assertThat(requests.sendAndReceive("handled", "b").get(WAIT.toSeconds(), TimeUnit.SECONDS))
                    .isEqualTo("failed: no answer to b");
        });
    }

    /**
     * "one the template refuses at once (a topic name outside the rule, a partition its topic lacks, no topic and no
     * default topic ...) throws that exception from {@code sendAndReceive} itself, as it is ..., and nothing waits".
     */
    @Test
    @SuppressWarnings("unchecked")
    void aRequestRefusedAtOnceThrowsItsOwnExceptionAndNothingWaits() {
        runner.run(context -> {
            ReplyingKafkoTemplate<String, String, String> requests = context.getBean(ReplyingKafkoTemplate.class);
            assertThatThrownBy(() -> requests.sendAndReceive("", "x")).isInstanceOf(InvalidNameException.class);
            assertThatThrownBy(() -> requests.sendAndReceive("handled", 7, null, "x", Duration.ofSeconds(1)))
                    .isInstanceOf(InvalidPartitionException.class);
            assertThatThrownBy(() -> requests.sendAndReceive(MessageBuilder.withPayload("x").build()))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("default topic");
            assertThat(requests.pendingReplies()).isZero();
        });
    }

    /**
     * "a stop fails the requests still waiting ... with a {@code KafkoException} saying the template stopped, not a
     * timeout".
     */
    @Test
    @SuppressWarnings("unchecked")
    void aStopFailsTheWaitingRequestsWithAKafkoExceptionThatIsNoTimeout() {
        runner.run(context -> {
            ReplyingKafkoTemplate<String, String, String> requests = context.getBean(ReplyingKafkoTemplate.class);
            RequestReplyFuture<String, String, String> waiting = requests.sendAndReceive("nobody-answers", null, null,
                    "x", Duration.ofMinutes(5));
            requests.stop();
            assertThatThrownBy(() -> waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS)).cause()
                    .isExactlyInstanceOf(KafkoException.class).hasMessageContaining("stopped");
        });
    }

    /**
     * "A batch listener answers requests only with {@code Message}s that carry each request's
     * {@code KafkoHeaders.CORRELATION_ID} ...; what else it returns carries no correlation id and answers nothing."
     */
    @Test
    @SuppressWarnings("unchecked")
    void aBatchListenerAnswersEachRequestWithAMessageCarryingItsCorrelationId() {
        runner.run(context -> {
            ReplyingKafkoTemplate<String, String, String> requests = context.getBean(ReplyingKafkoTemplate.class);
            List<RequestReplyFuture<String, String, String>> answered = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                answered.add(requests.sendAndReceive("batch-messages", "q" + i));
            }
            for (int i = 0; i < 20; i++) {
                assertThat(answered.get(i).get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo("batch q" + i);
            }
            RequestReplyFuture<String, String, String> unanswered = requests.sendAndReceive("batch-values", null, null,
                    "v", Duration.ofMillis(500));
            assertThatThrownBy(() -> unanswered.get(WAIT.toSeconds(), TimeUnit.SECONDS)).cause()
                    .isInstanceOf(KafkoReplyTimeoutException.class);
        });
    }
}
