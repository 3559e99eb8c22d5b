package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import dev.kafko.Kafko;
import dev.kafko.spring.LogCapture;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.SameIntervalTopicReuseStrategy;
import dev.kafko.spring.listener.TopicSuffixingStrategy;
import dev.kafko.spring.retrytopic.RetryTopicConfiguration;
import dev.kafko.spring.retrytopic.RetryTopicConfigurationBuilder;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.Header;

/**
 * {@code @RetryableTopic}'s {@code topicSuffixingStrategy} and {@code sameIntervalTopicReuseStrategy}, and the
 * builder's, as spring-kafka names the retry topics and their containers: a record goes through the topics so named,
 * and what an earlier naming left in its topics is named at the next start.
 */
class RetryTopicNamingStrategiesTest {

    static final List<String> CALLS = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.names.partitions=1");

    @RegisterExtension
    final LogCapture containersLog = new LogCapture(RetryableTopicContainers.class);

    @BeforeEach
    void reset() {
        CALLS.clear();
    }

    @Test
    void theDefaultsNameTheTopicsByTheirDelayAndTheCappedRetriesReadTheLastAgain() {
        runner.withBean(Defaults.class).run(context -> {
            failOneRecord(context);
            // 10, 20, then 40 capped at 20 ms
            assertThat(CALLS).containsExactly("names", "names-retry-10", "names-retry-20", "names-retry-20",
                    "names-dlt");
            assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainerIds())
                    .contains("names", "names-retry-10", "names-retry-20", "names-dlt");
        });
    }

    @Test
    void multipleTopicsGiveEachCappedRetryItsOwnTopicAndContainer() {
        runner.withBean(Multiple.class).run(context -> {
            failOneRecord(context);
            assertThat(CALLS).containsExactly("names", "names-retry-10", "names-retry-20-0", "names-retry-20-1",
                    "names-dlt");
            assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainerIds())
                    .contains("names-retry-10", "names-retry-20-0", "names-retry-20-1")
                    .doesNotContain("names-retry-20");
            assertThat(context.getBean(Kafko.class).topics()).contains("names-retry-20-0", "names-retry-20-1")
                    .doesNotContain("names-retry-20");
        });
    }

    @Test
    void aRetryTopicConfigurationBeanNamesTheTopicsAsItsBuilderWasTold() {
        runner.withUserConfiguration(IndexedByBuilder.class).withBean(Plain.class).run(context -> {
            failOneRecord(context);
            assertThat(CALLS).containsExactly("names", "names-retry-0", "names-retry-1", "names-retry-2",
                    "names-dlt");
            assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainerIds())
                    .contains("plain-retry-0", "plain-retry-1", "plain-retry-2");
        });
    }

    @Test
    void recordsLeftInTheTopicsOfAnEarlierNamingAreNamedAtTheNextStart(@TempDir Path dir) {
        ApplicationContextRunner onDisk = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.topics.names.partitions=1");
        // the earlier naming forwarded a record to names-retry-20-1, the group's third retry topic, and stopped
        onDisk.run(context -> template(context).send("names-retry-20-1", 0, "k", "left").join());

        onDisk.withBean(Defaults.class).run(context -> assertThat(context).hasNotFailed());
        assertThat(containersLog.events()).filteredOn(e -> e.getLevel() == Level.WARN).singleElement()
                .satisfies(e -> assertThat(e.getFormattedMessage()).contains(
                        "reads the retry topics [names-retry-10, names-retry-20], not 'names-retry-20-1' (1),"
                                + " which hold 1 record(s)")
                        .doesNotContain("SUFFIX_WITH_INDEX_VALUE"));
    }

    @Test
    void recordsLeftInTheNumberedTopicsOfAnEarlierVersionAreNamedWithTheStrategyThatReadsThem(@TempDir Path dir) {
        ApplicationContextRunner onDisk = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.topics.names.partitions=1");
        // an earlier version numbered the two retry topics of this back-off: names-retry-0 and names-retry-1
        onDisk.run(context -> template(context).send("names-retry-0", 0, "k", "left").join());

        onDisk.withBean(Defaults.class).run(context -> assertThat(context).hasNotFailed());
        assertThat(containersLog.events()).filteredOn(e -> e.getLevel() == Level.WARN).singleElement()
                .satisfies(e -> assertThat(e.getFormattedMessage()).contains(
                        "reads the retry topics [names-retry-10, names-retry-20], not 'names-retry-0' (1)",
                        "with topicSuffixingStrategy = SUFFIX_WITH_INDEX_VALUE this listener reads them"));

        // and so it does: the record left there is retried (sent without the attempts header, it counts from one)
        onDisk.withBean(Indexed.class).run(context -> {
            assertThat(context).hasNotFailed();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
            assertThat(CALLS).startsWith("names-retry-0").endsWith("names-dlt").doesNotContain("names");
        });
    }

    /** Sends a record the listener always fails on, and waits until it went through every topic. */
    private static void failOneRecord(AssertableApplicationContext context) {
        assertThat(context).hasNotFailed();
        template(context).send("names", 0, "k", "never").join();
        KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
    }

    private static void call(String topic) {
        CALLS.add(topic);
        if (!topic.endsWith("-dlt")) {
            throw new IllegalStateException("never works");
        }
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(org.springframework.context.ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static class Defaults {
        @RetryableTopic(attempts = "4", backOff = @BackOff(delay = 10, multiplier = 2, maxDelay = 20))
        @KafkoListener(id = "names", topics = "names")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            call(topic);
        }

        @DltHandler
        void dead(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            call(topic);
        }
    }

    static class Multiple {
        @RetryableTopic(attempts = "4", backOff = @BackOff(delay = 10, multiplier = 2, maxDelay = 20),
                topicSuffixingStrategy = TopicSuffixingStrategy.SUFFIX_WITH_DELAY_VALUE,
                sameIntervalTopicReuseStrategy = SameIntervalTopicReuseStrategy.MULTIPLE_TOPICS)
        @KafkoListener(id = "names", topics = "names")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            call(topic);
        }

        @DltHandler
        void dead(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            call(topic);
        }
    }

    static class Indexed {
        @RetryableTopic(attempts = "4", backOff = @BackOff(delay = 10, multiplier = 2, maxDelay = 20),
                topicSuffixingStrategy = TopicSuffixingStrategy.SUFFIX_WITH_INDEX_VALUE)
        @KafkoListener(id = "names", topics = "names")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            call(topic);
        }

        @DltHandler
        void dead(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            call(topic);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class IndexedByBuilder {
        @Bean
        RetryTopicConfiguration indexed() {
            return RetryTopicConfigurationBuilder.newInstance().exponentialBackoff(10, 2, 1_000).maxAttempts(4)
                    .suffixTopicsWithIndexValues().sameIntervalTopicReuseStrategy(
                            SameIntervalTopicReuseStrategy.MULTIPLE_TOPICS)
                    .dltHandlerMethod("deadLetters", "dead").create();
        }

        @Bean
        DeadLetters deadLetters() {
            return new DeadLetters();
        }
    }

    static class DeadLetters {
        public void dead(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            call(topic);
        }
    }

    static class Plain {
        @KafkoListener(id = "plain", topics = "names")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            call(topic);
        }
    }
}
