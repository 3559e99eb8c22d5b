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
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@link PartitionOffset#initialOffset()}: "one past the end starts at the end", whatever the offset reset policy.
 * Under {@code kafko.offset-reset=fail} the engine keeps a position sought past the end, so the listener must move
 * it to the end itself, or every poll fails until the log reaches the offset, and the position is committed past
 * the end (which the next open reports as lost records).
 */
class TopicPartitionsPastEndTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms",
                    "kafko.topics.orders.partitions=2", "kafko.offset-reset=fail");

    @BeforeEach
    void reset() {
        RECEIVED.clear();
    }

    @Test
    void anInitialOffsetPastTheEndStartsAtTheEndUnderFail() {
        runner.withBean(PastEndReader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !container(context, "past").getAssignedPartitions().isEmpty());
            assertThat(kafko.groupInfo("orders", "past").committed()).as("the start committed").containsKey(0);
            assertThat(kafko.groupInfo("orders", "past").committed().get(0)).as("committed at most the end")
                    .isLessThanOrEqualTo(kafko.topic("orders").orElseThrow().partition(0).endOffset());
            send(context, 0, "a");
            send(context, 0, "b");
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.size() >= 2);
            assertThat(RECEIVED).containsExactly("a", "b");
            assertThat(kafko.groupInfo("orders", "past").committed()).isEqualTo(Map.of(0, 2L));
        });
    }

    @Test
    void aHugeOffsetRelativeToCurrentStartsAtTheEndInsteadOfOverflowingToTheStart() {
        runner.withBean(RelativeReader.class).run(context -> {
            send(context, 1, "before");
            try (dev.kafko.Consumer committer = context.getBean(Kafko.class).groupConsumer("orders", "relative",
                    dev.kafko.ConsumerOptions.DEFAULTS.withPartitions(java.util.Set.of(1)))) {
                committer.commit(Map.of(1, 1L)); // the group's position: 1, and 1 + the offset overflows
            }
            ConcurrentMessageListenerContainer container = container(context, "relative");
            container.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> !container.getAssignedPartitions().isEmpty());
            send(context, 1, "after");
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            await().atMost(Duration.ofSeconds(20)).until(() -> !RECEIVED.isEmpty());
            Thread.sleep(100);
            assertThat(RECEIVED).containsExactly("after");
        });
    }

    static class RelativeReader {
        @KafkoListener(id = "relative", autoStartup = "false", topicPartitions = @TopicPartition(topic = "orders",
                partitionOffsets = @PartitionOffset(partition = "1", initialOffset = "9223372036854775807",
                        relativeToCurrent = "true")))
        void read(String value) {
            RECEIVED.add(value);
        }
    }

    static class PastEndReader {
        @KafkoListener(id = "past", topicPartitions = @TopicPartition(topic = "orders",
                partitionOffsets = @PartitionOffset(partition = "0", initialOffset = "100")))
        void read(String value) {
            RECEIVED.add(value);
        }
    }
}
