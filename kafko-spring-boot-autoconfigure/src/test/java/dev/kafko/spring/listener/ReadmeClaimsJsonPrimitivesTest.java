package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * The README's claim ("Received headers and payload conversion") that JSON is read with the application's
 * {@code JsonMapper}: Jackson 3 refuses old JSON without a primitive field (a conversion failure, not retried) unless
 * {@code spring.jackson.deserialization.fail-on-null-for-primitives=false}, which reads it as 0.
 */
class ReadmeClaimsJsonPrimitivesTest {

    record Order(String id, int quantity) {
    }

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();
    static final AtomicInteger CALLS = new AtomicInteger();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.old-orders.partitions=1",
                    "kafko.listener.dead-letter.enabled=true");

    @Test
    void oldJsonWithoutAPrimitiveFieldIsAConversionFailureUnlessTheMapperTakesNullForPrimitives() {
        RECEIVED.clear();
        CALLS.set(0);
        runner.withBean(Orders.class).run(context -> {
            sendOldJson(context);
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).isEmpty();
            // no retries: the method was never called, and the record went to the dead-letter topic at once
            assertThat(CALLS).hasValue(0);
            assertThat(KafkoTestUtils.records(context, "old-orders.DLT")).hasSize(1);
        });
        runner.withBean(Orders.class)
                .withPropertyValues("spring.jackson.deserialization.fail-on-null-for-primitives=false")
                .run(context -> {
                    sendOldJson(context);
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(RECEIVED).containsExactly("o-1:0");
                });
    }

    @SuppressWarnings("unchecked")
    private static void sendOldJson(ApplicationContext context) {
        KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
        template.send("old-orders", "{\"id\":\"o-1\"}".getBytes(StandardCharsets.UTF_8)).join();
    }

    static class Orders {
        @KafkoListener(id = "old-orders", topics = "old-orders")
        void on(Order order) {
            CALLS.incrementAndGet();
            RECEIVED.add(order.id() + ":" + order.quantity());
        }
    }
}
