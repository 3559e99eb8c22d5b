package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import dev.kafko.InvalidNameException;
import dev.kafko.spring.LogCapture;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.RetryTopics;
import dev.kafko.spring.listener.SameIntervalTopicReuseStrategy;
import dev.kafko.spring.retrytopic.RetryTopicConfigurationBuilder;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * The retry topics' names and back-offs against spring-kafka 4.0's for the same settings (its
 * {@code DestinationTopicPropertiesFactory} over the values its {@code BackOffValuesGenerator} takes from spring-core's
 * {@code FixedBackOff} or {@code ExponentialBackOff}), and the start's checks of those names.
 */
class RetryTopicNamingReviewTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @RegisterExtension
    final LogCapture containersLog = new LogCapture(RetryableTopicContainers.class);

    private static List<String> topicOfEachRetry(RetryTopics topics) {
        List<String> read = new ArrayList<>();
        for (int attempt = 2; attempt <= topics.attempts(); attempt++) {
            read.add(topics.topicOfAttempt(attempt) + "@" + topics.backOffBefore(attempt));
        }
        return read;
    }

    @Test
    void theBuilderGivesEachRetryOfOneBackOffItsOwnTopicByDefaultAsSpringKafkasBuilderDoes() {
        // spring-kafka's builder defaults to MULTIPLE_TOPICS (its annotation to SINGLE_TOPIC)
        assertThat(RetryTopicConfigurationBuilder.newInstance().maxAttempts(4).create().plan("orders").retryTopics())
                .containsExactly("orders-retry-0", "orders-retry-1", "orders-retry-2");
        assertThat(topicOfEachRetry(RetryTopicConfigurationBuilder.newInstance().exponentialBackoff(1_000, 2, 5_000)
                .maxAttempts(6).create().plan("orders"))).containsExactly("orders-retry-1000@1000",
                "orders-retry-2000@2000", "orders-retry-4000@4000", "orders-retry-5000-0@5000",
                "orders-retry-5000-1@5000");
        assertThat(RetryTopicConfigurationBuilder.newInstance().noBackoff().maxAttempts(3).create().plan("orders")
                .retryTopics()).containsExactly("orders-retry-0", "orders-retry-1");
        // one retry: named by its back-off, as spring-kafka's builder names it
        assertThat(RetryTopicConfigurationBuilder.newInstance().maxAttempts(2).create().plan("orders").retryTopics())
                .containsExactly("orders-retry-1000");
        assertThat(RetryTopicConfigurationBuilder.newInstance().maxAttempts(4).useSingleTopicForSameIntervals()
                .create().plan("orders").retryTopics()).containsExactly("orders-retry");
    }

    @Test
    void aMultipliedBackOffIsTruncatedAtEachStepAsSpringsExponentialBackOffDoes() {
        // spring-kafka: 1000, 1500, 2250, 3375, 5062, 7593, 11389, 17083 (each the one before times 1.5, truncated)
        RetryTopics topics = new RetryTopics("orders", 9, 1_000, 1.5, 100_000, "-retry", "-dlt", List.of(),
                List.of());
        assertThat(topics.retryTopics()).containsExactly("orders-retry-1000", "orders-retry-1500",
                "orders-retry-2250", "orders-retry-3375", "orders-retry-5062", "orders-retry-7593",
                "orders-retry-11389", "orders-retry-17083");
        // 1 ms times 1.5 truncates to 1 ms again, for ever: a fixed back-off of one topic
        RetryTopics tiny = new RetryTopics("orders", 4, 1, 1.5, 0, "-retry", "-dlt", List.of(), List.of());
        assertThat(topicOfEachRetry(tiny)).containsExactly("orders-retry@1", "orders-retry@1", "orders-retry@1");
    }

    @Test
    void aMaxDelayBelowTheDelayIsEveryBackOffAsInSpringKafka() {
        // spring-kafka 4.0's @BackOff(delay = 1000, maxDelay = 500[, multiplier = 2]): an ExponentialBackOff whose
        // every interval is at most maxDelay, the first included
        RetryTopics multiplied = new RetryTopics("orders", 3, 1_000, 2, 500, "-retry", "-dlt", List.of(), List.of());
        assertThat(topicOfEachRetry(multiplied)).containsExactly("orders-retry@500", "orders-retry@500");
        RetryTopics fixed = new RetryTopics("orders", 3, 1_000, 0, 500, "-retry", "-dlt", List.of(), List.of());
        assertThat(topicOfEachRetry(fixed)).containsExactly("orders-retry@500", "orders-retry@500");
        assertThat(fixed.dltBackOff()).isEqualTo(500);
    }

    @Test
    void backOffsValueIsItsDelayAsInSpringKafka() {
        runner.withBean(ValueOnly.class).run(context -> {
            assertThat(context).hasNotFailed();
            // @BackOff(2000): a fixed back-off of 2 s; one retry of its own topic is named by it
            assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainerIds())
                    .contains("value", "value-retry-2000", "value-dlt");
        });
    }

    static class ValueOnly {
        @RetryableTopic(attempts = "2", backOff = @BackOff(2000),
                sameIntervalTopicReuseStrategy = SameIntervalTopicReuseStrategy.MULTIPLE_TOPICS)
        @KafkoListener(id = "value", topics = "value")
        void on(String value) {
        }
    }

    @Test
    void aRetryTopicNameTheDelayDigitsMakeTooLongFailsTheStartNamingTheListener() {
        // a topic of 240 characters is valid; its first retry topic, with "-retry-1000", has 251
        runner.withPropertyValues("long.topic=" + "t".repeat(240)).withBean(LongTopic.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(InvalidNameException.class);
            assertThat(context.getStartupFailure()).hasCauseInstanceOf(InvalidKafkoListenerException.class);
            assertThat(context.getStartupFailure().getCause()).hasMessageContaining("@RetryableTopic listener 'long'")
                    .hasMessageContaining("its retry topic '" + "t".repeat(240) + "-retry-1000' breaks the topic"
                            + " naming rule");
        });
    }

    static class LongTopic {
        @RetryableTopic(attempts = "3", backOff = @BackOff(delay = 1000, multiplier = 2))
        @KafkoListener(id = "long", topics = "${long.topic}")
        void on(String value) {
        }
    }

    @Test
    void twoRetryableListenersOfOneTopicAreNotWarnedOfEachOthersRetryTopics(@TempDir Path dir) {
        ApplicationContextRunner onDisk = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.topics.two.partitions=1");
        // each listener fails the record and forwards it to its first retry topic, where it waits a minute
        onDisk.withBean(TwoListeners.class).run(context -> {
            assertThat(context).hasNotFailed();
            template(context).send("two", 0, "k", "never").join();
            assertThat(KafkoTestUtils.records(context, "two-retry", 1, Duration.ofSeconds(30))).hasSize(1);
            assertThat(KafkoTestUtils.records(context, "two-retry-60000", 1, Duration.ofSeconds(30))).hasSize(1);
        });

        onDisk.withBean(TwoListeners.class).run(context -> assertThat(context).hasNotFailed());
        assertThat(containersLog.events()).filteredOn(e -> e.getLevel() == Level.WARN).isEmpty();
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static class TwoListeners {
        @RetryableTopic(attempts = "2", backOff = @BackOff(60_000))
        @KafkoListener(id = "fixed", topics = "two", groupId = "fixed")
        void fixed(String value) {
            throw new IllegalStateException("never works");
        }

        @RetryableTopic(attempts = "3", backOff = @BackOff(delay = 60_000, multiplier = 2, maxDelay = 200_000))
        @KafkoListener(id = "multiplied", topics = "two", groupId = "multiplied")
        void multiplied(String value) {
            throw new IllegalStateException("never works");
        }
    }
}
