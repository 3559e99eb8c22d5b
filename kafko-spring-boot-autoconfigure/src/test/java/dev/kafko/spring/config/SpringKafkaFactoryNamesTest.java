package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.listener.DefaultErrorHandler;
import dev.kafko.spring.listener.KafkoErrorHandler;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.backoff.FixedBackOff;

/**
 * A container factory configured with spring-kafka's names ({@code setConcurrency}, {@code setCommonErrorHandler}),
 * as a ported configuration class writes it: the containers it makes run with those settings, an endpoint's own
 * concurrency still wins, and the containers answer to the same names.
 */
class SpringKafkaFactoryNamesTest {

    static final List<String> RECOVERED = new CopyOnWriteArrayList<>();
    static final Set<String> THREADS = ConcurrentHashMap.newKeySet();
    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.wide.partitions=3",
                    "kafko.topics.narrow.partitions=3");

    @Test
    void aFactoryConfiguredWithSpringKafkasNamesMakesContainersWithThoseSettings() {
        RECOVERED.clear();
        THREADS.clear();
        RECEIVED.clear();
        runner.withUserConfiguration(PortedFactory.class).withBean(Listeners.class).run(context -> {
            assertThat(context).hasNotFailed();
            KafkoListenerContainerFactory factory = context.getBean("wideFactory", KafkoListenerContainerFactory.class);
            assertThat(factory.getContainerProperties().concurrency()).isEqualTo(3);
            assertThat(factory.getCommonErrorHandler()).isSameAs(factory.getErrorHandler())
                    .isSameAs(PortedFactory.RECOVERING);
            // the auto-configured factory it was copied from keeps its own settings
            KafkoListenerContainerFactory original = context.getBean("kafkoListenerContainerFactory",
                    KafkoListenerContainerFactory.class);
            assertThat(original.getContainerProperties().concurrency()).isEqualTo(1);
            assertThat(original.getCommonErrorHandler()).isNotSameAs(factory.getErrorHandler());

            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            ConcurrentMessageListenerContainer wide =
                    (ConcurrentMessageListenerContainer) registry.getListenerContainer("wide");
            ConcurrentMessageListenerContainer narrow =
                    (ConcurrentMessageListenerContainer) registry.getListenerContainer("narrow");
            assertThat(wide.getContainerProperties().concurrency()).isEqualTo(3);
            assertThat(narrow.getContainerProperties().concurrency()).as("the endpoint's concurrency wins")
                    .isEqualTo(1);
            assertThat(wide.getCommonErrorHandler()).isSameAs(factory.getErrorHandler());

            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            for (int p = 0; p < 3; p++) {
                template.send("wide", p, null, "r" + p).join();
            }
            template.send("wide", 0, null, "poison").join();
            template.send("narrow", "n").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).contains("r0", "r1", "r2", "n");
            // three members, one per partition, each on its own thread
            assertThat(THREADS).hasSize(3);
            // no retries (the factory's handler has none), recovered once by the factory's recoverer
            assertThat(RECEIVED).containsOnlyOnce("poison");
            assertThat(RECOVERED).containsExactly("poison");
        });
    }

    @Test
    void aConcurrencyBelowOneIsRefusedNamingIt() {
        runner.run(context -> {
            KafkoListenerContainerFactory factory = context.getBean(KafkoListenerContainerFactory.class).copy();
            assertThatThrownBy(() -> factory.setConcurrency(0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("concurrency must be at least 1, was 0");
            assertThat(factory.getContainerProperties().concurrency()).isEqualTo(1);
            assertThatThrownBy(() -> factory.setCommonErrorHandler(null)).isInstanceOf(NullPointerException.class)
                    .hasMessage("errorHandler");
        });
    }

    @Test
    void aContainerTakesSpringKafkasNamesBeforeItStartsAndRefusesThemAfter() {
        runner.run(context -> {
            KafkoListenerContainerFactory factory = context.getBean(KafkoListenerContainerFactory.class);
            ConcurrentMessageListenerContainer container = factory.createListenerContainer("by-hand", "by-hand",
                    List.of("wide"), (records, ack) -> { });
            KafkoErrorHandler handler = new DefaultErrorHandler(new FixedBackOff(0, 2));
            container.setConcurrency(2);
            container.setCommonErrorHandler(handler);
            assertThat(container.getContainerProperties().concurrency()).isEqualTo(2);
            assertThat(container.getCommonErrorHandler()).isSameAs(handler).isSameAs(container.getErrorHandler());
            assertThatThrownBy(() -> container.setConcurrency(0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("concurrency must be at least 1, was 0");
            container.start();
            try {
                assertThatThrownBy(() -> container.setConcurrency(3)).isInstanceOf(IllegalStateException.class);
                assertThatThrownBy(() -> container.setCommonErrorHandler(new DefaultErrorHandler()))
                        .isInstanceOf(IllegalStateException.class);
                assertThat(container.getContainerProperties().concurrency()).isEqualTo(2);
                assertThat(container.getCommonErrorHandler()).isSameAs(handler);
            } finally {
                container.stop();
            }
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class PortedFactory {
        // not a bean: a KafkoErrorHandler bean would be the auto-configured factory's too
        static final KafkoErrorHandler RECOVERING = new DefaultErrorHandler((record, failure, invocation) ->
                RECOVERED.add(new String(record.value())), new FixedBackOff(0, 0));

        @Bean
        KafkoListenerContainerFactory wideFactory(KafkoListenerContainerFactory kafkoListenerContainerFactory) {
            KafkoListenerContainerFactory factory = kafkoListenerContainerFactory.copy();
            factory.setConcurrency(3);
            factory.setCommonErrorHandler(RECOVERING);
            return factory;
        }
    }

    static class Listeners {
        @KafkoListener(id = "wide", topics = "wide", containerFactory = "wideFactory")
        void wide(String value) {
            THREADS.add(Thread.currentThread().getName());
            RECEIVED.add(value);
            if (value.equals("poison")) {
                throw new IllegalStateException("poison");
            }
        }

        @KafkoListener(id = "narrow", topics = "narrow", containerFactory = "wideFactory", concurrency = "1")
        void narrow(String value) {
            RECEIVED.add(value);
        }
    }
}
