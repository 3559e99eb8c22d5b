package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.support.RecordMessageConverter;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.converter.CompositeMessageConverter;
import org.springframework.messaging.converter.StringMessageConverter;

/**
 * Claims of the README's section on running without Boot's auto-configuration that no other test checks, each test
 * quoting the sentence it checks.
 */
class ReadmeClaimsWithoutBootTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();

    /** The README's configuration, as it is printed there, with a {@code Kafko} bean closed with the context. */
    @Configuration(proxyBeanMethods = false)
    @EnableKafko
    static class ReadmeConfig {
        @Bean(destroyMethod = "close")
        Kafko kafko() {
            return Kafko.open(Path.of(System.getProperty("readme-without-boot.dir")));
        }

        @Bean
        KafkoListenerContainerFactory kafkoListenerContainerFactory(Kafko kafko) {
            KafkoBackend backend = new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true));
            return new KafkoListenerContainerFactory(backend, new RecordMessageConverter(
                    new CompositeMessageConverter(List.of(new StringMessageConverter()))));
        }

        @Bean
        Listener listener() {
            return new Listener();
        }
    }

    static class Listener {
        @KafkoListener(id = "plain-readme", topics = "plain-readme")
        void on(String text) {
            RECEIVED.add(text);
        }
    }

    /**
     * "The context then defines what the auto-configuration would: a {@code Kafko} bean
     * ({@code destroyMethod = "close"}) and a {@code KafkoListenerContainerFactory} over it" (the example compiles
     * and its listener receives; topics are created on first use, the listener's included).
     */
    @Test
    void theReadmesFactoryRunsAListenerInAPlainSpringContext(@TempDir Path dir) {
        System.setProperty("readme-without-boot.dir", dir.toString());
        RECEIVED.clear();
        Kafko closed;
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(ReadmeConfig.class)) {
            closed = context.getBean(Kafko.class);
            closed.producer("plain-readme").send(null, "hi".getBytes()).join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactly("hi");
        } finally {
            System.clearProperty("readme-without-boot.dir");
        }
        assertThatThrownBy(closed::topics).isInstanceOf(KafkoClosedException.class);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableKafko
    static class OwnEnableKafko {
    }

    /**
     * "A listener with no factory to make its container fails the context's start with an
     * {@code InvalidKafkoListenerException} that names it, as it does in a Boot application with
     * {@code kafko.enabled=false} that applies {@code @EnableKafko} itself (without it, nothing processes its
     * listeners: the context starts, and nothing listens)." The README said a Boot application with
     * {@code kafko.enabled=false} failed so, with or without its own {@code @EnableKafko}.
     */
    @Test
    void aListenerInABootApplicationWithKafkoDisabledFailsTheStartOnlyUnderItsOwnEnableKafko() {
        ApplicationContextRunner disabled = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.enabled=false").withBean(Listener.class);
        disabled.withUserConfiguration(OwnEnableKafko.class).run(context -> assertThat(context).getFailure()
                .isInstanceOf(InvalidKafkoListenerException.class)
                .hasMessageContaining("@KafkoListener 'plain-readme' on"));
        disabled.run(context -> assertThat(context).hasNotFailed()
                .doesNotHaveBean(KafkoListenerEndpointRegistry.class));
    }
}
