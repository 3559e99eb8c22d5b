package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What the lazy-initialization tests left unchecked (found by mutation testing: the test fails with either change it
 * names): under lazy initialization only the beans with listener methods are made at the start; a bean without any
 * stays lazy (it was made at the start when the filter kept every bean eager, or made every singleton it was asked
 * about that had no listener methods).
 */
class ListenerBeansFilterMutationGapsTest {

    static final List<String> MADE = new CopyOnWriteArrayList<>();

    static class Listening {
        Listening() {
            MADE.add("listening");
        }

        @KafkoListener(id = "gaps-lazy", topics = "gaps-lazy", autoStartup = "false")
        void on(String value) {
        }
    }

    static class Plain {
        Plain() {
            MADE.add("plain");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {
        @Bean
        Plain gapsPlain() {
            return new Plain();
        }

        @Bean
        Listening gapsListening() {
            return new Listening();
        }
    }

    @BeforeEach
    void reset() {
        MADE.clear();
    }

    @Test
    void underLazyInitializationOnlyListenerBeansAreMadeAtTheStart() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withUserConfiguration(Config.class)
                .withInitializer(context -> context.addBeanFactoryPostProcessor(
                        new LazyInitializationBeanFactoryPostProcessor()))
                .withPropertyValues("kafko.ephemeral=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(MADE).containsExactly("listening");
                    assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainerIds())
                            .containsExactly("gaps-lazy");
                    context.getBean(Plain.class); // made at its first use
                    assertThat(MADE).containsExactly("listening", "plain");
                });
    }
}
