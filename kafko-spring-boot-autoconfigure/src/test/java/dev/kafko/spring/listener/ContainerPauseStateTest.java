package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTopicCreations;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.support.KafkoInstrumentation;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * What a container answers of its pauses ({@link MessageListenerContainer#isPauseRequested()},
 * {@link MessageListenerContainer#isPaused()}, {@link MessageListenerContainer#isPartitionPaused}) from what its
 * members made of them: a pause of every member, of some, of none; a container without members; a member stopped.
 */
class ContainerPauseStateTest {

    @TempDir
    Path dir;

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void aContainerNeverStartedOrStoppedUnpausedIsNeitherPausedNorAskedTo() {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            ConcurrentMessageListenerContainer container = container(kafko, List.of("one", "two"));
            assertThat(container.isPauseRequested()).isFalse();
            assertThat(container.isPaused()).as("not started, not paused").isFalse();

            container.start();
            KafkoTestUtils.waitForAssignment(container, 2, WAIT);
            container.stop();
            assertThat(container.isRunning()).isFalse();
            assertThat(container.isPaused()).as("stopped, never paused").isFalse();
        }
    }

    @Test
    void aContainerAskedToPauseIsNotPausedWhileStoppedAndStartsPaused() {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            ConcurrentMessageListenerContainer container = container(kafko, List.of("one", "two"));
            container.pause();
            assertThat(container.isPauseRequested()).isTrue();
            assertThat(container.isPaused()).as("asked to pause before its first start: no member polls").isFalse();

            container.start();
            try {
                await().atMost(WAIT).until(container::isPaused);
                container.stop();
                assertThat(container.isPauseRequested()).as("the request outlasts the stop").isTrue();
                assertThat(container.isPaused()).as("stopped: as its members answer").isFalse();
                assertThat(container.getMembers()).allSatisfy(member -> {
                    assertThat(member.isPauseRequested()).isTrue();
                    assertThat(member.isPaused()).isFalse();
                });

                container.start();
                await().atMost(WAIT).until(container::isPaused);
            } finally {
                container.stop();
            }
        }
    }

    @Test
    void aPauseOfOneMemberIsNotAPauseOfTheContainer() {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            ConcurrentMessageListenerContainer container = container(kafko, List.of("one", "two"));
            container.start();
            try {
                KafkoTestUtils.waitForAssignment(container, 2, WAIT);
                MessageListenerContainer first = container.getMembers().get(0);
                first.pause();
                await().atMost(WAIT).until(first::isPaused);
                assertThat(container.isPauseRequested()).as("one member of two asked to pause").isFalse();
                assertThat(container.isPaused()).isFalse();

                container.pause();
                await().atMost(WAIT).until(container::isPaused);
                assertThat(container.isPauseRequested()).isTrue();
            } finally {
                container.stop();
            }
        }
    }

    @Test
    void aPausedContainerStaysPausedWhenOneOfItsMembersStops() {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            ConcurrentMessageListenerContainer container = container(kafko, List.of("one", "two"));
            container.start();
            try {
                KafkoTestUtils.waitForAssignment(container, 2, WAIT);
                container.pause();
                await().atMost(WAIT).until(container::isPaused);

                MessageListenerContainer second = container.getMembers().get(1);
                second.stop();
                assertThat(second.isRunning()).isFalse();
                assertThat(container.isPaused()).as("every member still running is paused").isTrue();
            } finally {
                container.stop();
            }
        }
    }

    @Test
    void aPatternContainerThatMatchedNoTopicYetIsAskedToPauseUntilItsResume() {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            KafkoBackend backend = new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true),
                    new KafkoTopicCreations());
            ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer("none",
                    Pattern.compile("none-.*"), "none", backend, properties(), true, (records, ack) -> { },
                    new DefaultErrorHandler(), KafkoInstrumentation.NOOP, new SimpleAsyncTaskExecutor());
            container.start();
            try {
                assertThat(container.getMembers()).isEmpty();
                container.pause();
                assertThat(container.isPauseRequested()).isTrue();
                assertThat(container.isPaused()).isTrue();

                container.resume();
                assertThat(container.isPauseRequested()).isFalse();
                assertThat(container.isPaused()).isFalse();
            } finally {
                container.stop();
            }
        }
    }

    @Test
    void aPartitionIsPausedWhicheverOfTheMembersReadsIt() {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            ConcurrentMessageListenerContainer container = container(kafko, List.of("one", "two"));
            container.start();
            try {
                KafkoTestUtils.waitForAssignment(container, 2, WAIT);
                container.pausePartition("one", 0);
                container.pausePartition("two", 0);
                await().atMost(WAIT).until(() -> container.isPartitionPaused("one", 0)
                        && container.isPartitionPaused("two", 0));

                container.resumePartition("two", 0);
                await().atMost(WAIT).until(() -> !container.isPartitionPaused("two", 0));
                assertThat(container.isPartitionPaused("one", 0)).isTrue();
            } finally {
                container.stop();
            }
        }
    }

    private ConcurrentMessageListenerContainer container(Kafko kafko, List<String> topics) {
        KafkoBackend backend = new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true),
                new KafkoTopicCreations());
        return new ConcurrentMessageListenerContainer("state", topics, "state", backend, properties(), true,
                (records, ack) -> { }, new DefaultErrorHandler(), KafkoInstrumentation.NOOP,
                new SimpleAsyncTaskExecutor());
    }

    private static ContainerProperties properties() {
        return new ContainerProperties(AckMode.BATCH, 1, Duration.ofMillis(50), 500, Duration.ofSeconds(10));
    }
}
