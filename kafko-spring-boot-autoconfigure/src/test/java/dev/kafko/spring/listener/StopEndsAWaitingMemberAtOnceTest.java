package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTopicCreations;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.event.ConsumerPausedEvent;
import dev.kafko.spring.event.ConsumerStoppedEvent;
import dev.kafko.spring.event.KafkoEvent;
import dev.kafko.spring.support.KafkoInstrumentation;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * A stop of a member that waits, in its poll or paused, wakes it: the member ends within the stop, which returns
 * with it stopped, instead of waiting out the stop's shutdown timeout for a poll timeout far longer still.
 */
class StopEndsAWaitingMemberAtOnceTest {

    @TempDir
    Path dir;

    private static final Duration POLL_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final List<KafkoEvent> events = new CopyOnWriteArrayList<>();

    @Test
    void aStopEndsAMemberWaitingInItsPoll() {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            ConcurrentMessageListenerContainer container = container(kafko);
            container.start();
            KafkoTestUtils.waitForAssignment(container, 1, WAIT);
            PausesTakeEffectBeforeThePollTimeoutTest.awaitWaiting(container);

            container.stop();
            assertThat(container.isRunning()).as("stopped within the stop").isFalse();
            assertThat(events).filteredOn(ConsumerStoppedEvent.class::isInstance).hasSize(1);
        }
    }

    @Test
    void aStopEndsAPausedMemberWaitingForItsResume() {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            ConcurrentMessageListenerContainer container = container(kafko);
            container.start();
            KafkoTestUtils.waitForAssignment(container, 1, WAIT);
            container.pause();
            await().atMost(WAIT).until(() -> events.stream().anyMatch(ConsumerPausedEvent.class::isInstance));
            PausesTakeEffectBeforeThePollTimeoutTest.awaitWaiting(container);

            container.stop();
            assertThat(container.isRunning()).as("stopped within the stop").isFalse();
            assertThat(events).filteredOn(ConsumerStoppedEvent.class::isInstance).hasSize(1);
        }
    }

    private ConcurrentMessageListenerContainer container(Kafko kafko) {
        KafkoBackend backend = new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true),
                new KafkoTopicCreations());
        ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer("waiting",
                List.of("waiting"), "waiting", backend,
                new ContainerProperties(AckMode.BATCH, 1, POLL_TIMEOUT, 500, Duration.ofSeconds(10)), true,
                (records, ack) -> { }, new DefaultErrorHandler(), KafkoInstrumentation.NOOP,
                new SimpleAsyncTaskExecutor());
        container.setApplicationEventPublisher(event -> events.add((KafkoEvent) event));
        return container;
    }
}
