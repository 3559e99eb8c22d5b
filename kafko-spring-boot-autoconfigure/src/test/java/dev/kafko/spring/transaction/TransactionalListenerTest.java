package dev.kafko.spring.transaction;

import static dev.kafko.spring.transaction.KafkoTransactionsTest.endOffsets;
import static dev.kafko.spring.transaction.KafkoTransactionsTest.template;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

/**
 * A listener that sends with a transactional template and fails its first attempts: the records of the failed
 * attempts are dropped, so the output holds what the successful attempt sent, once.
 */
class TransactionalListenerTest {

    static final AtomicInteger ATTEMPTS = new AtomicInteger();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.template.transactional=true",
                    "kafko.template.allow-non-transactional=true", "kafko.listener.retry.max-attempts=3");

    @BeforeEach
    void reset() {
        ATTEMPTS.set(0);
    }

    @Test
    void aKafkoTransactionManagerBeanRunsEachAttemptOfTheAutoConfiguredContainersInATransaction() {
        runner.withUserConfiguration(WithManager.class).withBean(FailsTwice.class).run(context -> {
            assertThat(context.getBean(KafkoListenerContainerFactory.class).getTransactionManager())
                    .isSameAs(context.getBean(KafkoTransactionManager.class));
            template(context).send("in", "order-1").join(); // outside a transaction: allowed, written at once
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));

            assertThat(ATTEMPTS.get()).isEqualTo(3);
            assertThat(values(context, "out")).containsExactly("shipped order-1 (attempt 3)");
            assertThat(endOffsets(context, "out")).isOne();
        });
    }

    @Test
    void withoutAManagerEveryAttemptsSendsAreWrittenAndATransactionalTemplateRefusesThem() {
        // a template that is not transactional: every attempt's send is written, the failed ones' too
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.retry.max-attempts=3")
                .withBean(FailsTwice.class).run(context -> {
                    assertThat(context.getBean(KafkoListenerContainerFactory.class).getTransactionManager()).isNull();
                    template(context).send("in", "order-1").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(values(context, "out")).hasSize(3);
                });
    }

    @Test
    void aTransactionalListenerMethodDropsTheSendsOfItsFailedAttempts() {
        runner.withUserConfiguration(ManagerUnseen.class, Proxies.class).withBean(TransactionalMethod.class)
                .run(context -> {
                    // no manager on the factory: the method's own @Transactional runs the transaction
                    assertThat(context.getBean(KafkoListenerContainerFactory.class).getTransactionManager()).isNull();
                    template(context).send("in2", "order-2").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(ATTEMPTS.get()).isEqualTo(3);
                    assertThat(values(context, "out")).containsExactly("shipped order-2 (attempt 3)");
                });
    }

    @Test
    void aBatchThatNamesItsFailedRecordWritesWhatTheRecordsBeforeItSentOnce() {
        runner.withUserConfiguration(WithManager.class).withBean(BatchFails.class).run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            template.executeInTransaction(ops -> {
                for (String v : List.of("a", "b", "poison", "c", "d")) {
                    ops.send("batch-in", v);
                }
                return null;
            });
            context.getBean(dev.kafko.spring.config.KafkoListenerEndpointRegistry.class).getListenerContainer("batch")
                    .start();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            // a and b ran again in a transaction of their own; the poison record was retried alone, then recovered
            assertThat(values(context, "batch-out")).containsExactly("a", "b", "c", "d");
        });
    }

    @Test
    void aSendToReplyIsWrittenWithTheAttemptsTransaction() {
        // no allow-non-transactional: the replies can only be sent inside the attempt's transaction
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true", "kafko.template.transactional=true",
                        "kafko.listener.retry.max-attempts=2")
                .withUserConfiguration(WithManager.class).withBean(Replier.class).run(context -> {
                    new org.springframework.transaction.support.TransactionTemplate(
                            context.getBean(KafkoTransactionManager.class)).executeWithoutResult(status -> {
                                template(context).send("ask", "one");
                                template(context).send("ask-many", "two");
                            });
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(values(context, "answers")).containsExactly("answer to one");
                    assertThat(values(context, "answers")).hasSize(1);
                    assertThat(values(context, "many-answers")).containsExactly("two: a", "two: b");
                    // an asynchronous listener is waited for inside the attempt's transaction: its reply is in it
                    template(context).executeInTransaction(ops -> ops.send("ask-later", "three"));
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(values(context, "later-answers")).containsExactly("later: three");
                    // one that returns its own send's future cannot be waited for before the commit: each attempt
                    // fails, and the record goes to the recoverer (the log) without any of its sends
                    template(context).executeInTransaction(ops -> ops.send("echo", "four"));
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(ATTEMPTS.get()).isEqualTo(2);
                    assertThat(endOffsets(context, "echoes")).isZero();
                });
    }

    static List<String> values(ApplicationContext context, String topic) {
        return KafkoTestUtils.records(context, topic).stream().map(KafkoRecord::value)
                .map(v -> new String(v, StandardCharsets.UTF_8)).toList();
    }

    @Configuration(proxyBeanMethods = false)
    static class WithManager {

        @Bean
        KafkoTransactionManager kafkoTransactionManager(LogBackend backend) {
            return new KafkoTransactionManager(backend);
        }
    }

    /** Two managers: the listener container factory takes neither, as Boot takes no interceptor of several. */
    @Configuration(proxyBeanMethods = false)
    static class ManagerUnseen {

        @Bean
        KafkoTransactionManager kafkoTransactionManager(LogBackend backend) {
            return new KafkoTransactionManager(backend);
        }

        @Bean
        KafkoTransactionManager otherTransactionManager(LogBackend backend) {
            return new KafkoTransactionManager(backend);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(proxyTargetClass = true)
    static class Proxies {
    }

    static class FailsTwice {

        private final KafkoTemplate<Object, Object> template;

        FailsTwice(KafkoTemplate<Object, Object> template) {
            this.template = template;
        }

        @KafkoListener(id = "ship", topics = "in")
        void ship(String order) {
            int attempt = ATTEMPTS.incrementAndGet();
            template.send("out", "shipped " + order + " (attempt " + attempt + ")");
            if (attempt < 3) {
                throw new IllegalStateException("attempt " + attempt + " fails");
            }
        }
    }

    static class BatchFails {

        private final KafkoTemplate<Object, Object> template;

        BatchFails(KafkoTemplate<Object, Object> template) {
            this.template = template;
        }

        @KafkoListener(id = "batch", topics = "batch-in", batch = "true", autoStartup = "false")
        void ship(List<String> values) {
            for (int i = 0; i < values.size(); i++) {
                template.send("batch-out", values.get(i));
                if (values.get(i).equals("poison")) {
                    throw new dev.kafko.spring.listener.BatchListenerFailedException("poison", i);
                }
            }
        }
    }

    static class Replier {

        private final KafkoTemplate<Object, Object> template;

        Replier(KafkoTemplate<Object, Object> template) {
            this.template = template;
        }

        @KafkoListener(id = "replier", topics = "ask")
        @org.springframework.messaging.handler.annotation.SendTo("answers")
        String answer(String question) {
            return "answer to " + question;
        }

        @KafkoListener(id = "later", topics = "ask-later")
        @org.springframework.messaging.handler.annotation.SendTo("later-answers")
        java.util.concurrent.CompletableFuture<String> later(String question) {
            return java.util.concurrent.CompletableFuture.supplyAsync(() -> "later: " + question);
        }

        @KafkoListener(id = "echo", topics = "echo")
        java.util.concurrent.CompletableFuture<?> echo(String value) {
            ATTEMPTS.incrementAndGet();
            return template.send("echoes", value);
        }

        @KafkoListener(id = "many", topics = "ask-many")
        @org.springframework.messaging.handler.annotation.SendTo("many-answers")
        List<String> answers(String question) {
            return List.of(question + ": a", question + ": b");
        }
    }

    static class TransactionalMethod {

        private final KafkoTemplate<Object, Object> template;

        TransactionalMethod(KafkoTemplate<Object, Object> template) {
            this.template = template;
        }

        @KafkoListener(id = "ship2", topics = "in2")
        @Transactional("kafkoTransactionManager")
        public void ship(String order) {
            int attempt = ATTEMPTS.incrementAndGet();
            template.send("out", "shipped " + order + " (attempt " + attempt + ")");
            if (attempt < 3) {
                throw new IllegalStateException("attempt " + attempt + " fails");
            }
        }
    }
}
