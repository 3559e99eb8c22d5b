package dev.kafko.spring.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.RecordTooLargeException;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.requestreply.ReplyingKafkoTemplate;
import dev.kafko.spring.requestreply.RequestReplyFuture;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.SendResult;
import dev.kafko.spring.support.RecordMessageConverter;
import dev.kafko.spring.test.KafkoTestUtils;
import dev.kafko.spring.transaction.KafkoTransactionManager;
import dev.kafko.spring.transaction.TransactionRolledBackException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.messaging.support.MessageBuilder;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Every way a send's future reaches its caller hands its callbacks the failure itself (B287), and what the starter does
 * with such a future still reads it: {@code send(Message)}, {@code sendDefault}, a {@link KafkoTransactionManager}'s
 * rolled-back transaction, a request whose send failed, and a listener that returns a send's future that fails.
 */
class SendFailurePathsTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.small.max-record-size=100",
                    "kafko.topics.t.partitions=1", "kafko.template.default-topic=small");

    @Test
    void aMessageAndADefaultTopicSendHandTheRefusalItself() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);

            assertThat(failureOf(template.send(MessageBuilder.withPayload("x".repeat(200))
                    .setHeader(KafkoHeaders.TOPIC, "small").build()))).isInstanceOf(RecordTooLargeException.class);
            assertThat(failureOf(template.sendDefault("x".repeat(200))))
                    .isInstanceOf(RecordTooLargeException.class);
        });
    }

    @Test
    void aSendOfATransactionManagersRolledBackTransactionHandsTheRollbackItself() {
        runner.withPropertyValues("kafko.template.transactional=true").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            TransactionTemplate transactions = new TransactionTemplate(
                    new KafkoTransactionManager(context.getBean(LogBackend.class)));
            AtomicReference<CompletableFuture<SendResult<Object, Object>>> sent = new AtomicReference<>();
            transactions.executeWithoutResult(status -> {
                sent.set(template.send("t", "a"));
                status.setRollbackOnly();
            });

            assertThat(failureOf(sent.get())).isInstanceOf(TransactionRolledBackException.class);
        });
    }

    @Test
    void aRequestWhoseSendFailedFailsWithTheRefusalItself() {
        runner.run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<String, String> template = context.getBean(KafkoTemplate.class);
            ReplyingKafkoTemplate<String, String, String> requester = new ReplyingKafkoTemplate<>(template,
                    context.getBean(LogBackend.class), context.getBean(RecordMessageConverter.class), "replies",
                    String.class);
            requester.start();
            try {
                RequestReplyFuture<String, String, String> future = requester.sendAndReceive("small", "x".repeat(200));

                assertThat(failureOf(future.getSendFuture())).isInstanceOf(RecordTooLargeException.class);
                assertThat(failureOf(future)).isInstanceOf(RecordTooLargeException.class);
            } finally {
                requester.stop();
            }
        });
    }

    @Test
    void aListenerThatReturnsAFailedSendsFutureIsRecoveredWithTheRefusalNamed() {
        runner.withBean(Forwarding.class)
                .withPropertyValues("kafko.listener.retry.max-attempts=2", "kafko.listener.dead-letter.enabled=true")
                .run(context -> {
                    template(context).send("forward", "x".repeat(200)).join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));

                    List<KafkoRecord> deadLetters = KafkoTestUtils.records(context, "forward.DLT");
                    assertThat(deadLetters).hasSize(1);
                    assertThat(new String(deadLetters.get(0).headers().lastValue(KafkoHeaders.DLT_EXCEPTION_FQCN),
                            StandardCharsets.UTF_8)).isEqualTo(RecordTooLargeException.class.getName());
                });
    }

    /** What a {@code whenComplete} on {@code future} is handed, which {@code handle} is handed too. */
    private static Throwable failureOf(CompletableFuture<?> future) {
        AtomicReference<Throwable> handed = new AtomicReference<>();
        future.handle((result, failure) -> failure).thenAccept(handed::set).join();
        AtomicReference<Throwable> whenComplete = new AtomicReference<>();
        future.whenComplete((result, failure) -> whenComplete.set(failure)).exceptionally(f -> null).join();
        assertThat(whenComplete.get()).isSameAs(handed.get());
        return handed.get();
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static class Forwarding {
        private final KafkoTemplate<Object, Object> template;

        Forwarding(KafkoTemplate<Object, Object> template) {
            this.template = template;
        }

        @KafkoListener(id = "forward", topics = "forward", groupId = "forward")
        CompletableFuture<SendResult<Object, Object>> on(String value) {
            return template.send("small", value);
        }
    }
}
