package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.spring.Order;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.health.KafkoHealthIndicator;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.GeneratedFiles;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.SendTo;

/**
 * The auto-configuration and a {@code @KafkoListener} application processed ahead of time (as
 * {@code spring-boot:process-aot} does for a native image or {@code -Dspring.aot.enabled=true}), then
 * started from the generated code only: JSON conversion, a reply through {@code @SendTo}, metrics and
 * health all work without the bean definitions being parsed at run time.
 */
@CompileWithForkedClassLoader
class KafkoAotTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();

    @Test
    void applicationProcessedAheadOfTimeSendsAndListens() {
        RECEIVED.clear();
        String[] properties = {"kafko.ephemeral=true", "kafko.topics.orders.partitions=2"};
        AnnotationConfigApplicationContext source = new AnnotationConfigApplicationContext();
        source.register(AotApplication.class);
        TestPropertyValues.of(properties).applyTo(source);
        TestGenerationContext generation = new TestGenerationContext(AotApplication.class);
        ClassName initializerName = new ApplicationContextAotGenerator().processAheadOfTime(source, generation);
        generation.writeGeneratedContent();
        // the auto-configuration's beans are defined by generated code, not by parsing its classes at run time
        assertThat(generation.getGeneratedFiles().getGeneratedFile(GeneratedFiles.Kind.SOURCE,
                "dev/kafko/spring/autoconfigure/KafkoAutoConfiguration__BeanDefinitions.java")).isNotNull();
        AtomicReference<Path> dataDir = new AtomicReference<>();

        TestCompiler.forSystem().with(generation).compile(compiled -> {
            @SuppressWarnings("unchecked")
            ApplicationContextInitializer<GenericApplicationContext> initializer =
                    compiled.getInstance(ApplicationContextInitializer.class, initializerName.toString());
            try (GenericApplicationContext context = new GenericApplicationContext()) {
                TestPropertyValues.of(properties).applyTo(context);
                initializer.initialize(context);
                context.refresh();

                dataDir.set(context.getBean(Kafko.class).dataDir());
                assertThat(context.getBean(Kafko.class).topics()).contains("orders");
                @SuppressWarnings("unchecked")
                KafkoTemplate<String, Object> template = context.getBean(KafkoTemplate.class);
                template.send("orders", "alice", new Order("o-1", 1250)).join();
                template.send("orders", "bob", new Order("o-2", 990)).join();
                KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

                assertThat(RECEIVED).containsExactlyInAnyOrder("orders o-1 1250 alice", "orders o-2 990 bob",
                        "receipts receipt for o-1", "receipts receipt for o-2");
                assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainerIds())
                        .containsExactlyInAnyOrder("orders", "receipts");
                assertThat(context.getBean(MeterRegistry.class).get("kafko.listener.process")
                        .tag("listener", "orders").timer().count()).isEqualTo(2);
                assertThat(context.getBean(KafkoHealthIndicator.class).health(false).getStatus().getCode())
                        .isEqualTo("UP");
            }
        });
        // the ephemeral directory of the context started from generated code is gone with it
        assertThat(dataDir.get()).isNotNull();
        assertThat(Files.exists(dataDir.get())).isFalse();
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({JacksonAutoConfiguration.class, KafkoAutoConfiguration.class,
            KafkoMetricsAutoConfiguration.class, KafkoHealthAutoConfiguration.class})
    public static class AotApplication {

        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        OrderListeners orderListeners() {
            return new OrderListeners();
        }
    }

    public static class OrderListeners {

        @KafkoListener(id = "orders", topics = "orders")
        @SendTo("receipts")
        public String onOrder(Order order, @Header(KafkoHeaders.RECEIVED_KEY) String customer,
                @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            RECEIVED.add(topic + " " + order.id() + " " + order.amount() + " " + customer);
            return "receipt for " + order.id();
        }

        @KafkoListener(id = "receipts", topics = "receipts")
        public void onReceipt(String receipt, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            RECEIVED.add(topic + " " + receipt);
        }
    }
}
