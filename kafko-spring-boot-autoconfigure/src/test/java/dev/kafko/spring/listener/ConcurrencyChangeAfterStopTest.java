package dev.kafko.spring.listener;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.backoff.FixedBackOff;

/**
 * A stopped container takes a new concurrency (and error handler) for its next start, as spring-kafka's does: its
 * maintainers' way to change a listener's concurrency at run time is a stop, {@code setConcurrency} and a start. The
 * container refused it once it had ever started (B249).
 */
class ConcurrencyChangeAfterStopTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** "thread:value" of every record delivered. */
    static final List<String> SEEN = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.wide.partitions=3");

    @BeforeEach
    void reset() {
        SEEN.clear();
    }

    private static ConcurrentMessageListenerContainer register(KafkoListenerEndpointRegistry registry,
                                                               KafkoListenerContainerFactory factory) {
        ConcurrentMessageListenerContainer container = factory.createListenerContainer("grows", "grows",
                List.of("wide"), (records, ack) -> {
                    for (KafkoRecord r : records) {
                        SEEN.add(Thread.currentThread().getName() + ":" + new String(r.value(), UTF_8));
                    }
                });
        registry.registerListenerContainer(container, true);
        return container;
    }

    private static void sendToEachPartition(KafkoTemplate<Object, Object> template, String prefix) {
        for (int p = 0; p < 3; p++) {
            template.send("wide", p, null, prefix + p).join();
        }
    }

    @Test
    void aStoppedContainerStartsWithTheConcurrencySetMeanwhile() {
        runner.run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            ConcurrentMessageListenerContainer container = register(registry,
                    context.getBean(KafkoListenerContainerFactory.class));
            sendToEachPartition(template, "a");
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).containsExactlyInAnyOrder("grows-0:a0", "grows-0:a1", "grows-0:a2");

            // refused while it runs, naming the way that works
            assertThatThrownBy(() -> container.setConcurrency(3)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("'grows' was started and not stopped since")
                    .hasMessageContaining("stop() it, set them, then start() it");
            assertThat(container.getContainerProperties().concurrency()).isEqualTo(1);

            container.stop();
            container.setConcurrency(3);
            KafkoErrorHandler handler = new DefaultErrorHandler(new FixedBackOff(0, 0));
            container.setCommonErrorHandler(handler);
            container.start();
            assertThat(container.getContainerProperties().concurrency()).isEqualTo(3);
            assertThat(container.getCommonErrorHandler()).isSameAs(handler);
            assertThat(container.getMembers()).hasSize(3).allSatisfy(m -> assertThat(m.isRunning()).isTrue());
            KafkoTestUtils.waitForAssignment(container, 3, WAIT);
            await().atMost(WAIT).until(() -> container.getMembers().stream()
                    .allMatch(m -> m.getAssignedPartitions().getOrDefault("wide", Set.of()).size() == 1));

            sendToEachPartition(template, "b");
            KafkoTestUtils.waitForListeners(context, WAIT);
            List<String> second = SEEN.stream().filter(s -> s.contains(":b")).toList();
            assertThat(second).hasSize(3);
            assertThat(second.stream().map(s -> s.substring(0, s.indexOf(':'))).collect(Collectors.toSet()))
                    .containsExactlyInAnyOrder("grows-0", "grows-1", "grows-2");
            assertThat(SEEN).as("nothing delivered again").hasSize(6);

            // and back down
            container.stop();
            container.setConcurrency(1);
            container.start();
            assertThat(container.getMembers()).hasSize(1);
            sendToEachPartition(template, "c");
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).hasSize(9).contains("grows-0:c0", "grows-0:c1", "grows-0:c2");
        });
    }

    @Test
    void aPauseAskedBeforeTheChangeHoldsForTheNewMembers() {
        runner.run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            ConcurrentMessageListenerContainer container = register(registry,
                    context.getBean(KafkoListenerContainerFactory.class));
            container.pause();
            container.pausePartition("wide", 1);
            container.stop();
            container.setConcurrency(2);
            container.start();
            await().atMost(WAIT).until(container::isPaused);
            assertThat(container.getMembers()).hasSize(2).allSatisfy(m -> assertThat(m.isPauseRequested()).isTrue());
            sendToEachPartition(template, "p");
            container.resume();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).extracting(s -> s.substring(s.indexOf(':') + 1)).containsExactlyInAnyOrder("p0", "p2");
            assertThat(container.isPartitionPauseRequested("wide", 1)).isTrue();
            container.resumePartition("wide", 1);
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).extracting(s -> s.substring(s.indexOf(':') + 1))
                    .containsExactlyInAnyOrder("p0", "p1", "p2");
        });
    }

    @Test
    void aMemberStillFinishingItsRecordPastTheShutdownTimeoutKeepsTheSettingsUntilItEnds() {
        CountDownLatch inHand = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        runner.withPropertyValues("kafko.listener.shutdown-timeout=100ms").run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            ConcurrentMessageListenerContainer container = context.getBean(KafkoListenerContainerFactory.class)
                    .createListenerContainer("overruns", "overruns", List.of("wide"), (records, ack) -> {
                        inHand.countDown();
                        release.await(30, TimeUnit.SECONDS);
                    });
            registry.registerListenerContainer(container, true);
            template.send("wide", 0, null, "held").join();
            assertThat(inHand.await(30, TimeUnit.SECONDS)).isTrue();
            try {
                container.stop(); // returns after the timeout, the member still in its listener
                assertThatThrownBy(() -> container.setConcurrency(2)).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("'overruns' was stopped but a member of it still finishes its record");
            } finally {
                release.countDown();
            }
            await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> container.setConcurrency(2));
            container.start();
            assertThat(container.getMembers()).hasSize(2).allSatisfy(m -> assertThat(m.isRunning()).isTrue());
        });
    }

    @Test
    void aPauseAskedBeforeTheChangeIsStillAskedForOnceTheMembersAreMadeAgain() {
        runner.run(context -> {
            ConcurrentMessageListenerContainer container = register(
                    context.getBean(KafkoListenerEndpointRegistry.class),
                    context.getBean(KafkoListenerContainerFactory.class));
            container.pause();
            container.stop();
            assertThat(container.isPauseRequested()).isTrue();
            container.setConcurrency(2);
            assertThat(container.isPauseRequested()).as("the pause, asked and not resumed").isTrue();
            assertThat(container.getMembers()).allSatisfy(m -> assertThat(m.isPauseRequested()).isTrue());
        });
    }

    @Test
    void aListenerChangesItsOwnContainersConcurrencyFromTheCallbackOfItsStop() {
        AtomicReference<ConcurrentMessageListenerContainer> self = new AtomicReference<>();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        CountDownLatch changed = new CountDownLatch(1);
        runner.run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            ConcurrentMessageListenerContainer container = context.getBean(KafkoListenerContainerFactory.class)
                    .createListenerContainer("self", "self", List.of("wide"), (records, ack) -> {
                        for (KafkoRecord r : records) {
                            String value = new String(r.value(), UTF_8);
                            SEEN.add(Thread.currentThread().getName() + ":" + value);
                            if (value.equals("grow")) {
                                self.get().stop(() -> {
                                    try {
                                        self.get().setConcurrency(3);
                                        self.get().start();
                                    } catch (RuntimeException | Error e) {
                                        failed.set(e);
                                    } finally {
                                        changed.countDown();
                                    }
                                });
                            }
                        }
                    });
            self.set(container);
            context.getBean(KafkoListenerEndpointRegistry.class).registerListenerContainer(container, true);
            template.send("wide", 0, null, "grow").join();
            assertThat(changed.await(20, TimeUnit.SECONDS)).isTrue();
            assertThat(failed.get()).isNull();
            assertThat(container.getMembers()).hasSize(3);
            KafkoTestUtils.waitForAssignment(container, 3, WAIT);
            sendToEachPartition(template, "after");
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).filteredOn(s -> s.contains(":after")).hasSize(3);
            assertThat(SEEN).filteredOn(s -> s.endsWith(":grow")).hasSize(1);
            container.stop();
            assertThat(container.isRunning()).isFalse();
        });
    }

    @Test
    void aMemberTheContainerNoLongerHasCannotRunAgain() {
        runner.run(context -> {
            ConcurrentMessageListenerContainer container = register(
                    context.getBean(KafkoListenerEndpointRegistry.class),
                    context.getBean(KafkoListenerContainerFactory.class));
            List<MessageListenerContainer> before = container.getMembers();
            container.stop();
            container.setConcurrency(2);
            container.start();
            // it would run with the settings it had, unseen by the container's stop and by its isRunning()
            assertThatThrownBy(() -> before.get(0).start()).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("grows-0 is no longer a member of listener 'grows'");
            container.stop();
            assertThat(before.get(0).isRunning()).as("a former member, not stopped by its container").isFalse();
        });
    }
}
