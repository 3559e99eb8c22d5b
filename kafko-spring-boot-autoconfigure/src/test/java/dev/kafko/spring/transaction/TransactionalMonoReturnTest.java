package dev.kafko.spring.transaction;

import static dev.kafko.spring.transaction.KafkoTransactionsTest.endOffsets;
import static dev.kafko.spring.transaction.KafkoTransactionsTest.template;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.listener.KafkoListenerErrorHandler;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Mono;

/**
 * A listener in a container transaction that returns a {@code Mono} of its own send: the send is written at the
 * commit, which waits for the {@code Mono}, so the {@code Mono} never completes. Each attempt fails at once with an
 * {@link IllegalStateException} that says so (as a returned send future does), instead of the polling thread waiting
 * until a stop overruns its shutdown timeout and the record coming again at every start. A {@code Mono} that does not
 * wait for the send, beside a callback on it, is not refused.
 */
class TransactionalMonoReturnTest {

    static final AtomicInteger ATTEMPTS = new AtomicInteger();
    static final List<Throwable> FAILURES = new CopyOnWriteArrayList<>();
    static final AtomicInteger CALLBACKS = new AtomicInteger();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.template.transactional=true",
                    "kafko.listener.retry.max-attempts=2")
            .withUserConfiguration(WithManager.class).withBean(MonoListeners.class)
            .withBean(OwnTransactionListener.class);

    @BeforeEach
    void reset() {
        ATTEMPTS.set(0);
        FAILURES.clear();
        CALLBACKS.set(0);
    }

    @Test
    void aMonoOfTheListenersOwnSendFailsEachAttemptInsteadOfWaitingForEver() {
        runner.run(context -> {
            template(context).executeInTransaction(ops -> ops.send("mono-echo", "one"));
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(ATTEMPTS.get()).as("both attempts ran and failed").isEqualTo(2);
            assertThat(FAILURES).hasSize(2).allSatisfy(e -> assertThat(e.getCause())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("The listener returned a Mono")
                    .hasMessageContaining("waits for a send of the listener's own transaction"));
            assertThat(endOffsets(context, "mono-echoes")).as("the failed attempts' sends rolled back").isZero();
        });
    }

    @Test
    void aMonoThatDoesNotWaitForTheSendIsNotRefusedAndTheSendIsWrittenAtTheCommit() {
        runner.run(context -> {
            template(context).executeInTransaction(ops -> ops.send("mono-beside", "two"));
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(FAILURES).isEmpty();
            assertThat(ATTEMPTS.get()).isOne();
            assertThat(endOffsets(context, "mono-sent")).isOne();
            assertThat(CALLBACKS.get()).as("the send's callback ran at the commit").isOne();
        });
    }

    @Test
    void aMonoWhoseSubscriptionRunsATransactionOfItsOwnIsNotRefused() {
        runner.run(context -> {
            template(context).executeInTransaction(ops -> ops.send("mono-own-tx", "three"));
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(FAILURES).isEmpty();
            assertThat(ATTEMPTS.get()).isOne();
            assertThat(endOffsets(context, "mono-own-tx-sent")).isOne();
            assertThat(CALLBACKS.get()).as("the inner transaction's send completed at its commit").isOne();
        });
    }

    @Test
    void aListenerWithoutAContainerTransactionIsNotTouched() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true", "kafko.template.transactional=true",
                        "kafko.listener.retry.max-attempts=2")
                .withUserConfiguration(Recording.class).withBean(OwnTransactionListener.class)
                .run(context -> {
                    template(context).executeInTransaction(ops -> ops.send("mono-own-tx", "four"));
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(FAILURES).isEmpty();
                    assertThat(ATTEMPTS.get()).isOne();
                    assertThat(endOffsets(context, "mono-own-tx-sent")).isOne();
                    assertThat(CALLBACKS.get()).isOne();
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class Recording {

        @Bean
        KafkoListenerErrorHandler recording() {
            return (message, exception) -> {
                FAILURES.add(exception);
                throw exception;
            };
        }
    }

    /** Sends in a transaction of its own as its Mono is subscribed, then completes later. */
    static class OwnTransactionListener {

        private final KafkoTemplate<Object, Object> template;

        OwnTransactionListener(KafkoTemplate<Object, Object> template) {
            this.template = template;
        }

        @KafkoListener(id = "mono-own-tx", topics = "mono-own-tx", errorHandler = "recording")
        Mono<String> ownTransaction(String value) {
            ATTEMPTS.incrementAndGet();
            return Mono.fromRunnable(() -> template.executeInTransaction(ops -> ops.send("mono-own-tx-sent", value)
                    .whenComplete((result, failure) -> CALLBACKS.incrementAndGet())))
                    .then(Mono.just(value).delayElement(Duration.ofMillis(5)));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class WithManager {

        @Bean
        KafkoTransactionManager kafkoTransactionManager(LogBackend backend) {
            return new KafkoTransactionManager(backend);
        }

        /** Records what each attempt failed with, and rethrows it to the container's retries. */
        @Bean
        KafkoListenerErrorHandler recording() {
            return (message, exception) -> {
                FAILURES.add(exception);
                throw exception;
            };
        }
    }

    static class MonoListeners {

        private final KafkoTemplate<Object, Object> template;

        MonoListeners(KafkoTemplate<Object, Object> template) {
            this.template = template;
        }

        @KafkoListener(id = "mono-echo", topics = "mono-echo", errorHandler = "recording")
        Mono<?> echo(String value) {
            ATTEMPTS.incrementAndGet();
            return Mono.fromFuture(template.send("mono-echoes", value)).map(result -> result.offset());
        }

        @KafkoListener(id = "mono-beside", topics = "mono-beside", errorHandler = "recording")
        Mono<String> beside(String value) {
            ATTEMPTS.incrementAndGet();
            template.send("mono-sent", value).whenComplete((result, failure) -> CALLBACKS.incrementAndGet());
            return Mono.just(value).delayElement(Duration.ofMillis(5));
        }
    }
}
