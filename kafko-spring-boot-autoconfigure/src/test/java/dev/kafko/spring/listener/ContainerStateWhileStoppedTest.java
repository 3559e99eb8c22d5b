package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.TopicConfig;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTopicCreations;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.support.KafkoInstrumentation;
import dev.kafko.spring.support.TopicPartitionOffset;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * What a container and its members answer before their first start and after a stop: the members are listed, the
 * same ones each run, and nothing is assigned to them.
 */
class ContainerStateWhileStoppedTest {

    @TempDir
    Path dir;

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void aGroupsContainerListsTheSameMembersBeforeItsStartAndAfterItsStopWithNothingAssigned() {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            kafko.createTopic("orders", TopicConfig.builder().partitions(4).build());
            ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer("stopped",
                    List.of("orders"), "stopped", backend(kafko), properties(2), false, (records, ack) -> { },
                    new DefaultErrorHandler(), KafkoInstrumentation.NOOP, new SimpleAsyncTaskExecutor());
            List<MessageListenerContainer> members = container.getMembers();
            assertThat(members).as("made with the container").hasSize(2);
            assertIdle(container, members);

            container.start();
            KafkoTestUtils.waitForAssignment(container, 4, WAIT);
            assertThat(container.getMembers()).as("the members it listed").isEqualTo(members);
            assertThat(members).allSatisfy(member -> assertThat(member.getAssignedPartitions()).isNotEmpty());
            container.stop();
            assertThat(container.getMembers()).isEqualTo(members);
            assertIdle(container, members);

            container.start();
            try {
                KafkoTestUtils.waitForAssignment(container, 4, WAIT);
                assertThat(container.getMembers()).as("started again: the same members").isEqualTo(members);
            } finally {
                container.stop();
            }
        }
    }

    @Test
    void aContainerOfPartitionsAssignedByHandTellsThemButReadsNoneWhileStopped() {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            kafko.createTopic("orders", TopicConfig.builder().partitions(4).build());
            TopicPartitionOffset[] partitions = {new TopicPartitionOffset("orders", 1),
                    new TopicPartitionOffset("orders", 3)};
            ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer("byHand",
                    partitions, "byHand", backend(kafko), properties(1), false, (records, ack) -> { },
                    new DefaultErrorHandler(), KafkoInstrumentation.NOOP, new SimpleAsyncTaskExecutor());
            List<MessageListenerContainer> members = container.getMembers();
            assertThat(container.getTopicPartitions()).containsExactly(partitions);
            assertIdle(container, members);

            container.start();
            KafkoTestUtils.waitForAssignment(container, 2, WAIT);
            assertThat(container.getAssignedPartitions()).isEqualTo(Map.of("orders", Set.of(1, 3)));
            container.stop();
            assertThat(container.getTopicPartitions()).as("what it reads when it runs").containsExactly(partitions);
            assertIdle(container, members);
        }
    }

    /** Not running, nothing assigned, nothing paused, nothing failed: the container and each of its members. */
    private static void assertIdle(ConcurrentMessageListenerContainer container, List<MessageListenerContainer> members) {
        assertThat(container.isRunning()).isFalse();
        assertThat(container.getAssignedPartitions()).isEmpty();
        assertThat(container.isPaused()).isFalse();
        assertThat(container.isInExpectedState()).isTrue();
        assertThat(container.getFailure()).isNull();
        assertThat(members).allSatisfy(member -> {
            assertThat(member.isRunning()).isFalse();
            assertThat(member.getAssignedPartitions()).isEmpty();
            assertThat(member.isPartitionPaused("orders", 1)).isFalse();
            assertThat(member.isInExpectedState()).isTrue();
            assertThat(member.getFailure()).isNull();
        });
    }

    private static KafkoBackend backend(Kafko kafko) {
        return new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true), new KafkoTopicCreations());
    }

    private static ContainerProperties properties(int concurrency) {
        return new ContainerProperties(AckMode.BATCH, concurrency, Duration.ofMillis(50), 500, Duration.ofSeconds(10));
    }
}
