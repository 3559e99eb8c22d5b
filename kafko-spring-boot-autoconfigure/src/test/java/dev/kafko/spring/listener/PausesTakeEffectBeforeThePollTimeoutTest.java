package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTopicCreations;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.event.ConsumerPartitionPausedEvent;
import dev.kafko.spring.event.ConsumerPartitionResumedEvent;
import dev.kafko.spring.event.ConsumerPausedEvent;
import dev.kafko.spring.event.ConsumerResumedEvent;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * A pause or a resume, of the container or of one partition, asked for from another thread while the member waits
 * (in its poll, or paused) is taken into effect at once: the member is woken, not left to wait out its poll timeout,
 * here far longer than the test's waits.
 */
class PausesTakeEffectBeforeThePollTimeoutTest {

    @TempDir
    Path dir;

    private static final Duration POLL_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final List<KafkoEvent> events = new CopyOnWriteArrayList<>();

    @Test
    void aContainerPauseAndItsResumeWakeAMemberWaitingInItsPollAndThenPaused() throws Exception {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            CountDownLatch received = new CountDownLatch(1);
            ConcurrentMessageListenerContainer container = container(kafko, "woken", received);
            container.start();
            try {
                KafkoTestUtils.waitForAssignment(container, 1, WAIT);
                awaitWaiting(container); // in its poll

                container.pause();
                await().atMost(WAIT).until(() -> has(ConsumerPausedEvent.class));
                assertThat(container.isPaused()).isTrue();
                awaitWaiting(container); // paused, waiting for the resume

                container.resume();
                await().atMost(WAIT).until(() -> has(ConsumerResumedEvent.class));
                kafko.producer("woken").send(null, "after".getBytes(StandardCharsets.UTF_8)).join();
                assertThat(received.await(WAIT.toSeconds(), TimeUnit.SECONDS))
                        .as("the resumed member read the record before its poll timeout (%s) passed", POLL_TIMEOUT)
                        .isTrue();
            } finally {
                container.stop();
            }
        }
    }

    @Test
    void aPartitionPauseAndItsResumeWakeTheMemberOfThePartitionWaitingInItsPoll() {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            ConcurrentMessageListenerContainer container = container(kafko, "woken", new CountDownLatch(1));
            container.start();
            try {
                KafkoTestUtils.waitForAssignment(container, 1, WAIT);
                awaitWaiting(container);

                container.pausePartition("woken", 0);
                await().atMost(WAIT).until(() -> has(ConsumerPartitionPausedEvent.class));
                assertThat(container.isPartitionPaused("woken", 0)).isTrue();
                awaitWaiting(container);

                container.resumePartition("woken", 0);
                await().atMost(WAIT).until(() -> has(ConsumerPartitionResumedEvent.class));
                assertThat(container.isPartitionPaused("woken", 0)).isFalse();
            } finally {
                container.stop();
            }
        }
    }

    private ConcurrentMessageListenerContainer container(Kafko kafko, String topic, CountDownLatch received) {
        KafkoBackend backend = new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true),
                new KafkoTopicCreations());
        ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer(topic, List.of(topic),
                topic, backend, new ContainerProperties(AckMode.BATCH, 1, POLL_TIMEOUT, 500, Duration.ofSeconds(10)),
                true, (records, ack) -> received.countDown(), new DefaultErrorHandler(), KafkoInstrumentation.NOOP,
                new SimpleAsyncTaskExecutor());
        container.setApplicationEventPublisher(event -> events.add((KafkoEvent) event));
        return container;
    }

    private boolean has(Class<? extends KafkoEvent> type) {
        return events.stream().anyMatch(type::isInstance);
    }

    /** Until the container's only member's polling thread waits (in its poll, or paused). */
    static void awaitWaiting(ConcurrentMessageListenerContainer container) {
        String name = ((KafkoMessageListenerContainer) container.getMembers().get(0)).memberName();
        await().atMost(WAIT).until(() -> Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals(name) && (t.getState() == Thread.State.TIMED_WAITING
                        || t.getState() == Thread.State.WAITING)));
    }
}
