package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.Order;
import dev.kafko.spring.annotation.KafkoHandler;
import dev.kafko.spring.annotation.DltHandler;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.annotation.RetryableTopic;
import dev.kafko.spring.listener.DltLogger;
import dev.kafko.spring.support.KafkoHeaders;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.SendTo;

/**
 * What a GraalVM native image of a {@code @KafkoListener} application needs from ahead-of-time processing, as
 * spring-kafka's {@code @KafkaListener} and {@code @KafkaHandler} give it (both are meta-annotated with
 * {@code @MessageMapping}, whose reflective processor registers them): the listener methods, which the
 * handler-method factory invokes reflectively, and the types Jackson binds their payloads and replies to; and
 * the classes {@code kafko.listener.retry.not-retryable} names, which the error handler loads by name.
 */
class KafkoRuntimeHintsTest {

    @Test
    void listenerAndHandlerMethodsAreRegisteredForInvocation() throws Exception {
        RuntimeHints hints = processAheadOfTime(Application.class, "kafko.ephemeral=true");

        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(
                Listeners.class.getDeclaredMethod("onOrder", Order.class, String.class))).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(
                Listeners.class.getDeclaredMethod("onBatch", List.class))).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(
                Handlers.class.getDeclaredMethod("placed", Placed.class))).accepts(hints);
        // repeated annotations sit in their container, @KafkoListeners
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(
                Listeners.class.getDeclaredMethod("onEither", String.class))).accepts(hints);
        // a @RetryableTopic listener's dead letters: the bean's @DltHandler, or kafko's logger without one
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(
                Listeners.class.getDeclaredMethod("dead", String.class))).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(DltLogger.METHOD)).accepts(hints);
    }

    @Test
    void payloadAndReplyTypesAreRegisteredForJsonBinding() throws Exception {
        RuntimeHints hints = processAheadOfTime(Application.class, "kafko.ephemeral=true");

        // Jackson reads a record through its canonical constructor and accessors
        for (Class<?> type : List.of(Order.class, Receipt.class, Line.class, Placed.class)) {
            assertThat(RuntimeHintsPredicates.reflection().onConstructorInvocation(
                    type.getDeclaredConstructors()[0])).as(type.getSimpleName()).accepts(hints);
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(
                    type.getDeclaredMethod(type.getRecordComponents()[0].getName())))
                    .as(type.getSimpleName()).accepts(hints);
        }
    }

    @Test
    void theSubtypesOfASealedPayloadTypeAreRegisteredForJsonBinding() throws Exception {
        RuntimeHints hints = processAheadOfTime(Application.class, "kafko.ephemeral=true");

        // a record's type header names its own class, which the converter loads by name and Jackson builds
        for (Class<?> type : List.of(Created.class, Deleted.class, Purged.class)) {
            assertThat(RuntimeHintsPredicates.reflection().onConstructorInvocation(
                    type.getDeclaredConstructors()[0])).as(type.getSimpleName()).accepts(hints);
        }
    }

    @Test
    void notRetryableExceptionClassesAreRegisteredForLoadingByName() {
        RuntimeHints hints = processAheadOfTime(Application.class, "kafko.ephemeral=true",
                "kafko.listener.retry.not-retryable=" + InvalidOrder.class.getName() + ", java.lang.IllegalStateException");

        assertThat(RuntimeHintsPredicates.reflection().onType(InvalidOrder.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(IllegalStateException.class)).accepts(hints);
    }

    @Test
    void retryableTopicExceptionClassesGivenByNameAreRegisteredForLoadingByName() {
        RuntimeHints hints = processAheadOfTime(RetryApplication.class, "kafko.ephemeral=true");

        // the listener's @RetryableTopic is read at start-up, which loads includeNames and excludeNames by name
        assertThat(RuntimeHintsPredicates.reflection().onType(InvalidOrder.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(IllegalStateException.class)).accepts(hints);
    }

    private static RuntimeHints processAheadOfTime(Class<?> application, String... properties) {
        AnnotationConfigApplicationContext source = new AnnotationConfigApplicationContext();
        source.register(application);
        TestPropertyValues.of(properties).applyTo(source);
        TestGenerationContext generation = new TestGenerationContext(application);
        new ApplicationContextAotGenerator().processAheadOfTime(source, generation);
        return generation.getRuntimeHints();
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({JacksonAutoConfiguration.class, KafkoAutoConfiguration.class})
    static class Application {

        @Bean
        Listeners listeners() {
            return new Listeners();
        }

        @Bean
        Handlers handlers() {
            return new Handlers();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({JacksonAutoConfiguration.class, KafkoAutoConfiguration.class})
    static class RetryApplication {

        @Bean
        RetryListeners retryListeners() {
            return new RetryListeners();
        }
    }

    static class RetryListeners {

        @RetryableTopic(includeNames = "dev.kafko.spring.autoconfigure.KafkoRuntimeHintsTest$InvalidOrder")
        @KafkoListener(id = "included", topics = "included")
        void included(String value) {
        }

        @RetryableTopic(excludeNames = "java.lang.IllegalStateException")
        @KafkoListener(id = "excluded", topics = "excluded")
        void excluded(String value) {
        }
    }

    record Receipt(String orderId) {
    }

    record Line(String sku, int quantity) {
    }

    record Placed(String id) {
    }

    sealed interface Event permits Created, Removal {
    }

    record Created(String id) implements Event {
    }

    sealed interface Removal extends Event permits Deleted, Purged {
    }

    record Deleted(String id) implements Removal {
    }

    record Purged(String id) implements Removal {
    }

    static class InvalidOrder extends RuntimeException {
    }

    static class Listeners {

        @KafkoListener(id = "orders", topics = "orders")
        @SendTo("receipts")
        Receipt onOrder(Order order, @Header(KafkoHeaders.RECEIVED_KEY) String customer) {
            return new Receipt(order.id());
        }

        @KafkoListener(id = "lines", topics = "lines", batch = "true")
        void onBatch(List<Line> lines) {
        }

        @KafkoListener(id = "events", topics = "events", batch = "true")
        void onEvents(List<Event> events) {
        }

        @DltHandler
        void dead(String value) {
        }

        @KafkoListener(id = "left", topics = "left")
        @KafkoListener(id = "right", topics = "right")
        void onEither(String value) {
        }
    }

    @KafkoListener(id = "handled", topics = "handled")
    static class Handlers {

        @KafkoHandler
        void placed(Placed placed) {
        }
    }
}
