package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.retrytopic.RetryTopicConfiguration;
import dev.kafko.spring.retrytopic.RetryTopicConfigurationBuilder;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * spring-kafka's {@code factory.setBatchListener(true)}: the listeners of that factory without a {@code batch}
 * attribute take a whole poll; the attribute still wins, {@code setBatchListener(false)} wins over
 * {@code kafko.listener.type=batch}, and listeners that cannot be batch listeners fail the start saying why.
 */
class BatchListenerFactoryTest {

    static final List<String> HEARD = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.letters.partitions=1");

    @BeforeEach
    void clear() {
        HEARD.clear();
    }

    @Test
    void aBatchFactorysListenersTakeThePollUnlessTheirAttributeSaysOtherwise() {
        runner.withUserConfiguration(BatchFactory.class).withBean(OnTheBatchFactory.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean("batchFactory", KafkoListenerContainerFactory.class).isBatchListener()).isTrue();
            assertThat(context.getBean("kafkoListenerContainerFactory", KafkoListenerContainerFactory.class)
                    .isBatchListener()).as("the factory it was copied from").isNull();
            sendWhileStopped(context, List.of("list", "one", "plain"), "a", "b", "c");
            // one poll of all three for the batch factory's listener; one at a time for the one that says
            // batch = "false" and for the listener of the auto-configured factory
            assertThat(HEARD).filteredOn(h -> h.startsWith("list:")).containsExactly("list:[a, b, c]");
            assertThat(HEARD).filteredOn(h -> h.startsWith("one:")).containsExactly("one:a", "one:b", "one:c");
            assertThat(HEARD).filteredOn(h -> h.startsWith("plain:"))
                    .containsExactly("plain:a", "plain:b", "plain:c");
        });
    }

    @Test
    void aRecordFactoryWinsOverTheTypeProperty() {
        runner.withUserConfiguration(RecordFactory.class).withBean(OnTheRecordFactory.class)
                .withPropertyValues("kafko.listener.type=batch").run(context -> {
                    assertThat(context).hasNotFailed();
                    sendWhileStopped(context, List.of("record", "list"), "a", "b");
                    assertThat(HEARD).filteredOn(h -> h.startsWith("record:")).containsExactly("record:a", "record:b");
                    assertThat(HEARD).filteredOn(h -> h.startsWith("list:")).as("kafko.listener.type=batch")
                            .containsExactly("list:[a, b]");
                });
    }

    @Test
    void aCopyKeepsTheSetting() {
        runner.run(context -> {
            KafkoListenerContainerFactory factory = context.getBean(KafkoListenerContainerFactory.class).copy();
            assertThat(factory.isBatchListener()).isNull();
            factory.setBatchListener(true);
            assertThat(factory.copy().isBatchListener()).isTrue();
            factory.setBatchListener(false);
            assertThat(factory.copy().isBatchListener()).isFalse();
        });
    }

    @Test
    void aRetryableTopicListenerOnABatchFactoryFailsTheStartNamingTheFactorysSetting() {
        runner.withUserConfiguration(BatchFactory.class).withBean(RetryableOnTheBatchFactory.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("@KafkoListener 'retried'")
                    .hasStackTraceContaining("is made a batch listener by its container factory's"
                            + " setBatchListener(true): retry topics take one record at a time; give it"
                            + " batch = \"false\"");
        });
    }

    @Test
    void aRetryTopicConfigurationForEveryTopicLeavesABatchFactorysListenerWithoutRetryTopics() {
        runner.withUserConfiguration(BatchFactory.class, EveryTopic.class).withBean(OnTheBatchFactory.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
                    // the batch listener keeps its blocking retries; the record listeners get retry topics
                    assertThat(registry.getListenerContainerIds()).contains("list", "one", "plain")
                            .noneMatch(id -> id.startsWith("list-"))
                            .anyMatch(id -> id.startsWith("one-"));
                });
    }

    @Test
    void aClassLevelListenerOnABatchFactoryFailsTheStartSayingHowToKeepItARecordListener() {
        runner.withUserConfiguration(BatchFactory.class).withBean(ClassLevel.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("is a class-level @KafkoListener made a"
                    + " batch listener (by its batch attribute, kafko.listener.type=batch or its container factory's"
                    + " setBatchListener(true))").hasStackTraceContaining("give it batch = \"false\"");
        });
    }

    /** Sends the records with the listeners stopped, so that each reads them in one poll once started. */
    private static void sendWhileStopped(ApplicationContext context, List<String> ids, String... values) {
        KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
        ids.forEach(id -> registry.getListenerContainer(id).stop());
        @SuppressWarnings("unchecked")
        KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
        for (String value : values) {
            template.send("letters", value).join();
        }
        ids.forEach(id -> registry.getListenerContainer(id).start());
        KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
    }

    @Configuration(proxyBeanMethods = false)
    static class BatchFactory {
        @Bean
        KafkoListenerContainerFactory batchFactory(KafkoListenerContainerFactory kafkoListenerContainerFactory) {
            KafkoListenerContainerFactory factory = kafkoListenerContainerFactory.copy();
            factory.setBatchListener(true);
            return factory;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class RecordFactory {
        @Bean
        KafkoListenerContainerFactory recordFactory(KafkoListenerContainerFactory kafkoListenerContainerFactory) {
            KafkoListenerContainerFactory factory = kafkoListenerContainerFactory.copy();
            factory.setBatchListener(false);
            return factory;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class EveryTopic {
        @Bean
        RetryTopicConfiguration everyTopic() {
            return RetryTopicConfigurationBuilder.newInstance().fixedBackOff(60_000).maxAttempts(2).create();
        }
    }

    static class OnTheBatchFactory {
        @KafkoListener(id = "list", topics = "letters", containerFactory = "batchFactory")
        void list(List<String> words) {
            HEARD.add("list:" + words);
        }

        @KafkoListener(id = "one", topics = "letters", containerFactory = "batchFactory", batch = "false")
        void one(String word) {
            HEARD.add("one:" + word);
        }

        @KafkoListener(id = "plain", topics = "letters")
        void plain(String word) {
            HEARD.add("plain:" + word);
        }
    }

    static class OnTheRecordFactory {
        @KafkoListener(id = "record", topics = "letters", containerFactory = "recordFactory")
        void record(String word) {
            HEARD.add("record:" + word);
        }

        @KafkoListener(id = "list", topics = "letters")
        void list(List<String> words) {
            HEARD.add("list:" + words);
        }
    }

    static class RetryableOnTheBatchFactory {
        @KafkoListener(id = "retried", topics = "letters", containerFactory = "batchFactory")
        @RetryableTopic(attempts = "2")
        void retried(String word) {
        }
    }

    @KafkoListener(id = "handlers", topics = "letters", containerFactory = "batchFactory")
    static class ClassLevel {
        @KafkoHandler
        void on(String word) {
        }
    }
}
