package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTopicCreations;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.event.ConcurrentContainerStoppedEvent;
import dev.kafko.spring.event.KafkoEvent;
import dev.kafko.spring.support.KafkoInstrumentation;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.core.task.TaskExecutor;
import org.springframework.core.task.TaskRejectedException;

/**
 * The task executor refuses a member's polling thread (a bounded pool that is full): the container's start fails
 * with the executor's exception, its members that started stop with it, the refused member is not left counted as
 * running without a thread, and a later start runs every member. A restart after a stop the member outlived that the
 * executor refuses leaves the member dead (its failure the refusal), and a later start runs it.
 */
class RejectedMemberThreadTest {

    @TempDir
    Path dir;

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void aRefusedMemberThreadFailsTheStartStopsTheOtherMembersAndALaterStartRunsThemAll() throws Exception {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            KafkoBackend backend = new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true),
                    new KafkoTopicCreations());
            AtomicInteger launches = new AtomicInteger();
            SimpleAsyncTaskExecutor threads = new SimpleAsyncTaskExecutor();
            TaskExecutor executor = task -> {
                if (launches.incrementAndGet() == 2) {
                    throw new TaskRejectedException("the pool is full");
                }
                threads.execute(task);
            };
            CountDownLatch received = new CountDownLatch(2);
            ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer("refused",
                    List.of("refused-a", "refused-b"), "refused", backend,
                    new ContainerProperties(AckMode.BATCH, 1, Duration.ofMillis(50), 500, Duration.ofSeconds(10)),
                    true, (records, ack) -> records.forEach(r -> received.countDown()), new DefaultErrorHandler(),
                    KafkoInstrumentation.NOOP, executor);

            assertThatThrownBy(container::start).isInstanceOf(TaskRejectedException.class)
                    .hasMessage("the pool is full");
            assertThat(container.isRunning()).as("no member runs after the failed start").isFalse();
            assertThat(container.getMembers()).noneMatch(MessageListenerContainer::isRunning);

            container.start();
            try {
                KafkoTestUtils.waitForAssignment(container, 2, WAIT);
                kafko.producer("refused-a").send(null, "a".getBytes(StandardCharsets.UTF_8)).join();
                kafko.producer("refused-b").send(null, "b".getBytes(StandardCharsets.UTF_8)).join();
                assertThat(received.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("both members read").isTrue();
            } finally {
                container.stop();
            }
            assertThat(container.isRunning()).isFalse();
        }
    }

    @Test
    void aRefusedRestartAfterAnOutlivedStopLeavesTheMemberDeadAndALaterStartRunsIt() throws Exception {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            KafkoBackend backend = new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true),
                    new KafkoTopicCreations());
            AtomicInteger launches = new AtomicInteger();
            SimpleAsyncTaskExecutor threads = new SimpleAsyncTaskExecutor();
            TaskRejectedException full = new TaskRejectedException("the pool is full");
            TaskExecutor executor = task -> {
                if (launches.incrementAndGet() == 2) {
                    throw full;
                }
                threads.execute(task);
            };
            CountDownLatch busy = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch after = new CountDownLatch(1);
            List<KafkoEvent> events = new CopyOnWriteArrayList<>();
            ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer("restart-refused",
                    List.of("restart-refused"), "restart-refused", backend,
                    new ContainerProperties(AckMode.RECORD, 1, Duration.ofMillis(50), 500, Duration.ofMillis(200)),
                    true, (records, ack) -> {
                        for (var record : records) {
                            if (new String(record.value(), StandardCharsets.UTF_8).equals("slow")) {
                                busy.countDown();
                                release.await(20, TimeUnit.SECONDS);
                            } else {
                                after.countDown();
                            }
                        }
                    }, new DefaultErrorHandler(), KafkoInstrumentation.NOOP, executor);
            container.setApplicationEventPublisher(event -> events.add((KafkoEvent) event));
            container.start();
            try {
                KafkoTestUtils.waitForAssignment(container, 1, WAIT);
                kafko.producer("restart-refused").send(null, "slow".getBytes(StandardCharsets.UTF_8)).join();
                assertThat(busy.await(20, TimeUnit.SECONDS)).isTrue();
                container.stop(); // overruns its 200 ms: the listener is still busy
                container.start(); // pending while the member's thread still finishes; its launch is refused
                release.countDown();
                await().atMost(WAIT).until(() -> events.stream()
                        .anyMatch(ConcurrentContainerStoppedEvent.class::isInstance));
                MessageListenerContainer member = container.getMembers().get(0);
                assertThat(member.isRunning()).isFalse();
                assertThat(member.getFailure()).isSameAs(full);
                assertThat(container.isInExpectedState()).as("asked to run, it does not").isFalse();

                container.start();
                KafkoTestUtils.waitForAssignment(container, 1, WAIT);
                kafko.producer("restart-refused").send(null, "after".getBytes(StandardCharsets.UTF_8)).join();
                assertThat(after.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("read after the later start").isTrue();
                assertThat(container.isInExpectedState()).isTrue();
            } finally {
                release.countDown();
                container.stop();
            }
        }
    }
}
