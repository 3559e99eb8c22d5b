package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.annotation.KafkoListener;
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

/**
 * Ahead-of-time processing of a payload shape {@link KafkoRuntimeHintsTest} leaves out: a sealed payload type one
 * of whose subclasses has a type parameter bounded by itself ({@code T extends Comparable<T>}), which the walk over
 * type arguments must not follow for ever.
 */
class KafkoAotHintsEdgeTest {

    @Test
    void aSealedPayloadWithASelfReferencingGenericSubclassIsProcessed() {
        RuntimeHints hints = processAheadOfTime(Application.class, "kafko.ephemeral=true");

        assertThat(RuntimeHintsPredicates.reflection().onConstructorInvocation(
                Ranked.class.getDeclaredConstructors()[0])).accepts(hints);
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
        Listeners edgeListeners() {
            return new Listeners();
        }
    }

    sealed interface Shape permits Ranked {
    }

    /** A query over a range of any comparable kind of value: a type parameter bounded by itself. */
    record Ranked<T extends Comparable<T>>(T from, T to) implements Shape {
    }

    static class Listeners {

        @KafkoListener(id = "shapes", topics = "shapes")
        void onShape(Shape shape) {
        }
    }
}
