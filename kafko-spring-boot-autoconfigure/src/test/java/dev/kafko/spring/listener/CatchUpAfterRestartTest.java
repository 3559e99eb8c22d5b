package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTopicCreations;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.support.KafkoInstrumentation;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * A new run of a container starts from its group's commits: what the last run processed but never committed is
 * delivered again, and {@link ConcurrentMessageListenerContainer#awaitCaughtUp} waits for it to be processed again,
 * not taking the last run's processing for this one's.
 */
class CatchUpAfterRestartTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    @Test
    void aRestartedContainerIsCaughtUpOnlyOnceItProcessedAgainWhatItHadNotCommitted() throws Exception {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            KafkoBackend backend = new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true),
                    new KafkoTopicCreations());
            AtomicInteger deliveries = new AtomicInteger();
            CountDownLatch redelivered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer("again",
                    List.of("again"), "again", backend,
                    new ContainerProperties(AckMode.MANUAL, 1, Duration.ofMillis(50), 500, Duration.ofSeconds(10)),
                    true, (records, ack) -> { // never acknowledges: nothing is committed
                        if (deliveries.incrementAndGet() == 2) {
                            redelivered.countDown();
                            release.await(20, TimeUnit.SECONDS);
                        }
                    }, new DefaultErrorHandler(), KafkoInstrumentation.NOOP, new SimpleAsyncTaskExecutor());
            container.start();
            try {
                KafkoTestUtils.waitForAssignment(container, 1, WAIT);
                kafko.producer("again").send(null, "r".getBytes(StandardCharsets.UTF_8)).join();
                assertThat(container.awaitCaughtUp(WAIT)).as("processed in the first run").isEmpty();
                container.stop();

                container.start();
                assertThat(redelivered.await(20, TimeUnit.SECONDS)).as("delivered again").isTrue();
                assertThat(container.awaitCaughtUp(Duration.ofMillis(300)))
                        .as("the record delivered again is still in the listener").isNotEmpty();
                release.countDown();
                assertThat(container.awaitCaughtUp(WAIT)).isEmpty();
            } finally {
                release.countDown();
                container.stop();
            }
        }
    }
}
