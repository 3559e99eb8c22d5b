package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTopicCreations;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.event.ConsumerPausedEvent;
import dev.kafko.spring.support.KafkoInstrumentation;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * A paused member waits for its resume; a resume that comes after the member saw the pause but before it began to
 * wait (here from an application listener of its {@link ConsumerPausedEvent}, on its polling thread, the widest such
 * window) is not lost: the member reads again at once, not a poll timeout later.
 */
class ResumeBeforePauseWaitTest {

    @TempDir
    Path dir;

    /** Long enough that a member waiting it out misses the test's wait for the record by far. */
    private static final Duration POLL_TIMEOUT = Duration.ofMinutes(2);

    @Test
    void aResumeFromThePausedEventLetsTheMemberReadAgainAtOnce() throws Exception {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            KafkoBackend backend = new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true),
                    new KafkoTopicCreations());
            CountDownLatch received = new CountDownLatch(1);
            CountDownLatch resumed = new CountDownLatch(1);
            AtomicReference<ConcurrentMessageListenerContainer> self = new AtomicReference<>();
            ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer("resumed",
                    List.of("resumed"), "resumed", backend,
                    new ContainerProperties(AckMode.BATCH, 1, POLL_TIMEOUT, 500, Duration.ofSeconds(10)), true,
                    (records, ack) -> received.countDown(), new DefaultErrorHandler(), KafkoInstrumentation.NOOP,
                    new SimpleAsyncTaskExecutor());
            self.set(container);
            container.setApplicationEventPublisher(event -> {
                if (event instanceof ConsumerPausedEvent) {
                    self.get().resume();
                    resumed.countDown();
                }
            });
            container.start();
            try {
                KafkoTestUtils.waitForAssignment(container, 1, Duration.ofSeconds(20));
                container.pause();
                assertThat(resumed.await(20, TimeUnit.SECONDS)).as("the member took the pause into effect").isTrue();

                kafko.producer("resumed").send(null, "after".getBytes(StandardCharsets.UTF_8)).join();

                assertThat(received.await(20, TimeUnit.SECONDS))
                        .as("the resumed member read the record before its poll timeout (%s) passed", POLL_TIMEOUT)
                        .isTrue();
            } finally {
                container.stop();
            }
        }
    }
}
