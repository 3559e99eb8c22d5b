package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTopicCreations;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.RecordMessageConverter;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
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

    /** The README's configuration, as it is printed there (its data directory aside). */
    @Configuration(proxyBeanMethods = false)
    @EnableKafko
    static class ReadmeConfig {
        @Bean
        KafkoTopicCreations kafkoTopicCreations() {
            return new KafkoTopicCreations();
        }

        @Bean(destroyMethod = "close")
        Kafko kafko(KafkoTopicCreations creations) {
            return Kafko.open(Path.of(System.getProperty("readme-without-boot.dir")),
                    KafkoOptions.builder().observer(creations).build());
        }

        @Bean
        LogBackend kafkoBackend(Kafko kafko, KafkoTopicCreations creations) {
            return new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true), creations);
        }

        @Bean
        KafkoListenerContainerFactory kafkoListenerContainerFactory(LogBackend backend) {
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

    static class PatternListener {
        @KafkoListener(id = "tenants-readme", topicPattern = "tenant-.*")
        void on(String text) {
            RECEIVED.add(text);
        }
    }

    /**
     * "a {@code topicPattern} listener reads the topics created while it runs, and {@code KafkoTestUtils.records(
     * context, topic, n, timeout)} waits for a topic not created yet": the README's beans tell the backend of topic
     * creations. Its configuration had the backend built inside the factory without them: such a listener read a
     * topic created after its start only from the next start, and the wait failed at once on a topic not there.
     */
    @Test
    void theReadmesBeansLetAPatternListenerReadATopicCreatedWhileItRunsAndATestWaitForATopic(@TempDir Path dir)
            throws Exception {
        System.setProperty("readme-without-boot.dir", dir.toString());
        RECEIVED.clear();
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            context.register(ReadmeConfig.class, PatternListener.class);
            context.refresh();
            Kafko kafko = context.getBean(Kafko.class);
            CompletableFuture<List<KafkoRecord>> awaited = CompletableFuture.supplyAsync(
                    () -> KafkoTestUtils.records(context, "tenant-b", 1, Duration.ofSeconds(20)));
            kafko.createTopic("tenant-a");
            kafko.producer("tenant-a").send(null, "a".getBytes()).join();
            kafko.createTopic("tenant-b");
            kafko.producer("tenant-b").send(null, "b".getBytes()).join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactlyInAnyOrder("a", "b");
            assertThat(awaited.get(30, TimeUnit.SECONDS)).hasSize(1);
        } finally {
            System.clearProperty("readme-without-boot.dir");
        }
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
