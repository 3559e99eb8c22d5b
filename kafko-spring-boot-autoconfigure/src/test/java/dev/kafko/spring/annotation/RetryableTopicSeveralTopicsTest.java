package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.LogCapture;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
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
 * A {@code @RetryableTopic} listener of several topics, as spring-kafka takes it: retry and dead-letter topics for
 * each, the i-th retry topic of every topic read by one container, each record forwarded along its own topic's
 * retry topics to its own dead-letter topic; a retry topic that would be one of the listener's topics is refused.
 */
class RetryableTopicSeveralTopicsTest {

    static final List<String> CALLS = new CopyOnWriteArrayList<>();

    @RegisterExtension
    final LogCapture containersLog = new LogCapture(RetryableTopicContainers.class);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.orders.partitions=2",
                    "kafko.topics.refunds.partitions=3");

    @Test
    void eachTopicsRecordsGoAlongItsOwnRetryTopicsToItsOwnDeadLetterTopic() {
        CALLS.clear();
        runner.withBean(TwoTopics.class).run(context -> {
            assertThat(context).hasNotFailed();
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            assertThat(registry.getListenerContainerIds()).containsExactlyInAnyOrder("both", "both-retry-10",
                    "both-retry-20", "both-dlt");
            assertThat(registry.getListenerContainer("both-retry-10").getTopics())
                    .containsExactly("orders-retry-10", "refunds-retry-10");
            assertThat(registry.getListenerContainer("both-dlt").getTopics())
                    .containsExactly("orders-dlt", "refunds-dlt");
            template(context).send("orders", 1, "k", "o1").join();
            template(context).send("refunds", 2, "k", "r1").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
            assertThat(CALLS).filteredOn(c -> c.endsWith(":o1")).containsExactly("orders:o1", "orders-retry-10:o1",
                    "orders-retry-20:o1", "dlt orders-dlt:o1");
            assertThat(CALLS).filteredOn(c -> c.endsWith(":r1")).containsExactly("refunds:r1",
                    "refunds-retry-10:r1", "refunds-retry-20:r1", "dlt refunds-dlt:r1");
            // made with each listener topic's partitions, the record kept on its partition all along
            KafkoRecord dead = KafkoTestUtils.singleRecord(context, "refunds-dlt", Duration.ofSeconds(10));
            assertThat(dead.partition()).isEqualTo(2);
            assertThat(new String(dead.headers().lastValue(KafkoHeaders.DLT_ORIGINAL_TOPIC), StandardCharsets.UTF_8))
                    .isEqualTo("refunds");
            assertThat(context.getBean(Kafko.class).topic("refunds-retry-10").orElseThrow().partitions()).hasSize(3);
            assertThat(context.getBean(Kafko.class).topic("orders-retry-10").orElseThrow().partitions()).hasSize(2);
        });
    }

    @Test
    void aRetryTopicThatIsOneOfTheListenersTopicsFailsTheStartNamingIt() {
        runner.withPropertyValues("kafko.topics.orders-retry.partitions=1").withBean(ReadsItsOwnRetryTopic.class)
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("@RetryableTopic listener 'own'")
                        .hasStackTraceContaining("its retry topic 'orders-retry' of topic 'orders' is one of the"
                                + " topics it listens to; give it another retryTopicSuffix or dltTopicSuffix"));
    }

    @Test
    void undeclaredRetryAndDeadLetterTopicsOfEveryTopicAreNamedInOneFailure() {
        runner.withPropertyValues("kafko.auto-create-topics=false").withBean(TwoTopics.class)
                .run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining(
                        "The @RetryableTopic listener of topics [orders, refunds] reads and writes topics that do not"
                                + " exist and are not created on first use: declare them"
                                + " (kafko.topics.orders-retry-10.partitions=2, kafko.topics.orders-retry-20.partitions=2,"
                                + " kafko.topics.orders-dlt.partitions=2, kafko.topics.refunds-retry-10.partitions=3,"
                                + " kafko.topics.refunds-retry-20.partitions=3, kafko.topics.refunds-dlt.partitions=3)"));
        // once all are declared, it starts
        runner.withPropertyValues("kafko.auto-create-topics=false", "kafko.topics.orders-retry-10.partitions=2",
                "kafko.topics.orders-retry-20.partitions=2", "kafko.topics.orders-dlt.partitions=2",
                "kafko.topics.refunds-retry-10.partitions=3", "kafko.topics.refunds-retry-20.partitions=3",
                "kafko.topics.refunds-dlt.partitions=3").withBean(TwoTopics.class)
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void aRetryTopicNamedTopicTheListenerReadsItselfIsNotNamedAsAbandoned(@TempDir Path dir) {
        ApplicationContextRunner onDisk = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.topics.orders.partitions=1");
        // orders-retry, a fixed back-off's retry topic once, is now one of the listener's topics, which it drains;
        // orders-retry-5 was left by another back-off and is read by nothing
        onDisk.run(context -> {
            template(context).send("orders-retry", 0, "k", "left").join();
            template(context).send("orders-retry-5", 0, "k", "left").join();
        });
        onDisk.withBean(DrainsAnEarlierRetryTopic.class).run(context -> assertThat(context).hasNotFailed());
        assertThat(containersLog.events()).filteredOn(e -> e.getLevel() == Level.WARN).singleElement()
                .satisfies(e -> assertThat(e.getFormattedMessage()).contains("Retryable listener 'drains' of topic"
                        + " 'orders' reads the retry topics [orders-retry-10, orders-retry-20], not 'orders-retry-5'"
                        + " (1), which hold 1 record(s)"));
    }

    @Test
    void aNameThatWouldBeARetryTopicOfOneTopicAndADeadLetterTopicOfAnotherFailsTheStartNamingIt() {
        runner.withPropertyValues("kafko.topics.q.partitions=1", "kafko.topics.q-x.partitions=1")
                .withBean(CrossedSuffixes.class).run(context -> assertThat(context).hasFailed().getFailure()
                        .hasStackTraceContaining("@RetryableTopic listener 'crossed'")
                        .hasStackTraceContaining("the topic 'q-x-y' would be a retry or dead-letter topic of both its"
                                + " topics 'q' and 'q-x'"));
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static class TwoTopics {
        @RetryableTopic(attempts = "3", backOff = @BackOff(delay = 10, multiplier = 2))
        @KafkoListener(id = "both", topics = {"orders", "refunds"})
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            CALLS.add(topic + ":" + value);
            throw new IllegalStateException("fails " + value);
        }

        @DltHandler
        void dead(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            CALLS.add("dlt " + topic + ":" + value);
        }
    }

    static class DrainsAnEarlierRetryTopic {
        @RetryableTopic(attempts = "3", backOff = @BackOff(delay = 10, multiplier = 2))
        @KafkoListener(id = "drains", topics = {"orders", "orders-retry"})
        void on(String value) {
        }
    }

    static class CrossedSuffixes {
        @RetryableTopic(retryTopicSuffix = "-x-y", dltTopicSuffix = "-y")
        @KafkoListener(id = "crossed", topics = {"q", "q-x"})
        void on(String value) {
        }
    }

    static class ReadsItsOwnRetryTopic {
        @RetryableTopic
        @KafkoListener(id = "own", topics = {"orders", "orders-retry"})
        void on(String value) {
        }
    }
}
