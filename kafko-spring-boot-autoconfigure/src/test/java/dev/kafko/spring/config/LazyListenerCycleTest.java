package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.listener.KafkoListenerErrorHandler;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanCurrentlyInCreationException;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

/**
 * Under lazy initialization, a listener bean whose creation meets a cycle is not skipped without a word: Spring's
 * pre-instantiation skips it (logging at INFO that another thread was making it), and the context started without
 * its listener; it now fails the start as it does without lazy initialization, and a listener bean without a cycle
 * is registered as before.
 */
class LazyListenerCycleTest {

    /** Proxied (an {@code @Async} method), and declares the error handler its own listener names. */
    static class Proxied {
        @KafkoListener(id = "proxied", topics = "cycle", errorHandler = "proxiedFailed", autoStartup = "false")
        void on(String value) {
        }

        @Async
        public void later() {
        }

        @Bean
        KafkoListenerErrorHandler proxiedFailed() {
            return (message, exception) -> null;
        }
    }

    static class Plain {
        @KafkoListener(id = "plain", topics = "cycle", autoStartup = "false")
        void on(String value) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAsync
    static class AsyncConfig {
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withUserConfiguration(AsyncConfig.class)
            .withPropertyValues("kafko.ephemeral=true");

    private final ApplicationContextRunner lazy = runner.withInitializer(context -> context.addBeanFactoryPostProcessor(
            new LazyInitializationBeanFactoryPostProcessor()));

    @Test
    void aListenerBeanWhoseCreationMeetsACycleFailsTheStartUnderLazyInitializationAsWithoutIt() {
        for (ApplicationContextRunner shape : List.of(runner, lazy)) {
            shape.withUserConfiguration(Proxied.class).run(context -> {
                assertThat(context).hasFailed();
                assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
                        .isInstanceOf(BeanCurrentlyInCreationException.class);
            });
        }
    }

    @Test
    void aListenerBeanWithoutACycleIsMadeAndRegisteredUnderLazyInitialization() {
        lazy.withUserConfiguration(Plain.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainerIds())
                    .containsExactly("plain");
        });
    }
}
