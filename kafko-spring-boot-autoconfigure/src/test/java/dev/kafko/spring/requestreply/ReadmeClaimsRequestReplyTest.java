package dev.kafko.spring.requestreply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.RecordMessageConverter;
import dev.kafko.spring.support.SendResult;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.messaging.support.MessageBuilder;

/** Claims of the README's section "Request and reply", each test quoting the sentence it checks. */
class ReadmeClaimsRequestReplyTest {

    static final Duration WAIT = Duration.ofSeconds(20);

    @Configuration(proxyBeanMethods = false)
    static class Config {
        @Bean
        Echo echo() {
            return new Echo();
        }

        @Bean
        ReplyingKafkoTemplate<String, String, String> echoes(KafkoTemplate<String, String> kafkoTemplate,
                                                             LogBackend backend, RecordMessageConverter converter) {
            return new ReplyingKafkoTemplate<>(kafkoTemplate, backend, converter, "echo.replies", String.class);
        }
    }

    static class Echo {
        @KafkoListener(id = "echo", topics = "echo")
        @SendTo("${app.no-reply-topic:}")
        String echo(String text) {
            return "echo " + text;
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withUserConfiguration(Config.class)
            .withPropertyValues("kafko.ephemeral=true");

    /**
     * "Each request carries the template's reply topic and a fresh correlation id (replacing any its message had)",
     * and "A {@code @SendTo} that names no topic ({@code @SendTo}, {@code @SendTo("")}, or a value that resolves to
     * nothing) replies ... to the topic in the request's {@code KafkoHeaders.REPLY_TOPIC} header".
     */
    @Test
    @SuppressWarnings("unchecked")
    void aRequestsOwnCorrelationIdIsReplacedAndASendToResolvingToNothingRepliesToTheHeader() {
        runner.run(context -> {
            ReplyingKafkoTemplate<String, String, String> echoes = context.getBean(ReplyingKafkoTemplate.class);
            Message<String> request = MessageBuilder.withPayload("hi").setHeader(KafkoHeaders.TOPIC, "echo")
                    .setHeader(KafkoHeaders.CORRELATION_ID, "mine").setHeader(KafkoHeaders.REPLY_TOPIC, "elsewhere")
                    .build();
            RequestReplyFuture<String, String, String> future = echoes.sendAndReceive(request);
            assertThat(future.get(20, TimeUnit.SECONDS)).isEqualTo("echo hi");

            SendResult<String, String> sent = future.getSendFuture().get();
            KafkoRecord stored = context.getBean(KafkoTemplate.class).receive("echo", sent.partition(), sent.offset());
            assertThat(stored).isNotNull();
            assertThat(text(stored.headers().lastValue(KafkoHeaders.REPLY_TOPIC))).isEqualTo("echo.replies");
            assertThat(text(stored.headers().lastValue(KafkoHeaders.CORRELATION_ID))).isNotEqualTo("mine");
            assertThat(context.getBean(Kafko.class).topic("elsewhere")).isEmpty();
        });
    }

    /**
     * "a thread of the template ... reads the reply topic ..., as a group of its own that commits nothing" and "It
     * wraps a {@code KafkoTemplate} rather than being one, so declaring it leaves the auto-configured template in
     * place."
     */
    @Test
    @SuppressWarnings("unchecked")
    void theTemplatesGroupCommitsNothingAndTheAutoConfiguredTemplateStays() {
        runner.run(context -> {
            assertThat(context.getBeansOfType(KafkoTemplate.class)).containsOnlyKeys("kafkoTemplate");
            ReplyingKafkoTemplate<String, String, String> echoes = context.getBean(ReplyingKafkoTemplate.class);
            for (int i = 0; i < 3; i++) {
                assertThat(echoes.sendAndReceive("echo", "r" + i).get(20, TimeUnit.SECONDS)).isEqualTo("echo r" + i);
            }
            KafkoTestUtils.waitForListeners(context, WAIT);
            Kafko kafko = context.getBean(Kafko.class);
            assertThat(kafko.groups("echo.replies")).isNotEmpty().allSatisfy(group ->
                    assertThat(kafko.groupInfo("echo.replies", group).committed()).as(group).isEmpty());
        });
    }

    /** The header names: "{@code kafko_replyTopic}", "{@code kafko_correlationId}", "{@code kafko_replyPartition}". */
    @Test
    void theRequestHeadersHaveTheNamesTheReadmeGives() {
        assertThat(KafkoHeaders.REPLY_TOPIC).isEqualTo("kafko_replyTopic");
        assertThat(KafkoHeaders.CORRELATION_ID).isEqualTo("kafko_correlationId");
        assertThat(KafkoHeaders.REPLY_PARTITION).isEqualTo("kafko_replyPartition");
    }

    private static @Nullable String text(byte @Nullable [] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }
}
