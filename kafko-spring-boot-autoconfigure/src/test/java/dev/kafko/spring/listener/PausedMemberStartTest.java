package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.TopicConfig;
import dev.kafko.TopicExistsException;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.messaging.handler.annotation.Header;

/**
 * A container paused before its members first poll: under {@code kafko.offset-reset=latest} its members commit where
 * they start the partitions they took (as spring-kafka's paused consumer, assigned its partitions, commits them under
 * {@code LATEST_ONLY_NO_TX}), so what is sent while paused waits for the resume, or for a restart before it, and is
 * read once; under {@code earliest} nothing is committed before the resume.
 */
class PausedMemberStartTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();

    @TempDir
    Path dir;

    @BeforeEach
    void reset() {
        RECEIVED.clear();
    }

    private ApplicationContextRunner runner(String reset) {
        return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.offset-reset=" + reset,
                        "kafko.listener.poll-timeout=50ms", "kafko.topics.held.partitions=4");
    }

    @Test
    void aContainerStartedPausedUnderLatestCommitsTheEndsSoARestartBeforeTheResumeReadsWhatWasSentMeanwhile() {
        runner("latest").withBean(HeldReader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            ConcurrentMessageListenerContainer container = startPausedAfterFourRecords(context, kafko);
            await().atMost(Duration.ofSeconds(20)).until(container::isPaused);
            awaitFourCommitted(kafko);
            assertThat(kafko.groupInfo("held", "held").committed()).isEqualTo(Map.of(0, 1L, 1, 1L, 2, 1L, 3, 1L));
            send(kafko, "paused", 4);
            assertThat(lag(kafko)).isEqualTo(4);
            assertThat(RECEIVED).isEmpty();
        });
        runner("latest").withBean(HeldReader.class).run(context -> {
            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("held").start();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactlyInAnyOrder("paused-0", "paused-1", "paused-2", "paused-3");
        });
    }

    @Test
    void aContainerStartedPausedUnderLatestReadsWhatWasSentWhilePausedOnceAtTheResume() {
        runner("latest").withBean(HeldReader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            ConcurrentMessageListenerContainer container = startPausedAfterFourRecords(context, kafko);
            awaitFourCommitted(kafko);
            send(kafko, "paused", 8);
            container.resume();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).hasSize(8).doesNotHaveDuplicates().allMatch(v -> v.startsWith("paused-"));
            assertThat(lag(kafko)).isZero();
        });
    }

    @Test
    void aContainerStartedPausedUnderEarliestCommitsNothingAndReadsEverythingAtTheResume() {
        runner("earliest").withBean(HeldReader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            ConcurrentMessageListenerContainer container = startPausedAfterFourRecords(context, kafko);
            await().atMost(Duration.ofSeconds(20)).until(container::isPaused);
            send(kafko, "paused", 4);
            Thread.sleep(200); // four pause waits
            assertThat(kafko.groupInfo("held", "held").committed()).isEmpty();
            assertThat(RECEIVED).isEmpty();
            container.resume();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).hasSize(8).doesNotHaveDuplicates();
        });
    }

    @Test
    void membersJoiningAndLeavingWhilePausedReadEachRecordSentMeanwhileOnce() {
        runner("latest").withBean(HeldReader.class).withBean(OtherHeldReader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            send(kafko, "before", 4);
            ConcurrentMessageListenerContainer held = container(context, "held");
            ConcurrentMessageListenerContainer other = container(context, "other");
            held.pause();
            held.start();
            awaitFourCommitted(kafko);
            send(kafko, "paused", 8);
            // a second container of the group joins while the first is paused, then the first stops and starts
            other.pause();
            other.start();
            await().atMost(Duration.ofSeconds(20)).until(other::isPaused);
            held.stop();
            send(kafko, "stopped", 4);
            held.start();
            await().atMost(Duration.ofSeconds(20)).until(held::isPaused);
            send(kafko, "again", 4);
            assertThat(lag(kafko)).isEqualTo(16);
            assertThat(RECEIVED).isEmpty();
            held.resume();
            other.resume();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).hasSize(16).doesNotHaveDuplicates().noneMatch(v -> v.startsWith("before-"));
            assertThat(lag(kafko)).isZero();
        });
    }

    @Test
    void aPartitionPausedOnItsOwnIsCommittedAtItsStartAsTheOthersAre() {
        runner("latest").withBean(HeldReader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            send(kafko, "before", 4);
            ConcurrentMessageListenerContainer container = container(context, "held");
            container.pausePartition("held", 0);
            container.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> container.isPartitionPaused("held", 0));
            awaitFourCommitted(kafko);
            assertThat(kafko.groupInfo("held", "held").committed()).isEqualTo(Map.of(0, 1L, 1, 1L, 2, 1L, 3, 1L));
            kafko.producer("held").sendTo(0, null, bytes("p0")).join();
            kafko.producer("held").sendTo(1, null, bytes("p1")).join();
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("p1"));
            container.resumePartition("held", 0);
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("p0"));
            assertThat(RECEIVED).containsExactlyInAnyOrder("p0", "p1");
        });
    }

    @Test
    void aPatternTopicCreatedDeletedAndCreatedAgainWhilePausedIsCommittedAtTheNewTopicsStart() {
        runner("latest").withBean(PatternReader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            ConcurrentMessageListenerContainer container = container(context, "pheld");
            container.pause();
            kafko.createTopic("pheld-1", TopicConfig.builder().partitions(4).build());
            await().atMost(Duration.ofSeconds(20)).until(() -> kafko.groupInfo("pheld-1", "pheld").committed().size() == 4);
            kafko.deleteTopic("pheld-1");
            kafko.createTopic("pheld-1", TopicConfig.builder().partitions(2).build());
            for (int i = 0; i < 3; i++) {
                kafko.producer("pheld-1").send(null, bytes("again-" + i)).join();
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> kafko.groupInfo("pheld-1", "pheld").committed().size() == 2);
            assertThat(kafko.groupInfo("pheld-1", "pheld").lag().values().stream().mapToLong(Long::longValue).sum())
                    .isEqualTo(3);
            assertThat(RECEIVED).isEmpty();
            container.resume();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactlyInAnyOrder("again-0", "again-1", "again-2");
        });
    }

    @Test
    void aTopicDeletedAndCreatedAgainWhileItsContainerIsPausedIsCommittedAtTheNewTopicsStart() {
        runner("latest").withBean(HeldReader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            ConcurrentMessageListenerContainer container = container(context, "held");
            container.pause();
            container.start();
            awaitFourCommitted(kafko);
            kafko.deleteTopic("held");
            try {
                kafko.createTopic("held", TopicConfig.builder().partitions(4).build());
            } catch (TopicExistsException e) {
                // a paused member found it deleted first, and made it again as it read it again
            }
            send(kafko, "again", 4);
            awaitFourCommitted(kafko);
            assertThat(lag(kafko)).isEqualTo(4);
        });
        runner("latest").withBean(HeldReader.class).run(context -> {
            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("held").start();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactlyInAnyOrder("again-0", "again-1", "again-2", "again-3");
        });
    }

    /** Sends four records to {@code held}, then starts its container paused. */
    private static ConcurrentMessageListenerContainer startPausedAfterFourRecords(ApplicationContext context,
                                                                                 Kafko kafko) {
        send(kafko, "before", 4);
        ConcurrentMessageListenerContainer container = container(context, "held");
        container.pause();
        container.start();
        return container;
    }

    /** Waits until group {@code held} has committed on each of its topic's four partitions. */
    private static void awaitFourCommitted(Kafko kafko) {
        await().atMost(Duration.ofSeconds(20)).until(() -> kafko.groupInfo("held", "held").committed().size() == 4);
    }

    private static void send(Kafko kafko, String prefix, int count) {
        for (int i = 0; i < count; i++) {
            kafko.producer("held").sendTo(i % 4, null, bytes(prefix + "-" + i)).join();
        }
    }

    private static long lag(Kafko kafko) {
        return kafko.groupInfo("held", "held").lag().values().stream().mapToLong(Long::longValue).sum();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static ConcurrentMessageListenerContainer container(ApplicationContext context, String id) {
        return (ConcurrentMessageListenerContainer) context.getBean(KafkoListenerEndpointRegistry.class)
                .getListenerContainer(id);
    }

    static class HeldReader {
        @KafkoListener(id = "held", topics = "held", concurrency = "2", autoStartup = "false")
        void read(String value) {
            RECEIVED.add(value);
        }
    }

    static class PatternReader {
        @KafkoListener(id = "pheld", topicPattern = "pheld-.*", concurrency = "2")
        void read(String value) {
            RECEIVED.add(value);
        }
    }

    static class OtherHeldReader {
        @KafkoListener(id = "other", groupId = "held", topics = "held", autoStartup = "false")
        void read(String value) {
            RECEIVED.add(value);
        }
    }
}
