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
 * A start during a stop the member outlived starts it again once its thread exits; that restart is done with then: a
 * later death of the restarted member leaves it dead (the container tells that it stopped, and is not in its expected
 * state), not started once more as if the restart were still pending.
 */
class RestartedMemberThatDiesStaysDeadTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    @Test
    void aMemberRestartedAfterAnOutlivedStopThatThenDiesStaysDead() throws Exception {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            KafkoBackend backend = new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true),
                    new KafkoTopicCreations());
            CountDownLatch busy = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            OutOfMemoryError death = new OutOfMemoryError("the listener ran out of memory");
            List<KafkoEvent> events = new CopyOnWriteArrayList<>();
            ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer("restarted",
                    List.of("restarted"), "restarted", backend,
                    new ContainerProperties(AckMode.RECORD, 1, Duration.ofMillis(50), 500, Duration.ofMillis(200)),
                    true, (records, ack) -> {
                        for (var record : records) {
                            String value = new String(record.value(), StandardCharsets.UTF_8);
                            if (value.equals("slow")) {
                                busy.countDown();
                                release.await(20, TimeUnit.SECONDS);
                            } else if (value.equals("die")) {
                                throw death;
                            }
                        }
                    }, new DefaultErrorHandler(), KafkoInstrumentation.NOOP, new SimpleAsyncTaskExecutor());
            container.setApplicationEventPublisher(event -> events.add((KafkoEvent) event));
            container.start();
            try {
                KafkoTestUtils.waitForAssignment(container, 1, WAIT);
                kafko.producer("restarted").send(null, "slow".getBytes(StandardCharsets.UTF_8)).join();
                assertThat(busy.await(20, TimeUnit.SECONDS)).isTrue();
                container.stop(); // overruns its 200 ms: the listener is still busy
                container.start(); // while the member's thread still finishes
                release.countDown();
                await().atMost(WAIT).until(() -> events.stream().filter(ConsumerStartedEvent.class::isInstance)
                        .count() == 2);

                kafko.producer("restarted").send(null, "die".getBytes(StandardCharsets.UTF_8)).join();
                await().atMost(WAIT).until(() -> events.stream()
                        .anyMatch(ConcurrentContainerStoppedEvent.class::isInstance));
                MessageListenerContainer member = container.getMembers().get(0);
                assertThat(member.isRunning()).isFalse();
                assertThat(member.getFailure()).isSameAs(death);
                assertThat(container.isInExpectedState()).as("its member died").isFalse();
            } finally {
                release.countDown();
                container.stop();
            }
        }
    }
}
