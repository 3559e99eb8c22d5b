package dev.kafko.spring.listener;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A wait for a container ({@code waitForAssignment}, {@code waitForListeners}) made before a stop,
 * {@code setConcurrency} and a start of it follows the members made again, or ends: what it looks at is the
 * container's members of the moment, never the ones it had when the wait began, which no start runs again.
 */
class WaitAcrossConcurrencyChangeTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=100ms",
                    "kafko.topics.wide.partitions=3");

    /** A wait on a thread of its own, and what it threw. */
    private static Thread waiting(String name, Runnable wait, AtomicReference<Throwable> failed) {
        Thread thread = new Thread(() -> {
            try {
                wait.run();
            } catch (Throwable e) {
                failed.set(e);
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    @Test
    void aWaitForTheAssignmentMadeWhileTheContainerIsStoppedSeesItsNewMembersAssigned() throws Exception {
        runner.run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            ConcurrentMessageListenerContainer container = context.getBean(KafkoListenerContainerFactory.class)
                    .createListenerContainer("grows", "grows", List.of("wide"), (records, ack) -> { });
            registry.registerListenerContainer(container, true);
            KafkoTestUtils.waitForAssignment(container, 3, WAIT);
            List<MessageListenerContainer> before = container.getMembers();
            container.stop();
            assertThat(container.getAssignedPartitions()).isEmpty();

            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread assignment = waiting("assignment",
                    () -> KafkoTestUtils.waitForAssignment(container, 3, WAIT), failed);
            container.setConcurrency(3);
            container.start();
            assignment.join(WAIT.toMillis());

            assertThat(assignment.isAlive()).isFalse();
            assertThat(failed.get()).isNull();
            assertThat(container.getMembers()).hasSize(3).doesNotContainAnyElementsOf(before);
            assertThat(before).allSatisfy(old -> assertThat(old.getAssignedPartitions()).isEmpty());
        });
    }

    @Test
    void waitForListenersMadeBeforeAStopAConcurrencyChangeAndAStartEndsWithEveryRecordProcessed() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        runner.run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            ConcurrentMessageListenerContainer container = context.getBean(KafkoListenerContainerFactory.class)
                    .createListenerContainer("grows", "grows", List.of("wide"), (records, ack) -> {
                        for (KafkoRecord r : records) {
                            String value = new String(r.value(), UTF_8);
                            if (value.equals("hold")) {
                                holding.countDown();
                                release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                            }
                            seen.add(value);
                        }
                    });
            registry.registerListenerContainer(container, true);
            template.send("wide", 0, null, "hold").join();
            assertThat(holding.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread listeners = waiting("listeners", () -> KafkoTestUtils.waitForListeners(registry, WAIT), failed);
            release.countDown();
            container.stop(); // once the held record is processed
            container.setConcurrency(3);
            for (int p = 0; p < 3; p++) {
                template.send("wide", p, null, "after" + p).join();
            }
            container.start();
            listeners.join(WAIT.toMillis());

            assertThat(listeners.isAlive()).as("waits for the members it had").isFalse();
            assertThat(failed.get()).isNull();
            KafkoTestUtils.waitForListeners(registry, WAIT);
            assertThat(seen).containsExactlyInAnyOrder("hold", "after0", "after1", "after2");
        });
    }
}
