package dev.kafko.spring.parity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.listener.FailedInvocation;
import dev.kafko.spring.listener.KafkoErrorHandler;
import dev.kafko.spring.support.Acknowledgment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * An error handler of the application's that retries, and throws even though the retry nacked and returned: the
 * records are delivered again as for any handler that throws; the nack of that retry does not carry over to the
 * next, successful delivery (which would deliver part of it yet again).
 */
class HandlerOverridesNackedRetryTest {

    static final List<String> SEEN = new CopyOnWriteArrayList<>();
    static final AtomicInteger CALLS = new AtomicInteger();
    static final AtomicInteger HANDLED = new AtomicInteger();

    @Test
    void aNackOfARetryTheHandlerOverrodeDoesNotCountAtTheNextDelivery() {
        SEEN.clear();
        CALLS.set(0);
        HANDLED.set(0);
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=100ms",
                        "kafko.listener.ack-mode=manual", "kafko.topics.overridden.partitions=1")
                .withBean(KafkoErrorHandler.class, () -> HandlerOverridesNackedRetryTest::retryOnceThenGiveUp)
                .withBean(BatchListener.class).run(context -> {
                    Kafko kafko = context.getBean(Kafko.class);
                    for (String v : List.of("a", "b", "c")) {
                        kafko.producer("overridden").send(null, v.getBytes());
                    }
                    kafko.producer("overridden").send(null, "d".getBytes()).join();
                    context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("overridden").start();
                    await().atMost(Duration.ofSeconds(10)).until(() ->
                            kafko.groupInfo("overridden", "overridden").committed().getOrDefault(0, -1L) == 4);
                    Thread.sleep(500); // time to deliver again, were it to
                    // 1 threw; 2 (the retry) nacked from index 1 and the handler threw; 3 acknowledged
                    assertThat(SEEN).containsExactly("[a, b, c, d]", "[a, b, c, d]", "[a, b, c, d]");
                });
    }

    static void retryOnceThenGiveUp(List<KafkoRecord> records, Exception failure, FailedInvocation invocation)
            throws Exception {
        HANDLED.incrementAndGet();
        invocation.retry();
        throw new IllegalStateException("the handler delivers them again whatever the retry did");
    }

    static class BatchListener {
        @KafkoListener(id = "overridden", topics = "overridden", batch = "true", autoStartup = "false")
        void on(List<String> values, Acknowledgment ack) {
            SEEN.add(values.toString());
            switch (CALLS.incrementAndGet()) {
                case 1 -> throw new IllegalStateException("transient");
                case 2 -> ack.nack(1, Duration.ofMillis(100));
                default -> ack.acknowledge();
            }
        }
    }
}
