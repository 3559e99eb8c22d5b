package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.UnregisterDuringStartOfOwnContainersTest.OwnContainer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Once its context has been refreshed, the registry starts every container, whatever its {@code autoStartup}, as
 * spring-kafka's does ({@code alwaysStartAfterRefresh}): a ported application that holds its listeners back with
 * {@code autoStartup = "false"} and starts them with {@code registry.start()} had them stay stopped, reading nothing,
 * without a word. Until the registry's stop only: a start after it (the context's start after its stop, its restart
 * after the pause Spring's test context cache makes) weighs {@code autoStartup} again, as spring-kafka's does since
 * 4.0.8, instead of starting the listeners held back.
 */
class RegistryStartAfterRefreshTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=100ms")
            .withUserConfiguration(HeldBack.class);

    @Configuration(proxyBeanMethods = false)
    static class HeldBack {
        @Bean
        Listeners listeners() {
            return new Listeners();
        }
    }

    static class Listeners {
        @KafkoListener(id = "held", topics = "held-orders", autoStartup = "false")
        void held(String order) {
        }

        @KafkoListener(id = "eager", topics = "eager-orders")
        void eager(String order) {
        }
    }

    /** An own container that does not start with the context. */
    static final class HeldContainer extends OwnContainer {
        HeldContainer(String id) {
            super(id, false);
        }

        @Override
        public boolean isAutoStartup() {
            return false;
        }
    }

    @Test
    void theContextStartsOnlyTheAutoStartupContainers() {
        runner.run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            assertThat(registry.getListenerContainer("eager").isRunning()).isTrue();
            assertThat(registry.getListenerContainer("held").isRunning()).isFalse();
        });
    }

    @Test
    void aStartOfTheRunningRegistryAfterTheRefreshStartsTheContainersThatAreNotAutoStartup() {
        runner.run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            assertThat(registry.isAlwaysStartAfterRefresh()).as("spring-kafka's default").isTrue();

            registry.start(); // an application that holds its listeners back until it is ready

            assertThat(registry.getListenerContainer("held").isRunning()).as("spring-kafka's start after a refresh")
                    .isTrue();
            assertThat(registry.getListenerContainer("eager").isRunning()).isTrue();
        });
    }

    @Test
    void aStartOfTheRegistryAfterItsStopWeighsAutoStartupAgain() {
        runner.run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            registry.stop();

            registry.start();

            assertThat(registry.getListenerContainer("held").isRunning()).as("held back, as at the context's start")
                    .isFalse();
            assertThat(registry.getListenerContainer("eager").isRunning()).isTrue();
        });
    }

    @Test
    void theContextsStartAfterItsStopStartsOnlyTheAutoStartupContainers() {
        runner.run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            context.stop();
            assertThat(registry.getListenerContainer("eager").isRunning()).isFalse();

            context.start();

            assertThat(registry.getListenerContainer("held").isRunning()).isFalse();
            assertThat(registry.getListenerContainer("eager").isRunning()).isTrue();
        });
    }

    @Test
    void aPausedContextRestartedAsTheTestContextCacheDoesKeepsTheHeldBackListenerStopped() {
        runner.run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            ConfigurableApplicationContext cached = context.getSourceApplicationContext();
            cached.pause(); // Spring's test context cache, when a test class uses another context

            cached.restart(); // and when a later test class uses this one again

            assertThat(registry.getListenerContainer("held").isRunning()).as("held back, as at the context's start")
                    .isFalse();
            assertThat(registry.getListenerContainer("eager").isRunning()).isTrue();
        });
    }

    @Test
    void aContainerRegisteredToStartAfterARestartWeighsItsAutoStartup() {
        runner.run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            context.stop();
            context.start();
            HeldContainer late = new HeldContainer("late");

            registry.registerListenerContainer(late, true);

            assertThat(late.isRunning()).isFalse();
        });
    }

    @Test
    void aContainerRegisteredToStartAfterTheRefreshStartsWhateverItsAutoStartup() {
        runner.run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            HeldContainer late = new HeldContainer("late");

            registry.registerListenerContainer(late, true);

            assertThat(late.isRunning()).isTrue();
        });
    }

    @Test
    void alwaysStartAfterRefreshFalseKeepsWeighingAutoStartup() {
        runner.run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            registry.setAlwaysStartAfterRefresh(false);
            HeldContainer late = new HeldContainer("late");

            registry.start();
            registry.registerListenerContainer(late, true);

            assertThat(registry.getListenerContainer("held").isRunning()).isFalse();
            assertThat(registry.getListenerContainer("eager").isRunning()).isTrue();
            assertThat(late.isRunning()).isFalse();
        });
    }

    @Test
    void aRegistryOutsideAContextWeighsAutoStartup() {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        HeldContainer held = new HeldContainer("held");
        registry.registerListenerContainer(held, false);

        registry.start();

        assertThat(held.isRunning()).isFalse();
        registry.stop();
    }
}
