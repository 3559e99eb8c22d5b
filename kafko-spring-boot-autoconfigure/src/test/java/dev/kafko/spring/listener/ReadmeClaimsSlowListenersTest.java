package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.KafkoHeaders;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.handler.annotation.Header;

/**
 * The README's "Delivery guarantees and slow listeners": "a member works through its whole poll before the next, and
 * ... a member added at runtime (a container's {@code start()} with more concurrency, or another instance of the
 * group) takes over partitions only between polls".
 */
class ReadmeClaimsSlowListenersTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** "listener:partition:value" of each delivery. */
    static final List<String> SEEN = new CopyOnWriteArrayList<>();
    static volatile CountDownLatch release;
    static volatile CountDownLatch inHand;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.slow.partitions=2")
            .withBean(Slow.class).withBean(Late.class);

    @BeforeEach
    void reset() {
        SEEN.clear();
        release = new CountDownLatch(1);
        inHand = new CountDownLatch(1);
    }

    static class Slow {
        @KafkoListener(id = "slow", groupId = "slow", topics = "slow", autoStartup = "false")
        void on(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition) throws InterruptedException {
            SEEN.add("slow:" + partition + ":" + value);
            if (value.equals("first")) {
                inHand.countDown();
                release.await(60, TimeUnit.SECONDS);
            }
        }
    }

    static class Late {
        @KafkoListener(id = "late", groupId = "slow", topics = "slow", autoStartup = "false")
        void on(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition) {
            SEEN.add("late:" + partition + ":" + value);
        }
    }

    @Test
    void aMemberAddedWhileAnotherIsInItsPollTakesOverPartitionsOnlyOnceThatPollIsDone() {
        runner.run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            template.send("slow", 0, null, "first").join();
            template.send("slow", 0, null, "a0").join();
            template.send("slow", 1, null, "b0").join();
            template.send("slow", 1, null, "b1").join();
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            MessageListenerContainer slow = registry.getListenerContainer("slow");
            MessageListenerContainer late = registry.getListenerContainer("late");
            slow.start();
            assertThat(inHand.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

            // the slow member is inside its poll of both partitions: the new member joins, and waits
            late.start();
            await().pollDelay(Duration.ofMillis(500)).atMost(WAIT).until(late::isRunning);
            assertThat(late.getAssignedPartitions()).allSatisfy((topic, partitions) -> assertThat(partitions).isEmpty());
            assertThat(SEEN).containsExactly("slow:0:first");
            assertThat(slow.getAssignedPartitions()).containsEntry("slow", Set.of(0, 1));

            // the poll is worked through, every record of it by the member that polled it, none by the new one
            release.countDown();
            await().atMost(WAIT).until(() -> !late.getAssignedPartitions().getOrDefault("slow", Set.of()).isEmpty());
            assertThat(SEEN).startsWith("slow:0:first").contains("slow:0:a0", "slow:1:b0", "slow:1:b1")
                    .noneMatch(s -> s.startsWith("late:"));
            Set<Integer> lateOnes = late.getAssignedPartitions().get("slow");
            await().atMost(WAIT).until(() -> slow.getAssignedPartitions().getOrDefault("slow", Set.of()).size() == 1);
            assertThat(lateOnes).hasSize(1).doesNotContainAnyElementsOf(slow.getAssignedPartitions().get("slow"));

            // from now on each member reads its own partition
            int taken = lateOnes.iterator().next();
            template.send("slow", taken, null, "after").join();
            await().atMost(WAIT).until(() -> SEEN.contains("late:" + taken + ":after"));
            assertThat(SEEN).filteredOn(s -> s.endsWith(":after")).containsExactly("late:" + taken + ":after");
            Map<Integer, Long> committed = context.getBean(Kafko.class).groupInfo("slow", "slow")
                    .committed();
            assertThat(committed).containsEntry(1 - taken, 2L);
        });
    }
}
