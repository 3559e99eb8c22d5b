package dev.kafko.spring.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.RecordTooLargeException;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.support.SendResult;
import dev.kafko.spring.transaction.TransactionRolledBackException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * A send's future fails with the failure itself, as a future completed with {@code completeExceptionally} does: a
 * callback ({@code whenComplete}, {@code handle}, {@code exceptionally}) is handed the exception the README names, not a
 * {@code CompletionException} around it, inside a transaction and out; {@code join} and {@code get} wrap it as the JDK
 * does.
 */
class SendFailureCallbacksTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.small.max-record-size=100",
                    "kafko.topics.t.partitions=1");

    @Test
    void aRefusedSendHandsItsCallbacksTheRefusalItself() {
        runner.run(context -> {
            CompletableFuture<SendResult<Object, Object>> sent = template(context).send("small", "x".repeat(200));

            assertHandsOver(sent, RecordTooLargeException.class);
        });
    }

    @Test
    void aSendOfARolledBackOrRefusedTransactionHandsItsCallbacksTheFailureItself() {
        runner.withPropertyValues("kafko.template.transactional=true").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            List<CompletableFuture<SendResult<Object, Object>>> sent = new ArrayList<>();
            assertThatThrownBy(() -> template.executeInTransaction(ops -> {
                sent.add(ops.send("t", "a"));
                throw new IllegalArgumentException("changed my mind");
            })).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> template.executeInTransaction(ops -> {
                sent.add(ops.send("small", "x".repeat(200)));
                return null;
            })).isInstanceOf(dev.kafko.spring.transaction.KafkoTransactionException.class);

            assertHandsOver(sent.get(0), TransactionRolledBackException.class);
            assertHandsOver(sent.get(1), RecordTooLargeException.class);
        });
    }

    private static void assertHandsOver(CompletableFuture<SendResult<Object, Object>> sent,
                                        Class<? extends Throwable> type) {
        AtomicReference<Throwable> whenComplete = new AtomicReference<>();
        sent.whenComplete((result, failure) -> whenComplete.set(failure));
        assertThat(whenComplete.get()).isInstanceOf(type);
        assertThat(sent.handle((result, failure) -> failure).join()).isSameAs(whenComplete.get());
        assertThat(sent.exceptionally(failure -> null).isCompletedExceptionally()).isFalse();
        Throwable dependent = sent.<Object>thenApply(r -> r).handle((result, failure) -> failure).join();
        assertThat(dependent).as("a dependent stage's callback gets the JDK's CompletionException around it")
                .isInstanceOf(CompletionException.class).cause().isSameAs(whenComplete.get());
        assertThatThrownBy(sent::join).isInstanceOf(CompletionException.class).cause().isSameAs(whenComplete.get());
        assertThatThrownBy(sent::get).isInstanceOf(ExecutionException.class).cause().isSameAs(whenComplete.get());
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }
}
