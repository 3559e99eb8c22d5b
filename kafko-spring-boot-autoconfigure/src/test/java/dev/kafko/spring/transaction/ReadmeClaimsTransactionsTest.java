package dev.kafko.spring.transaction;

import static dev.kafko.spring.transaction.KafkoTransactionsTest.endOffsets;
import static dev.kafko.spring.transaction.KafkoTransactionsTest.template;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.listener.ContainerCustomizer;
import dev.kafko.spring.listener.DefaultErrorHandler;
import dev.kafko.spring.listener.KafkoErrorHandler;
import dev.kafko.spring.listener.RetryListener;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.event.TransactionalEventListener;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.backoff.FixedBackOff;

/**
 * Claims of the README's section on transactions that no other test checks, each test quoting the sentence it checks.
 */
class ReadmeClaimsTransactionsTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final List<String> SEEN = new CopyOnWriteArrayList<>();
    static final AtomicInteger ATTEMPTS = new AtomicInteger();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.template.transactional=true");

    @BeforeEach
    void reset() {
        SEEN.clear();
        ATTEMPTS.set(0);
    }

    /**
     * "kafko's manager is not declared for you" and "a single {@code KafkoTransactionManager} bean also runs every
     * delivery attempt of the auto-configured listener containers in a transaction".
     */
    @Test
    void kafkosManagerIsNotDeclaredForYou() {
        runner.run(context -> {
            assertThat(context).doesNotHaveBean(KafkoTransactionManager.class);
            assertThat(context.getBean(KafkoListenerContainerFactory.class).getTransactionManager()).isNull();
        });
    }

    /**
     * "{@code setTransactionManager} on a container factory or a container sets any manager: what a listener sends is
     * written when the attempt returns, before the container commits the offsets, and dropped when it throws, so a
     * retried record sends once, not once per attempt."
     */
    @Test
    void anyManagerSetOnAContainerRunsItsAttemptsInTransactions() {
        runner.withPropertyValues("kafko.listener.retry.max-attempts=3").withUserConfiguration(OtherManager.class)
                .withBean(FailsTwice.class).run(context -> {
                    template(context).executeInTransaction(ops -> ops.send("other-in", "order-1"));
                    KafkoTestUtils.waitForListeners(context, WAIT);
                    assertThat(ATTEMPTS).hasValue(3);
                    assertThat(values(context, "other-out")).containsExactly("shipped order-1 (attempt 3)");
                    assertThat(context.getBean(RecordingManager.class).completions)
                            .containsExactly("rollback", "rollback", "commit");
                });
    }

    /**
     * "{@code KafkoTransactionManager}, as spring-kafka's, registers no transaction synchronizations: an event
     * published in its transaction ... reaches no {@code @TransactionalEventListener} ... ({@code fallbackExecution =
     * true} runs it at once instead)".
     */
    @Test
    void anEventPublishedInAKafkoTransactionReachesNoTransactionalEventListenerButAFallbackOneAtOnce() {
        runner.withUserConfiguration(KafkoManager.class, Proxies.class).withBean(EventListeners.class)
                .run(context -> {
                    new TransactionTemplate(context.getBean(KafkoTransactionManager.class)).executeWithoutResult(
                            status -> {
                                context.publishEvent(new Shipped("o1"));
                                SEEN.add("published");
                            });
                    SEEN.add("committed");
                    assertThat(SEEN).containsExactly("fallback o1", "published", "committed");
                });
    }

    /**
     * "Dead letters ({@code DeadLetterPublishingRecoverer}, {@code @RetryableTopic}'s topics) are not sent through the
     * template: the recoverer writes them at once, after the last attempt's transaction rolled back."
     */
    @Test
    void aDeadLetterIsWrittenAtOnceAfterTheLastAttemptsTransactionRolledBack() {
        runner.withPropertyValues("kafko.listener.retry.max-attempts=2", "kafko.listener.dead-letter.enabled=true")
                .withUserConfiguration(KafkoManager.class).withBean(SendsThenFails.class).run(context -> {
                    template(context).executeInTransaction(ops -> ops.send("doomed", "order-2"));
                    KafkoRecord dead = KafkoTestUtils.records(context, "doomed.DLT", 1, WAIT).get(0);
                    KafkoTestUtils.waitForListeners(context, WAIT);
                    assertThat(new String(dead.value(), StandardCharsets.UTF_8)).isEqualTo("order-2");
                    assertThat(ATTEMPTS).hasValue(2);
                    assertThat(endOffsets(context, "doomed-out")).as("both attempts' sends rolled back").isZero();
                });
    }

    /**
     * "Under {@code MANUAL_IMMEDIATE}, an acknowledgment inside the method commits the offset at once, inside the
     * transaction: a commit that then fails leaves the record acknowledged."
     */
    @Test
    void underManualImmediateAnAcknowledgmentInsideTheTransactionCommitsAtOnceWhateverTheCommit() {
        runner.withPropertyValues("kafko.listener.ack-mode=manual_immediate",
                "kafko.topics[acked-out].max-record-size=64B")
                .withUserConfiguration(KafkoManager.class, RetriedCommits.class)
                .withBean(AcknowledgesThenSendsTooMuch.class).run(context -> {
                    template(context).executeInTransaction(ops -> ops.send("acked", "order-3"));
                    // acknowledged, the record counts as processed for waitForListeners: wait for the attempts
                    await().atMost(WAIT).until(() -> SEEN.size() == 2);
                    // the first attempt acknowledged, then its commit failed: the second finds the offset committed
                    assertThat(SEEN).containsExactly("attempt 1 finds 0 committed, then 1",
                            "attempt 2 finds 1 committed, then 1");
                    assertThat(endOffsets(context, "acked-out")).isZero();
                });
    }

    /**
     * "A reply sent in a delivery attempt's transaction is written at its commit (the listener does not wait for it);
     * one refused at the send fails that commit, and so the attempt."
     */
    @Test
    void aReplyRefusedAtTheSendFailsTheCommitAndSoTheAttempt() {
        runner.withPropertyValues("kafko.listener.retry.max-attempts=2",
                "kafko.topics[tiny-replies].max-record-size=64B").withUserConfiguration(KafkoManager.class)
                .withBean(LargeReplier.class).withBean(Failures.class).run(context -> {
                    template(context).executeInTransaction(ops -> ops.send("large-asks", "question"));
                    KafkoTestUtils.waitForListeners(context, WAIT);
                    // the refusal is one a retry would meet again: not retried
                    assertThat(ATTEMPTS).hasValue(1);
                    assertThat(SEEN).containsExactly("failed KafkoTransactionException");
                    assertThat(endOffsets(context, "tiny-replies")).isZero();
                });
    }

    /**
     * "A transaction is the sending thread's: what such a listener sends from other threads ... is not part of it —
     * refused, or written at once under {@code allow-non-transactional}."
     */
    @Test
    void whatAListenerSendsFromAnotherThreadIsNotPartOfItsAttemptsTransaction() {
        runner.withPropertyValues("kafko.listener.retry.max-attempts=2", "kafko.template.allow-non-transactional=true")
                .withUserConfiguration(KafkoManager.class).withBean(SendsFromAPool.class).run(context -> {
                    template(context).send("pooled", "order-4").join();
                    KafkoTestUtils.waitForListeners(context, WAIT);
                    assertThat(ATTEMPTS).hasValue(2);
                    assertThat(values(context, "pooled-out")).containsExactlyInAnyOrder("pool 1", "pool 2", "own 2");
                });
        reset();
        runner.withPropertyValues("kafko.listener.retry.max-attempts=1").withUserConfiguration(KafkoManager.class)
                .withBean(SendsFromAPool.class).run(context -> {
                    template(context).executeInTransaction(ops -> ops.send("pooled", "order-5"));
                    KafkoTestUtils.waitForListeners(context, WAIT);
                    assertThat(SEEN).containsExactly("pool refused: IllegalStateException");
                    assertThat(values(context, "pooled-out")).isEmpty();
                });
    }

    /**
     * "A write that fails at the commit (a partition that failed, a topic deleted meanwhile, the log closed meanwhile,
     * ...)": a transaction still open when its context closes writes nothing, and its commit says so.
     */
    @Test
    void aTransactionStillOpenWhenItsContextClosesWritesNothingAndItsCommitSaysSo(@TempDir Path dir) throws Exception {
        CountDownLatch sent = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        CompletableFuture<CompletableFuture<?>> send = new CompletableFuture<>();
        CompletableFuture<Object> transaction = new CompletableFuture<>();
        runner.withPropertyValues("kafko.ephemeral=false", "kafko.data-dir=" + dir).run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            template.executeInTransaction(ops -> ops.send("closing", "before")).join();
            Thread committer = new Thread(() -> {
                try {
                    transaction.complete(template.executeInTransaction(ops -> {
                        send.complete(ops.send("closing", "held"));
                        sent.countDown();
                        awaitUninterruptibly(closed);
                        return "returned";
                    }));
                } catch (Throwable e) {
                    transaction.completeExceptionally(e);
                }
            });
            committer.start();
            awaitUninterruptibly(sent);
            context.close();
            closed.countDown();
            committer.join(WAIT.toMillis());
        });
        assertThat(transaction).failsWithin(WAIT).withThrowableOfType(ExecutionException.class)
                .havingCause().isInstanceOf(KafkoTransactionException.class)
                .withMessageContaining("[closing] were not all written").withMessageContaining("is closed");
        assertThat(send.join()).failsWithin(WAIT).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(KafkoClosedException.class);
        runner.withPropertyValues("kafko.ephemeral=false", "kafko.data-dir=" + dir)
                .run(context -> assertThat(values(context, "closing")).containsExactly("before"));
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            assertThat(latch.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static List<String> values(ApplicationContext context, String topic) {
        return KafkoTestUtils.records(context, topic).stream().map(KafkoRecord::value)
                .map(v -> new String(v, StandardCharsets.UTF_8)).toList();
    }

    @Configuration(proxyBeanMethods = false)
    static class KafkoManager {
        @Bean
        KafkoTransactionManager kafkoTransactionManager(LogBackend backend) {
            return new KafkoTransactionManager(backend);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(proxyTargetClass = true)
    static class Proxies {
    }

    /** Two attempts, the second after a commit that failed on a send the log refused. */
    @Configuration(proxyBeanMethods = false)
    static class RetriedCommits {
        @Bean
        KafkoErrorHandler errorHandler() {
            DefaultErrorHandler handler = new DefaultErrorHandler(new FixedBackOff(0, 1));
            handler.addRetryableExceptions(KafkoTransactionException.class);
            return handler;
        }
    }

    /** A manager of another resource (a database's, say), set on the containers by a customizer. */
    @Configuration(proxyBeanMethods = false)
    static class OtherManager {
        @Bean
        RecordingManager recordingManager() {
            return new RecordingManager();
        }

        @Bean
        ContainerCustomizer transactionalContainers(RecordingManager manager) {
            return container -> container.setTransactionManager(manager);
        }
    }

    static final class RecordingManager extends AbstractPlatformTransactionManager {
        final List<String> completions = new CopyOnWriteArrayList<>();

        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            completions.add("commit");
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
            completions.add("rollback");
        }
    }

    static class FailsTwice {
        private final KafkoTemplate<Object, Object> template;

        FailsTwice(KafkoTemplate<Object, Object> template) {
            this.template = template;
        }

        @KafkoListener(id = "other", topics = "other-in")
        void on(String order) {
            int attempt = ATTEMPTS.incrementAndGet();
            template.send("other-out", "shipped " + order + " (attempt " + attempt + ")");
            if (attempt < 3) {
                throw new IllegalStateException("not yet");
            }
        }
    }

    record Shipped(String id) {
    }

    static class EventListeners {
        @TransactionalEventListener
        void afterCommit(Shipped event) {
            SEEN.add("after commit " + event.id());
        }

        @TransactionalEventListener(fallbackExecution = true)
        void fallback(Shipped event) {
            SEEN.add("fallback " + event.id());
        }
    }

    static class SendsThenFails {
        private final KafkoTemplate<Object, Object> template;

        SendsThenFails(KafkoTemplate<Object, Object> template) {
            this.template = template;
        }

        @KafkoListener(id = "doomed", topics = "doomed")
        void on(String order) {
            ATTEMPTS.incrementAndGet();
            template.send("doomed-out", "shipped " + order);
            throw new IllegalStateException("never ships");
        }
    }

    static class AcknowledgesThenSendsTooMuch {
        private final KafkoTemplate<Object, Object> template;
        private final Kafko kafko;

        AcknowledgesThenSendsTooMuch(KafkoTemplate<Object, Object> template, Kafko kafko) {
            this.template = template;
            this.kafko = kafko;
        }

        @KafkoListener(id = "acked", topics = "acked")
        void on(String order, Acknowledgment ack) {
            int attempt = ATTEMPTS.incrementAndGet();
            long before = committed();
            ack.acknowledge();
            SEEN.add("attempt " + attempt + " finds " + before + " committed, then " + committed());
            template.send("acked-out", "x".repeat(1_000)); // refused at the call: the commit fails
        }

        private long committed() {
            return kafko.groupInfo("acked", "acked").committed().getOrDefault(0, 0L);
        }
    }

    static class LargeReplier {
        @KafkoListener(id = "largeReplier", topics = "large-asks")
        @SendTo("tiny-replies")
        String on(String question) {
            ATTEMPTS.incrementAndGet();
            return "x".repeat(1_000);
        }
    }

    static class Failures implements RetryListener {
        @Override
        public void failedDelivery(KafkoRecord record, Exception failure, int deliveryAttempt) {
            Throwable t = failure;
            while (t.getCause() != null && !(t instanceof KafkoTransactionException)) {
                t = t.getCause();
            }
            SEEN.add("failed " + t.getClass().getSimpleName());
        }
    }

    static class SendsFromAPool {
        private final KafkoTemplate<Object, Object> template;

        SendsFromAPool(KafkoTemplate<Object, Object> template) {
            this.template = template;
        }

        @KafkoListener(id = "pooled", topics = "pooled")
        void on(String order) {
            int attempt = ATTEMPTS.incrementAndGet();
            try {
                CompletableFuture.runAsync(() -> template.send("pooled-out", "pool " + attempt).join()).join();
            } catch (CompletionException e) {
                SEEN.add("pool refused: " + e.getCause().getClass().getSimpleName());
            }
            template.send("pooled-out", "own " + attempt);
            if (attempt < 2) {
                throw new IllegalStateException("not yet");
            }
        }
    }
}
