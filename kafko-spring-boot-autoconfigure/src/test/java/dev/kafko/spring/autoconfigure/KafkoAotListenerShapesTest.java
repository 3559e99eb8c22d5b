package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.Order;
import dev.kafko.spring.annotation.KafkoHandler;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.KafkoListenerErrorHandler;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Scope;
import org.springframework.context.annotation.ScopedProxyMode;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.context.support.SimpleThreadScope;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.SendTo;

/**
 * The listener shapes {@link KafkoAotTest} leaves out, started from code generated ahead of time: a batch
 * listener with list headers, a class-level listener with {@code @KafkoHandler}s, a listener error handler
 * named by bean, a dead-letter topic, topics from {@code ${...}} and {@code #{...}}, a listener on a full
 * {@code @Configuration} class (a CGLIB subclass generated at build time) and one on a scoped proxy.
 */
@CompileWithForkedClassLoader
class KafkoAotListenerShapesTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();

    @Test
    void everyListenerShapeRunsFromGeneratedCode() {
        RECEIVED.clear();
        String[] properties = {"kafko.ephemeral=true", "kafko.listener.retry.max-attempts=1",
                "kafko.listener.dead-letter.enabled=true", "app.topic=placeholder"};
        AnnotationConfigApplicationContext source = new AnnotationConfigApplicationContext();
        source.register(Shapes.class);
        TestPropertyValues.of(properties).applyTo(source);
        TestGenerationContext generation = new TestGenerationContext(Shapes.class);
        ClassName initializerName = new ApplicationContextAotGenerator().processAheadOfTime(source, generation);
        generation.writeGeneratedContent();

        TestCompiler.forSystem().with(generation).compile(compiled -> {
            @SuppressWarnings("unchecked")
            ApplicationContextInitializer<GenericApplicationContext> initializer =
                    compiled.getInstance(ApplicationContextInitializer.class, initializerName.toString());
            try (GenericApplicationContext context = new GenericApplicationContext()) {
                TestPropertyValues.of(properties).applyTo(context);
                initializer.initialize(context);
                context.refresh();
                // the configuration class is the CGLIB subclass generated at build time
                assertThat(context.getBean(FullConfig.class).getClass().getName()).contains("$$SpringCGLIB$$");
                assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainerIds())
                        .containsExactlyInAnyOrder("batch", "classLevel", "guarded", "guardedReplies", "failing", "dlt", "placeholder",
                                "spel", "fullConfig", "scoped");

                @SuppressWarnings("unchecked")
                KafkoTemplate<String, Object> template = context.getBean(KafkoTemplate.class);
                template.send("batch", "k1", new Order("b-1", 1)).join();
                template.send("batch", "k2", new Order("b-2", 2)).join();
                template.send("class-level", new Order("c-1", 3)).join();
                template.send("class-level", "text").join();
                template.send("guarded", new Order("g-1", 4)).join();
                template.send("failing", new Order("f-1", 5)).join();
                template.send("placeholder", "p").join();
                template.send("spel", "s").join();
                template.send("full-config", "f").join();
                template.send("scoped", "sc").join();
                KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

                assertThat(RECEIVED).contains("handler order c-1", "handler string text", "guarded reply for g-1",
                        "dlt f-1 boom f-1", "placeholder p", "spel s", "fullConfig f", "scoped sc");
                assertThat(RECEIVED.stream().filter(s -> s.startsWith("batch ")).toList())
                        .isNotEmpty()
                        .allSatisfy(s -> assertThat(s).matches("batch \\[.*\\] keys \\[.*\\] partitions \\[.*\\]"));
                assertThat(String.join(" ", RECEIVED)).contains("b-1").contains("b-2").contains("k1").contains("k2");
            }
        });
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({JacksonAutoConfiguration.class, KafkoAutoConfiguration.class})
    @Import(FullConfig.class)
    public static class Shapes {

        @Bean
        static BeanFactoryPostProcessor threadScope() {
            return factory -> factory.registerScope("thread", new SimpleThreadScope());
        }

        @Bean
        public Listeners listeners() {
            return new Listeners();
        }

        @Bean
        public ClassLevel classLevel() {
            return new ClassLevel();
        }

        @Bean
        public Topics topicNames() {
            return new Topics();
        }

        @Bean
        public KafkoListenerErrorHandler replyWithError() {
            return (message, exception) -> "reply for " + exception.getCause().getMessage();
        }

        @Bean
        @Scope(value = "thread", proxyMode = ScopedProxyMode.TARGET_CLASS)
        public ScopedListener scopedListener() {
            return new ScopedListener();
        }
    }

    public static class Topics {
        public String getSpel() {
            return "spel";
        }
    }

    public static class Listeners {

        @KafkoListener(id = "batch", topics = "batch", batch = "true")
        public void onBatch(List<Order> orders, @Header(KafkoHeaders.RECEIVED_KEY) List<String> keys,
                @Header(KafkoHeaders.RECEIVED_PARTITION) List<Integer> partitions) {
            RECEIVED.add("batch " + orders.stream().map(Order::id).toList() + " keys " + keys + " partitions "
                    + partitions);
        }

        @KafkoListener(id = "guarded", topics = "guarded", errorHandler = "replyWithError")
        @SendTo("guarded-replies")
        public String guarded(Order order) {
            throw new IllegalStateException(order.id());
        }

        @KafkoListener(id = "guardedReplies", topics = "guarded-replies")
        public void reply(String reply) {
            RECEIVED.add("guarded " + reply);
        }

        @KafkoListener(id = "failing", topics = "failing")
        public void failing(Order order) {
            throw new IllegalStateException("boom " + order.id());
        }

        @KafkoListener(id = "dlt", topics = "failing.DLT")
        public void dlt(Order order, @Header(KafkoHeaders.DLT_EXCEPTION_MESSAGE) String reason) {
            RECEIVED.add("dlt " + order.id() + " " + reason);
        }

        @KafkoListener(id = "placeholder", topics = "${app.topic}")
        public void placeholder(String value) {
            RECEIVED.add("placeholder " + value);
        }

        @KafkoListener(id = "spel", topics = "#{@topicNames.spel}")
        public void spel(String value) {
            RECEIVED.add("spel " + value);
        }
    }

    @KafkoListener(id = "classLevel", topics = "class-level")
    public static class ClassLevel {

        @KafkoHandler
        public void order(Order order) {
            RECEIVED.add("handler order " + order.id());
        }

        @KafkoHandler(isDefault = true)
        public void text(String text) {
            RECEIVED.add("handler string " + text);
        }
    }

    public static class ScopedListener {
        @KafkoListener(id = "scoped", topics = "scoped")
        public void on(String value) {
            RECEIVED.add("scoped " + value);
        }
    }

    @Configuration
    public static class FullConfig {

        @Bean
        public String fullConfigMarker() {
            return "marker";
        }

        @KafkoListener(id = "fullConfig", topics = "full-config")
        public void on(String value) {
            RECEIVED.add("fullConfig " + value);
        }
    }
}
