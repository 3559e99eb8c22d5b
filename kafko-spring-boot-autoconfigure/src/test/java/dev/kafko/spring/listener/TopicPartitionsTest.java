package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.InvalidPartitionException;
import dev.kafko.Kafko;
import dev.kafko.spring.LogCapture;
import dev.kafko.spring.annotation.InvalidKafkoListenerException;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.annotation.PartitionOffset;
import dev.kafko.spring.annotation.TopicPartition;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.TopicPartitionOffset;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.messaging.handler.annotation.Header;

/**
 * {@code @KafkoListener(topicPartitions = ...)}: the listener reads exactly the partitions it names, assigned by
 * hand, seeks their initial offsets at each start, splits them among its members, and commits for its group.
 */
class TopicPartitionsTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();
    static final List<Map<Integer, Long>> ASSIGNED = new CopyOnWriteArrayList<>();
    static final List<java.util.Collection<Integer>> REVOKED = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms",
                    "kafko.topics.orders.partitions=4");

    @RegisterExtension
    final LogCapture log = new LogCapture(ListenerConsumer.class);

    @BeforeEach
    void reset() {
        RECEIVED.clear();
        ASSIGNED.clear();
        REVOKED.clear();
    }

    @Test
    void readsOnlyTheListedPartitionsWithoutJoiningTheGroup() {
        runner.withBean(EvenReader.class).run(context -> {
            for (int p = 0; p < 4; p++) {
                send(context, p, "v" + p);
            }
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactlyInAnyOrder("0:v0", "2:v2");
            ConcurrentMessageListenerContainer container = container(context, "even");
            assertThat(container.getAssignedPartitions()).isEqualTo(Map.of("orders", java.util.Set.of(0, 2)));
            assertThat(container.getTopics()).containsExactly("orders");
            assertThat(container.getTopicPartitions()).containsExactly(new TopicPartitionOffset("orders", 0),
                    new TopicPartitionOffset("orders", 2));
            Kafko kafko = context.getBean(Kafko.class);
            assertThat(kafko.groupInfo("orders", "even").members()).isZero();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> kafko.groupInfo("orders", "even").committed().equals(Map.of(0, 1L, 2, 1L)));
            // the seek-aware listener was told once, of both partitions, at their start
            assertThat(ASSIGNED).containsExactly(Map.of(0, 0L, 2, 0L));
            container.stop();
            assertThat(REVOKED).containsExactly(java.util.Set.of(0, 2));
        });
    }

    @Test
    void anInitialOffsetIsSoughtAtEveryStartAndTheOtherPartitionsResumeFromTheCommit() {
        runner.withBean(ReplayReader.class).run(context -> {
            send(context, 1, "a");
            send(context, 1, "b");
            send(context, 3, "c");
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactlyInAnyOrder("1:a", "1:b", "3:c");
            ConcurrentMessageListenerContainer container = container(context, "replay");
            container.stop();
            RECEIVED.clear();
            container.start();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            // partition 1 from offset 0 again; partition 3 from the group's commit
            assertThat(RECEIVED).containsExactly("1:a", "1:b");
        });
    }

    @Test
    void aNegativeInitialOffsetCountsFromTheEndAndTheWildcardAppliesToEveryPartition() {
        runner.withBean(LastReader.class).run(context -> {
            ConcurrentMessageListenerContainer container = container(context, "last");
            container.stop();
            for (int i = 0; i < 3; i++) {
                send(context, 0, "x" + i);
                send(context, 1, "y" + i);
            }
            container.start();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactlyInAnyOrder("0:x2", "1:y2");
        });
    }

    @Test
    void aRelativeInitialOffsetCountsFromTheGroupsCommit() {
        runner.withBean(RelativeReader.class).run(context -> {
            ConcurrentMessageListenerContainer container = container(context, "relative");
            for (int i = 0; i < 3; i++) {
                send(context, 2, "z" + i);
            }
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactly("2:z0", "2:z1", "2:z2");
            container.stop();
            RECEIVED.clear();
            container.start(); // one back from the commit (3): the last record again
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactly("2:z2");
        });
    }

    @Test
    void failedRecordsGoToTheDeadLetterTopicAsForAGroupListener() {
        runner.withBean(FailingReader.class).withPropertyValues("kafko.listener.retry.max-attempts=2",
                "kafko.listener.dead-letter.enabled=true").run(context -> {
            send(context, 1, "poison");
            Kafko kafko = context.getBean(Kafko.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> kafko.topic("orders.DLT")
                    .map(t -> t.partitions().stream().mapToLong(p -> p.endOffset()).sum() == 1).orElse(false));
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactly("1:poison", "1:poison");
            assertThat(kafko.groupInfo("orders", "failing").committed()).containsEntry(1, 1L);
        });
    }

    @Test
    void theGroupRefusesItsCommitsWhileAListenerOfTheGroupReadsTheTopic() {
        runner.withBean(EvenReader.class).withBean(GroupMember.class).run(context -> {
            send(context, 2, "both read it");
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.size() == 2);
            await().atMost(Duration.ofSeconds(20)).until(() -> log.events().stream().anyMatch(e ->
                    e.getFormattedMessage().contains("Listener 'even' could not commit")
                            && e.getFormattedMessage().contains("CommitFailedException")
                            && e.getFormattedMessage().contains("1 live member(s)")));
            assertThat(container(context, "even").hasDeadMember()).isFalse();
            send(context, 0, "still read");
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("0:still read"));
        });
    }

    @Test
    void concurrencySplitsTheListedPartitionsAmongTheMembers() {
        runner.withBean(SplitReader.class).run(context -> {
            ConcurrentMessageListenerContainer container = container(context, "split");
            assertThat(container.getMembers()).hasSize(2);
            await().atMost(Duration.ofSeconds(20)).until(() -> container.getMembers().stream()
                    .allMatch(m -> !m.getAssignedPartitions().isEmpty()));
            assertThat(container.getMembers()).extracting(MessageListenerContainer::getAssignedPartitions)
                    .containsExactly(Map.of("orders", java.util.Set.of(0, 1)),
                            Map.of("orders", java.util.Set.of(2, 3)));
            for (int p = 0; p < 4; p++) {
                send(context, p, "v" + p);
            }
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactlyInAnyOrder("split-0:v0", "split-0:v1", "split-1:v2", "split-1:v3");
        });
        // more members than partitions: one per partition
        runner.withBean(NarrowReader.class).run(context ->
                assertThat(container(context, "narrow").getMembers()).hasSize(2));
    }

    @Test
    void commitsResumeAfterARestartOfTheApplication(@TempDir Path dir) {
        ApplicationContextRunner persistent = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.listener.poll-timeout=50ms",
                        "kafko.topics.orders.partitions=4")
                .withBean(EvenReader.class);
        persistent.run(context -> {
            send(context, 0, "first");
            send(context, 2, "second");
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
        });
        assertThat(RECEIVED).containsExactlyInAnyOrder("0:first", "2:second");
        RECEIVED.clear();
        persistent.run(context -> {
            send(context, 2, "third");
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
        });
        assertThat(RECEIVED).containsExactly("2:third");
    }

    @Test
    void placeholdersAndRangesResolve() {
        runner.withBean(PlaceholderReader.class).withPropertyValues("app.parts=1-3", "app.topic=orders")
                .run(context -> {
            await().atMost(Duration.ofSeconds(20)).until(() -> container(context, "placeholders")
                    .getAssignedPartitions().equals(Map.of("orders", java.util.Set.of(1, 2, 3))));
        });
    }

    @Test
    void topicPartitionsWithTopicsOrAPartitionGivenTwiceFailTheStartNamingTheListener() {
        runner.withBean(BothReader.class).run(context -> assertThat(invalidListener(context.getStartupFailure()))
                .hasMessageContaining("'both'").hasMessageContaining("topics [orders]")
                .hasMessageContaining("give one of topics, topicPattern and topicPartitions"));
        runner.withBean(TwiceReader.class).run(context -> assertThat(invalidListener(context.getStartupFailure()))
                .hasMessageContaining("'twice'").hasMessageContaining("partition 2 of topic 'orders' is given twice"));
    }

    @Test
    void aPartitionTheTopicDoesNotHaveFailsTheStartNamingIt() {
        runner.withBean(OutOfRangeReader.class).run(context -> {
            Throwable failure = context.getStartupFailure();
            Throwable cause = failure;
            while (cause != null && !(cause instanceof InvalidPartitionException)) {
                cause = cause.getCause();
            }
            assertThat(cause).as("an InvalidPartitionException in %s", failure).isNotNull();
            assertThat(cause).hasMessageContaining("Listener 'wide'").hasMessageContaining("[5]")
                    .hasMessageContaining("topic 'orders'").hasMessageContaining("4 partition(s)");
        });
    }

    private static Throwable invalidListener(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InvalidKafkoListenerException) {
                return t;
            }
        }
        throw new AssertionError("no InvalidKafkoListenerException in the chain", failure);
    }

    static ConcurrentMessageListenerContainer container(ApplicationContext context, String id) {
        return (ConcurrentMessageListenerContainer) context.getBean(KafkoListenerEndpointRegistry.class)
                .getListenerContainer(id);
    }

    @SuppressWarnings("unchecked")
    static void send(ApplicationContext context, int partition, String value) {
        ((KafkoTemplate<Object, Object>) context.getBean(KafkoTemplate.class))
                .send("orders", partition, null, value).join();
    }

    static class EvenReader implements ConsumerSeekAware {
        @Override
        public void onPartitionsAssigned(Map<Integer, Long> assignments, ConsumerSeekCallback callback) {
            ASSIGNED.add(Map.copyOf(assignments));
        }

        @Override
        public void onPartitionsRevoked(String topic, java.util.Collection<Integer> partitions) {
            REVOKED.add(java.util.Set.copyOf(partitions));
        }

        @KafkoListener(id = "even", topicPartitions = @TopicPartition(topic = "orders", partitions = {"0", "2"}))
        void read(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition) {
            RECEIVED.add(partition + ":" + value);
        }
    }

    static class GroupMember {
        @KafkoListener(id = "member", groupId = "even", topics = "orders")
        void read(String value) {
            RECEIVED.add("member:" + value);
        }
    }

    static class ReplayReader {
        @KafkoListener(id = "replay", topicPartitions = @TopicPartition(topic = "orders", partitions = "3",
                partitionOffsets = @PartitionOffset(partition = "1", initialOffset = "0")))
        void read(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition) {
            RECEIVED.add(partition + ":" + value);
        }
    }

    static class LastReader {
        @KafkoListener(id = "last", topicPartitions = @TopicPartition(topic = "orders", partitions = "0, 1",
                partitionOffsets = @PartitionOffset(partition = "*", initialOffset = "-1")))
        void read(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition) {
            RECEIVED.add(partition + ":" + value);
        }
    }

    static class RelativeReader {
        @KafkoListener(id = "relative", topicPartitions = @TopicPartition(topic = "orders",
                partitionOffsets = @PartitionOffset(partition = "2", initialOffset = "-1", relativeToCurrent = "true")))
        void read(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition) {
            RECEIVED.add(partition + ":" + value);
        }
    }

    static class FailingReader {
        @KafkoListener(id = "failing", topicPartitions = @TopicPartition(topic = "orders", partitions = "1"))
        void read(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition) {
            RECEIVED.add(partition + ":" + value);
            throw new IllegalStateException("refused " + value);
        }
    }

    static class SplitReader {
        @KafkoListener(id = "split", concurrency = "2",
                topicPartitions = @TopicPartition(topic = "orders", partitions = "0-3"))
        void read(String value) {
            RECEIVED.add(Thread.currentThread().getName() + ":" + value);
        }
    }

    static class NarrowReader {
        @KafkoListener(id = "narrow", concurrency = "3",
                topicPartitions = @TopicPartition(topic = "orders", partitions = {"1", "3"}))
        void read(String value) {
        }
    }

    static class PlaceholderReader {
        @KafkoListener(id = "placeholders", topicPartitions = @TopicPartition(topic = "${app.topic}",
                partitions = "${app.parts}"))
        void read(String value) {
        }
    }

    static class BothReader {
        @KafkoListener(id = "both", topics = "orders", topicPartitions = @TopicPartition(topic = "orders",
                partitions = "0"))
        void read(String value) {
        }
    }

    static class TwiceReader {
        @KafkoListener(id = "twice", topicPartitions = @TopicPartition(topic = "orders", partitions = "0-2",
                partitionOffsets = @PartitionOffset(partition = "2", initialOffset = "0")))
        void read(String value) {
        }
    }

    static class OutOfRangeReader {
        @KafkoListener(id = "wide", topicPartitions = @TopicPartition(topic = "orders", partitions = {"0", "5"}))
        void read(String value) {
        }
    }
}
