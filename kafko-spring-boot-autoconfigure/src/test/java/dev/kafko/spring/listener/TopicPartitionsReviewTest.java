package dev.kafko.spring.listener;

import static dev.kafko.spring.listener.TopicPartitionsTest.container;
import static dev.kafko.spring.listener.TopicPartitionsTest.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.annotation.PartitionOffset;
import dev.kafko.spring.annotation.TopicPartition;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.support.KafkoHeaders;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.handler.annotation.Header;

/** Review probes of {@code topicPartitions} listeners. */
class TopicPartitionsReviewTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms",
                    "kafko.topics.orders.partitions=2");

    @BeforeEach
    void reset() {
        RECEIVED.clear();
    }

    /**
     * README: an initial offset "is sought there each time a member starts (... a topic deleted and created
     * again)". Under kafko.offset-reset=latest the member's rejoin moves a partition without a commit to its
     * beginning after the initial seek, so "-1" (the last record) reads the whole new topic.
     */
    @Test
    void anInitialOffsetHoldsOnATopicCreatedAgainUnderLatest() {
        runner.withPropertyValues("kafko.offset-reset=latest").withBean(LastReader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            ConcurrentMessageListenerContainer container = container(context, "last");
            await().atMost(Duration.ofSeconds(10)).until(() -> !container.getAssignedPartitions().isEmpty());
            container.pause();
            await().atMost(Duration.ofSeconds(10)).until(container::isContainerPaused);
            kafko.deleteTopic("orders");
            kafko.createTopic("orders");
            for (int i = 0; i < 3; i++) {
                send(context, 0, "n" + i);
            }
            container.resume();
            await().atMost(Duration.ofSeconds(10)).until(() -> RECEIVED.contains("0:n2"));
            Thread.sleep(300);
            assertThat(RECEIVED).containsExactly("0:n2");
        });
    }

    static class LastReader {
        @KafkoListener(id = "last", topicPartitions = @TopicPartition(topic = "orders",
                partitionOffsets = @PartitionOffset(partition = "0", initialOffset = "-1")))
        void read(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition) {
            RECEIVED.add(partition + ":" + value);
        }
    }

    /** A pause and resume seeks nothing again; a stop leaves no member thread; concurrency above the partitions. */
    @Test
    void pauseResumeDeliversOnceAndStopLeavesNoThread() {
        runner.withBean(ReplayReader.class).run(context -> {
            send(context, 0, "a");
            send(context, 1, "b");
            dev.kafko.spring.test.KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
            ConcurrentMessageListenerContainer container = container(context, "replay");
            assertThat(container.getMembers()).hasSize(2);
            container.pause();
            await().atMost(Duration.ofSeconds(10)).until(container::isContainerPaused);
            send(context, 0, "c");
            Thread.sleep(200);
            container.resume();
            dev.kafko.spring.test.KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
            assertThat(RECEIVED).containsExactlyInAnyOrder("0:a", "1:b", "0:c");
            container.stop();
            // stop() returns once each member's run ended; its thread may still be on its way out
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(Thread.getAllStackTraces()
                    .keySet()).noneMatch(t -> t.getName().startsWith("replay-") && t.isAlive()));
            RECEIVED.clear();
            container.start();
            dev.kafko.spring.test.KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
            assertThat(RECEIVED).containsExactlyInAnyOrder("0:a", "0:c");
        });
    }

    static class ReplayReader {
        @KafkoListener(id = "replay", concurrency = "3", topicPartitions = @TopicPartition(topic = "orders",
                partitions = "1", partitionOffsets = @PartitionOffset(partition = "0", initialOffset = "0")))
        void read(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition) {
            RECEIVED.add(partition + ":" + value);
        }
    }
}
