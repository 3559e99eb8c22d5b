package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.kafko.Kafko;
import dev.kafko.spring.LogCapture;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.DltStrategy;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.messaging.handler.annotation.Header;

/**
 * Edge cases of a {@code @RetryableTopic} listener of several topics, reviewed against spring-kafka's: each topic's
 * partition count under {@code numPartitions = "-1"}, exception-based dead-letter routing with
 * {@code ALWAYS_RETRY_ON_ERROR} per topic, a restart's warnings per topic, and the retry containers' settings
 * (a concurrency of 1, a manual listener's dead letters committed).
 */
class RetryableTopicSeveralTopicsReviewTest {

    static final List<String> CALLS = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.orders.partitions=2",
                    "kafko.topics.refunds.partitions=3");

    @RegisterExtension
    final LogCapture containersLog = new LogCapture(RetryableTopicContainers.class);

    @Test
    void numPartitionsMinusOneGivesEachTopicsRetryTopicsItsOwnCount() {
        runner.withBean(MinusOne.class).run(context -> {
            assertThat(context).hasNotFailed();
            Kafko kafko = context.getBean(Kafko.class);
            assertThat(kafko.topic("orders-retry").orElseThrow().partitions()).hasSize(2);
            assertThat(kafko.topic("refunds-retry").orElseThrow().partitions()).hasSize(3);
            assertThat(kafko.topic("refunds-dlt").orElseThrow().partitions()).hasSize(3);
        });
    }

    @Test
    void routedDeadLettersOfEachTopicGoBackToTheirOwnTopicUnderAlwaysRetry() {
        CALLS.clear();
        runner.withBean(Routed.class).run(context -> {
            assertThat(context).hasNotFailed();
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            assertThat(registry.getListenerContainerIds()).containsExactlyInAnyOrder("routed", "routed-retry",
                    "routed-bad-dlt", "routed-dlt");
            assertThat(registry.getListenerContainer("routed-bad-dlt").getTopics())
                    .containsExactly("orders-bad-dlt", "refunds-bad-dlt");
            template(context).send("refunds", 2, "k", "bad").join();
            template(context).send("orders", 1, "k", "plain").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
            assertThat(CALLS).filteredOn(c -> c.endsWith(":bad")).startsWith("refunds:bad", "refunds-retry:bad", "dlt refunds-bad-dlt:bad",
                    "dlt refunds-bad-dlt:bad");
            assertThat(CALLS).filteredOn(c -> c.endsWith(":plain")).startsWith("orders:plain", "orders-retry:plain",
                    "dlt orders-dlt:plain");
        });
    }

    @Test
    void aRestartWithOtherBackOffsWarnsOfEachTopicsAbandonedRetryTopics(@TempDir Path dir) {
        ApplicationContextRunner onDisk = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.topics.orders.partitions=1",
                        "kafko.topics.refunds.partitions=1");
        onDisk.withBean(NoWork.class).run(context -> {
            assertThat(context).hasNotFailed();
            for (String topic : List.of("orders-retry-1", "refunds-retry-1")) {
                template(context).send(topic, 0, "k", "left").join();
            }
        });
        containersLog.events().clear();
        onDisk.withBean(NoWork.class).run(context -> assertThat(context).hasNotFailed());
        assertThat(warnings()).hasSize(2);
        assertThat(warnings()).anySatisfy(w -> assertThat(w).contains("of topic 'orders'",
                "not 'orders-retry-1' (1)"));
        assertThat(warnings()).anySatisfy(w -> assertThat(w).contains("of topic 'refunds'",
                "not 'refunds-retry-1' (1)"));
    }

    @Test
    void aManualListenersDltHandlerThatCannotAcknowledgeHasItsDeadLettersCommitted() {
        runner.withBean(ManualOfOne.class).run(context -> {
            assertThat(context).hasNotFailed();
            // concurrency "1" is a count, not refused as below one
            assertThat(((ConcurrentMessageListenerContainer) context.getBean(KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("mo-retry")).getContainerProperties().concurrency()).isEqualTo(1);
            template(context).send("refunds", 1, "k", "never").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
            Kafko kafko = context.getBean(Kafko.class);
            // the listener's own ack mode is manual, but the handler has no Acknowledgment: committed by record
            assertThat(kafko.groupInfo("refunds-dlt", "mo").committed()).containsEntry(1, 1L);
        });
    }

    private List<String> warnings() {
        return containersLog.events().stream().filter(e -> e.getLevel() == Level.WARN)
                .map(ILoggingEvent::getFormattedMessage).toList();
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static class MinusOne {
        @RetryableTopic(numPartitions = "-1")
        @KafkoListener(id = "m1", topics = {"orders", "refunds"})
        void on(String value) {
        }
    }

    static class NoWork {
        @RetryableTopic(backOff = @BackOff(delay = 3_600_000))
        @KafkoListener(id = "nw", topics = {"orders", "refunds"})
        void on(String value) {
        }
    }

    static class ManualOfOne {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10), concurrency = "1")
        @KafkoListener(id = "mo", topics = {"orders", "refunds"}, ackMode = "MANUAL")
        void on(String value, dev.kafko.spring.support.Acknowledgment ack) {
            throw new IllegalStateException("fails");
        }

        @DltHandler
        void dead(String value) {
        }
    }

    static class Routed {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10), dltStrategy = DltStrategy.ALWAYS_RETRY_ON_ERROR,
                exceptionBasedDltRouting = @ExceptionBasedDltDestination(suffix = "-bad",
                        exceptions = IllegalArgumentException.class))
        @KafkoListener(id = "routed", topics = {"orders", "refunds"})
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            CALLS.add(topic + ":" + value);
            if (value.equals("bad")) {
                throw new IllegalArgumentException("bad");
            }
            throw new IllegalStateException("fails");
        }

        @DltHandler
        void dead(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            CALLS.add("dlt " + topic + ":" + value);
            if (value.equals("bad") && CALLS.stream().filter(c -> c.equals("dlt " + topic + ":bad")).count() < 2) {
                throw new IllegalStateException("dlt fails once");
            }
        }
    }
}
