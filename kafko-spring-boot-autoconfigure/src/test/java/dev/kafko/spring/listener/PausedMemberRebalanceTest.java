package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * A paused container takes part in its group's rebalances, as spring-kafka's paused consumer, which polls on with its
 * partitions paused: a member of the group started while it is paused gets its share at once (the paused member
 * commits what it processed of the partitions it gives up and is told of their revocation on its own thread), and the
 * partitions of a member that leaves move to the paused one, which stays paused on them, reads nothing until the
 * resume and then reads them from their committed offset.
 */
class PausedMemberRebalanceTest {

    static final List<String> HELD = new CopyOnWriteArrayList<>();
    static final List<String> OTHER = new CopyOnWriteArrayList<>();
    /** What the paused container's rebalance callbacks were told, with the thread they ran on. */
    static final List<String> CALLBACKS = new CopyOnWriteArrayList<>();

    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    @BeforeEach
    void reset() {
        HELD.clear();
        OTHER.clear();
        CALLBACKS.clear();
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.offset-reset=latest",
                        "kafko.listener.poll-timeout=5s", "kafko.topics.held.partitions=4")
                .withBean(HeldReader.class).withBean(OtherReader.class);
    }

    @Test
    void aMemberStartedWhileAnotherIsPausedGetsItsShareAtTheRebalanceNotAtTheResume() {
        runner().run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            ConcurrentMessageListenerContainer held = container(context, "held");
            ConcurrentMessageListenerContainer other = container(context, "other");
            held.start();
            KafkoTestUtils.waitForAssignment(held, 4, WAIT);
            send(kafko, "before", 4);
            await().atMost(WAIT).until(() -> HELD.size() == 4);
            held.pause();
            await().atMost(WAIT).until(held::isPaused);

            other.start();
            // the paused member polls on: the rebalance gives the new member two partitions within the poll timeout
            KafkoTestUtils.waitForAssignment(other, 2, Duration.ofSeconds(3));
            KafkoTestUtils.waitForAssignment(held, 2, WAIT);
            Set<Integer> kept = partitions(held);
            assertThat(CALLBACKS).as("revoked on the paused member's own thread").anyMatch(c -> c.startsWith("revoked"))
                    .allMatch(c -> c.endsWith("@held-0"));
            assertThat(held.isPaused()).isTrue();
            assertThat(held.isPauseRequested()).isTrue();
            // what the paused member processed of the partitions it gave up was committed: none is read again
            assertThat(kafko.groupInfo("held", "held").committed()).isEqualTo(Map.of(0, 1L, 1, 1L, 2, 1L, 3, 1L));

            send(kafko, "during", 8);
            await().atMost(WAIT).until(() -> OTHER.size() == 4);
            assertThat(OTHER).allMatch(v -> v.startsWith("during-"));
            assertThat(HELD).as("nothing delivered while paused").hasSize(4).allMatch(v -> v.startsWith("before-"));
            assertThat(lag(kafko)).isEqualTo(4);

            held.resume();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(HELD).hasSize(8).doesNotHaveDuplicates();
            assertThat(OTHER).hasSize(4).doesNotHaveDuplicates();
            assertThat(partitions(held)).isEqualTo(kept);
            assertThat(lag(kafko)).isZero();
        });
    }

    @Test
    void thePartitionsOfAMemberThatLeavesReachThePausedMemberPausedAndAreReadFromTheirCommitAtTheResume() {
        runner().run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            ConcurrentMessageListenerContainer held = container(context, "held");
            ConcurrentMessageListenerContainer other = container(context, "other");
            startBoth(held, other);
            send(kafko, "before", 4);
            await().atMost(WAIT).until(() -> HELD.size() + OTHER.size() == 4);
            held.pause();
            await().atMost(WAIT).until(held::isPaused);
            CALLBACKS.clear();

            other.stop();
            // the paused member takes them at the rebalance, and stays paused on all four
            KafkoTestUtils.waitForAssignment(held, 4, Duration.ofSeconds(3));
            assertThat(CALLBACKS).as("told on its own thread at the rebalance").singleElement().asString()
                    .startsWith("assigned").endsWith("@held-0");
            assertThat(held.isPaused()).isTrue();
            assertThat(kafko.groupInfo("held", "held").committed()).isEqualTo(Map.of(0, 1L, 1, 1L, 2, 1L, 3, 1L));
            int before = HELD.size();
            send(kafko, "during", 8);
            assertThat(lag(kafko)).isEqualTo(8);
            assertThat(HELD).as("nothing delivered while paused").hasSize(before);

            held.resume();
            // the resume wakes the paused member's poll: it reads them well within its poll timeout (5 s)
            await().atMost(Duration.ofSeconds(3)).until(() -> HELD.size() == before + 8);
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(HELD.stream().filter(v -> v.startsWith("during-"))).hasSize(8).doesNotHaveDuplicates();
            assertThat(HELD).hasSize(before + 8);
            assertThat(lag(kafko)).isZero();
        });
    }

    @Test
    void waitForListenersWaitsForTheRunningContainerOfTheGroupNotForThePartitionsItsPausedContainerHolds() {
        runner().run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            ConcurrentMessageListenerContainer held = container(context, "held");
            ConcurrentMessageListenerContainer other = container(context, "other");
            startBoth(held, other);
            held.pause();
            await().atMost(WAIT).until(held::isPaused);

            send(kafko, "during", 8);
            // the paused container's partitions wait for its resume, as a paused container's do: not waited for
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(5));
            assertThat(OTHER).hasSize(4).allMatch(v -> v.startsWith("during-"));
            assertThat(HELD).as("nothing delivered while paused").isEmpty();

            held.resume();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(HELD).hasSize(4).doesNotHaveDuplicates();
            assertThat(lag(kafko)).isZero();
        });
    }

    /** Starts both containers of the group, which share the topic's four partitions. */
    private static void startBoth(ConcurrentMessageListenerContainer held, ConcurrentMessageListenerContainer other) {
        held.start();
        other.start();
        KafkoTestUtils.waitForAssignment(held, 2, WAIT);
        KafkoTestUtils.waitForAssignment(other, 2, WAIT);
    }

    private static Set<Integer> partitions(ConcurrentMessageListenerContainer container) {
        return new TreeSet<>(container.getAssignedPartitions().getOrDefault("held", Set.of()));
    }

    private static void send(Kafko kafko, String prefix, int count) {
        for (int i = 0; i < count; i++) {
            kafko.producer("held").sendTo(i % 4, null, (prefix + "-" + i).getBytes(StandardCharsets.UTF_8)).join();
        }
    }

    private static long lag(Kafko kafko) {
        return kafko.groupInfo("held", "held").lag().values().stream().mapToLong(Long::longValue).sum();
    }

    private static ConcurrentMessageListenerContainer container(ApplicationContext context, String id) {
        return (ConcurrentMessageListenerContainer) context.getBean(KafkoListenerEndpointRegistry.class)
                .getListenerContainer(id);
    }

    static class HeldReader implements ConsumerSeekAware {
        @Override
        public void onPartitionsAssigned(Map<Integer, Long> assignments, ConsumerSeekCallback callback) {
            CALLBACKS.add("assigned " + new TreeSet<>(assignments.keySet()) + "@" + Thread.currentThread().getName());
        }

        @Override
        public void onPartitionsRevoked(String topic, Collection<Integer> partitions) {
            CALLBACKS.add("revoked " + new TreeSet<>(partitions) + "@" + Thread.currentThread().getName());
        }

        @KafkoListener(id = "held", topics = "held", autoStartup = "false")
        void read(String value) {
            HELD.add(value);
        }
    }

    static class OtherReader {
        @KafkoListener(id = "other", groupId = "held", topics = "held", autoStartup = "false")
        void read(String value) {
            OTHER.add(value);
        }
    }
}
