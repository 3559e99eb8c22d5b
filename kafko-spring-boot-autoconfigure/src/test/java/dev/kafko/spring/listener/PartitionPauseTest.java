package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.annotation.TopicPartition;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.event.ConsumerPartitionPausedEvent;
import dev.kafko.spring.event.ConsumerPartitionResumedEvent;
import dev.kafko.spring.support.KafkoHeaders;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.event.EventListener;
import org.springframework.messaging.handler.annotation.Header;

/**
 * {@link MessageListenerContainer#pausePartition}: one partition of a listener stops being delivered while the others
 * go on, as spring-kafka's {@code pausePartition} and Kafka's consumer {@code pause} do.
 */
class PartitionPauseTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** "partition:value" of every record delivered, and the partition events ("paused:p", "resumed:p"). */
    static final List<String> SEEN = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Events.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.pp.partitions=2");

    @BeforeEach
    void reset() {
        SEEN.clear();
    }

    static class Events {
        @EventListener
        void paused(ConsumerPartitionPausedEvent e) {
            SEEN.add("paused:" + e.getTopic() + "-" + e.getPartition());
        }

        @EventListener
        void resumed(ConsumerPartitionResumedEvent e) {
            SEEN.add("resumed:" + e.getTopic() + "-" + e.getPartition());
        }
    }

    static class Listening {
        @KafkoListener(id = "pp", topics = "pp", concurrency = "${pp.concurrency:1}")
        void on(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition) {
            SEEN.add(partition + ":" + value);
        }
    }

    @Test
    void aPausedPartitionWaitsWhileTheOthersAreDeliveredAndComesWhenResumed() {
        runner.withBean(Listening.class).run(context -> {
            MessageListenerContainer container = container(context, "pp");
            await().atMost(WAIT).until(() -> !container.getAssignedPartitions().isEmpty());
            container.pausePartition("pp", 0);
            assertThat(container.isPartitionPauseRequested("pp", 0)).isTrue();
            assertThat(container.isPartitionPauseRequested("pp", 1)).isFalse();
            await().atMost(WAIT).until(() -> container.isPartitionPaused("pp", 0));
            assertThat(container.isPartitionPaused("pp", 1)).isFalse();
            assertThat(container.isPaused()).isFalse();
            assertThat(SEEN).containsExactly("paused:pp-0");

            template(context).send("pp", 0, null, "held").join();
            template(context).send("pp", 1, null, "passes").join();
            await().atMost(WAIT).until(() -> SEEN.contains("1:passes"));
            assertThat(SEEN).doesNotContain("0:held");

            container.resumePartition("pp", 0);
            assertThat(container.isPartitionPauseRequested("pp", 0)).isFalse();
            await().atMost(WAIT).until(() -> SEEN.contains("0:held"));
            assertThat(SEEN).containsExactly("paused:pp-0", "1:passes", "resumed:pp-0", "0:held");
            assertThat(container.isPartitionPaused("pp", 0)).isFalse();
        });
    }

    @Test
    void onlyTheMemberThatReadsThePartitionPausesItAndThePauseOutlivesAStopAndAStart() {
        runner.withBean(Listening.class).withPropertyValues("pp.concurrency=2").run(context -> {
            MessageListenerContainer container = container(context, "pp");
            await().atMost(WAIT).until(() -> container.getAssignedPartitions().getOrDefault("pp", java.util.Set.of())
                    .size() == 2);
            container.pausePartition("pp", 1);
            container.pausePartition("pp", 1); // again: one request, one event
            await().atMost(WAIT).until(() -> container.isPartitionPaused("pp", 1));
            assertThat(SEEN).containsExactly("paused:pp-1");

            container.stop();
            assertThat(container.isPartitionPaused("pp", 1)).isFalse();
            assertThat(container.isPartitionPauseRequested("pp", 1)).isTrue();
            template(context).send("pp", 1, null, "held").join();
            template(context).send("pp", 0, null, "passes").join();
            container.start();
            await().atMost(WAIT).until(() -> SEEN.contains("0:passes"));
            await().atMost(WAIT).until(() -> container.isPartitionPaused("pp", 1));
            assertThat(SEEN).doesNotContain("1:held").containsSubsequence("paused:pp-1", "paused:pp-1");

            container.resumePartition("pp", 1);
            await().atMost(WAIT).until(() -> SEEN.contains("1:held"));
        });
    }

    @Test
    void aPartitionOfAnotherTopicOrBeyondTheTopicIsNeverPaused() {
        runner.withBean(Listening.class).run(context -> {
            MessageListenerContainer container = container(context, "pp");
            await().atMost(WAIT).until(() -> !container.getAssignedPartitions().isEmpty());
            container.pausePartition("other", 0);
            container.pausePartition("pp", 7);
            template(context).send("pp", 0, null, "a").join();
            await().atMost(WAIT).until(() -> SEEN.contains("0:a"));
            assertThat(container.isPartitionPaused("other", 0)).isFalse();
            assertThat(container.isPartitionPaused("pp", 7)).isFalse();
            assertThat(SEEN).noneMatch(s -> s.startsWith("paused:"));
        });
    }

    static class ByHand {
        @KafkoListener(id = "byHand", topicPartitions = @TopicPartition(topic = "pp", partitions = {"0", "1"}))
        void on(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition) {
            SEEN.add(partition + ":" + value);
        }
    }

    @Test
    void aListenerOfPartitionsAssignedByHandStartsWithThePartitionPausedThatWasAskedBeforeItsStart() {
        runner.withBean(ByHand.class).withPropertyValues("kafko.listener.concurrency=1").run(context -> {
            MessageListenerContainer container = container(context, "byHand");
            container.stop();
            template(context).send("pp", 0, null, "held").join();
            template(context).send("pp", 1, null, "passes").join();
            container.pausePartition("pp", 0);
            container.start();
            await().atMost(WAIT).until(() -> SEEN.contains("1:passes"));
            assertThat(SEEN).doesNotContain("0:held");
            assertThat(container.isPartitionPaused("pp", 0)).isTrue();
            container.resumePartition("pp", 0);
            await().atMost(WAIT).until(() -> SEEN.contains("0:held"));
        });
    }

    private static MessageListenerContainer container(ApplicationContext context, String id) {
        return context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer(id);
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }
}
