package dev.kafko.spring.parity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.BackOff;
import dev.kafko.spring.annotation.DltHandler;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.annotation.RetryableTopic;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.listener.DeadLetterDestination;
import dev.kafko.spring.listener.DeadLetterPublishingRecoverer;
import dev.kafko.spring.listener.DefaultErrorHandler;
import dev.kafko.spring.listener.KafkoErrorHandler;
import dev.kafko.spring.listener.RetryListener;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.Header;

/**
 * A {@code DefaultErrorHandler} bean as a spring-kafka application configures one: dead letters routed by exception
 * type through a destination resolver, {@code defaultFalse()} with {@code addRetryableExceptions}, and a
 * {@code RetryListener} feeding Micrometer counters.
 */
class ErrorHandlerParityTest {

    static final List<String> CALLS = new CopyOnWriteArrayList<>();
    static final List<String> DEAD = new CopyOnWriteArrayList<>();
    static final Map<String, AtomicInteger> ATTEMPTS = new ConcurrentHashMap<>();

    @BeforeEach
    void reset() {
        CALLS.clear();
        DEAD.clear();
        ATTEMPTS.clear();
    }

    static class Invalid extends RuntimeException {
        Invalid(String m) { super(m); }
    }

    static class Timeout extends RuntimeException {
        Timeout(String m) { super(m); }
    }

    @Configuration(proxyBeanMethods = false)
    static class Handler {
        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        RetryListener countingRetries(MeterRegistry registry) {
            Counter failed = registry.counter("app.failed.deliveries");
            Counter recovered = registry.counter("app.recovered");
            return new RetryListener() {
                @Override
                public void failedDelivery(KafkoRecord record, Exception failure, int deliveryAttempt) {
                    failed.increment();
                }

                @Override
                public void recovered(KafkoRecord record, Exception failure) {
                    recovered.increment();
                }
            };
        }

        @Bean
        KafkoErrorHandler errorHandler(LogBackend backend, List<RetryListener> listeners) {
            DefaultErrorHandler handler = DefaultErrorHandler.withAttempts(3, 10,
                    new DeadLetterPublishingRecoverer(backend, (record, failure) ->
                            failure instanceof Invalid || failure.getCause() instanceof Invalid
                                    ? DeadLetterDestination.of("orders.invalid")
                                    : DeadLetterDestination.of("orders.DLT", record.partition())));
            handler.defaultFalse();
            handler.addRetryableExceptions(Timeout.class);
            handler.setRetryListeners(listeners.toArray(RetryListener[]::new));
            return handler;
        }
    }

    static class Orders {
        @KafkoListener(id = "orders", topics = "orders")
        void on(String value) {
            int attempt = ATTEMPTS.computeIfAbsent(value, k -> new AtomicInteger()).incrementAndGet();
            CALLS.add(value + "@" + attempt);
            switch (value) {
                case "invalid" -> throw new Invalid("invalid");
                case "timeout" -> throw new Timeout("timeout");
                case "state" -> throw new IllegalStateException("state");
                default -> { }
            }
        }
    }

    @Test
    void anErrorHandlerOfMyOwnRoutesByExceptionTypeAndCountsAttempts() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true", "kafko.topics.orders.partitions=2")
                .withUserConfiguration(Handler.class).withBean(Orders.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    for (String v : List.of("invalid", "timeout", "state", "ok")) {
                        template.send("orders", 1, v, v).join();
                    }
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
                    // timeout is retried (3 attempts), invalid/state not (defaultFalse)
                    assertThat(CALLS).containsExactly("invalid@1", "timeout@1", "timeout@2", "timeout@3", "state@1",
                            "ok@1");
                    List<String> invalid = KafkoTestUtils.records(context, "orders.invalid").stream()
                            .map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
                    List<KafkoRecord> dlt = KafkoTestUtils.records(context, "orders.DLT");
                    assertThat(invalid).containsExactly("invalid");
                    assertThat(dlt).extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
                            .containsExactly("timeout", "state");
                    assertThat(dlt).allMatch(r -> r.partition() == 1);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.counter("app.failed.deliveries").count()).isEqualTo(5.0);
                    assertThat(registry.counter("app.recovered").count()).isEqualTo(3.0);
                });
    }

    static final java.util.concurrent.atomic.AtomicInteger TOLD = new java.util.concurrent.atomic.AtomicInteger();

    static class Retryable {
        @RetryableTopic(attempts = "3", backOff = @BackOff(delay = 10))
        @KafkoListener(id = "told", topics = "told")
        void on(String value) {
            throw new IllegalStateException("never");
        }
    }

    @Test
    void aRetryListenerBeanAndRetryableTopicListeners() {
        TOLD.set(0);
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true")
                .withBean(RetryListener.class, () -> (record, failure, attempt) -> TOLD.incrementAndGet())
                .withBean(Retryable.class).run(context -> {
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    template.send("told", "k", "v").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
                    assertThat(KafkoTestUtils.records(context, "told-dlt")).hasSize(1);
                    // documented: the retry containers' error handler is not given RetryListener beans
                    assertThat(TOLD).hasValue(0);
                });
    }

    static class Typo {
        @RetryableTopic(attempts = "${payments.atempts}", backOff = @BackOff(delayString = "${payments.bakoff}"))
        @KafkoListener(id = "typo", topics = "payments")
        void on(String p) {
        }
    }

    @Test
    void aTypoInAPlaceholderInARealBootApplication() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class,
                        KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true").withBean(Typo.class).run(context ->
                        assertThat(context).getFailure().hasMessageContaining("@RetryableTopic listener 'typo'")
                                .hasMessageContaining("Could not resolve placeholder 'payments.atempts'"));
    }

    static class Slow {
        @RetryableTopic(attempts = "3", backOff = @BackOff(delayString = "${slow.backoff:200ms}"))
        @KafkoListener(id = "slow", topics = "slow")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            int attempt = ATTEMPTS.computeIfAbsent(value, k -> new AtomicInteger()).incrementAndGet();
            CALLS.add(topic + ":" + value + "@" + attempt);
            if (value.startsWith("bad")) {
                throw new IllegalStateException("bad " + value);
            }
        }

        @DltHandler
        void dead(String value, @Header(KafkoHeaders.RETRY_ATTEMPTS) int attempts) {
            DEAD.add(value + " after " + attempts);
        }
    }

    @Test
    void aRestartInTheMiddleOfRetriesLosesNothing(@TempDir Path dir) {
        ApplicationContextRunner onDisk = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.topics.slow.partitions=3")
                .withBean(Slow.class);
        onDisk.run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            for (int i = 0; i < 30; i++) {
                template.send("slow", "k" + (i % 5), (i % 3 == 0 ? "bad-" : "good-") + i).join();
            }
            Kafko kafko = context.getBean(Kafko.class);
            // wait until some are in the retry topic, then close mid-retry
            while (kafko.topic("slow-retry").isEmpty() || kafko.topic("slow-retry").get().partitions().stream()
                    .mapToLong(p -> p.endOffset()).sum() < 5) {
                Thread.sleep(5);
            }
        });
        onDisk.withPropertyValues("slow.backoff=20ms").run(context -> {
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
        });
        for (int i = 0; i < 30; i++) {
            String v = (i % 3 == 0 ? "bad-" : "good-") + i;
            if (v.startsWith("bad")) {
                assertThat(DEAD).as(v).containsOnlyOnce(v + " after 3");
            } else {
                assertThat(CALLS).as(v).contains("slow:" + v + "@1");
            }
        }
        assertThat(DEAD).hasSize(10);
        // a clean close committed what the listener topic's container had processed: nothing of it again
        assertThat(CALLS).filteredOn(c -> c.startsWith("slow:")).hasSize(30).allMatch(c -> c.endsWith("@1"));
    }
}
