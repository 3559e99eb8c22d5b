package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTopicCreations;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.event.ConcurrentContainerStoppedEvent;
import dev.kafko.spring.event.ConsumerStartedEvent;
import dev.kafko.spring.event.ConsumerStoppedEvent;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * A start during a stop the member outlived is pending until the member's thread exits; an application listener of
 * that thread's {@code ConsumerStoppedEvent} that starts the container too makes one new run, not two: the pending
 * restart sees the member running again and launches nothing more.
 */
class StartFromTheStoppedEventDuringAPendingRestartTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    @Test
    void aPendingRestartAndAStartFromTheStoppedEventMakeOneNewRun() throws Exception {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            KafkoBackend backend = new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true),
                    new KafkoTopicCreations());
            CountDownLatch busy = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            List<KafkoEvent> events = new CopyOnWriteArrayList<>();
            AtomicReference<ConcurrentMessageListenerContainer> self = new AtomicReference<>();
            AtomicBoolean startFromEvent = new AtomicBoolean(true);
            ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer("twice",
                    List.of("twice"), "twice", backend,
                    new ContainerProperties(AckMode.RECORD, 1, Duration.ofMillis(50), 500, Duration.ofMillis(200)),
                    true, (records, ack) -> {
                        busy.countDown();
                        release.await(20, TimeUnit.SECONDS);
                    }, new DefaultErrorHandler(), KafkoInstrumentation.NOOP, new SimpleAsyncTaskExecutor());
            self.set(container);
            container.setApplicationEventPublisher(event -> {
                events.add((KafkoEvent) event);
                if (event instanceof ConsumerStoppedEvent && startFromEvent.getAndSet(false)) {
                    self.get().start();
                }
            });
            container.start();
            try {
                KafkoTestUtils.waitForAssignment(container, 1, WAIT);
                kafko.producer("twice").send(null, "slow".getBytes(StandardCharsets.UTF_8)).join();
                assertThat(busy.await(20, TimeUnit.SECONDS)).isTrue();
                container.stop(); // overruns its 200 ms: the listener is still busy
                container.start(); // pending while the member's thread still finishes
                release.countDown();
                await().atMost(WAIT).until(() -> count(events, ConsumerStartedEvent.class) >= 2);
            } finally {
                release.countDown();
                container.stop();
            }
            await().atMost(WAIT).until(() -> count(events, ConcurrentContainerStoppedEvent.class) == 1);
            assertThat(count(events, ConsumerStartedEvent.class)).as("the first run and one new run").isEqualTo(2);
            assertThat(count(events, ConsumerStoppedEvent.class)).isEqualTo(2);
        }
    }

    private static long count(List<KafkoEvent> events, Class<? extends KafkoEvent> type) {
        return events.stream().filter(type::isInstance).count();
    }
}
