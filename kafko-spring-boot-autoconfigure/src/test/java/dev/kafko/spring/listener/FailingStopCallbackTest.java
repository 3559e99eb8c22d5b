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
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * The callbacks of the stops a container's own listener asked for run once every member stopped; one that throws
 * (whatever it throws) is logged, and the callbacks after it run all the same.
 */
class FailingStopCallbackTest {

    @TempDir
    Path dir;

    @Test
    void aCallbackThatThrowsLetsTheNextCallbackRun() throws Exception {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            KafkoBackend backend = new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true),
                    new KafkoTopicCreations());
            CountDownLatch secondRan = new CountDownLatch(1);
            AtomicReference<ConcurrentMessageListenerContainer> self = new AtomicReference<>();
            ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer("breaking",
                    List.of("breaking"), "breaking", backend,
                    new ContainerProperties(AckMode.BATCH, 1, Duration.ofMillis(50), 500, Duration.ofSeconds(10)),
                    true, (records, ack) -> {
                        self.get().stop(() -> {
                            throw new UnsupportedOperationException("the first callback fails");
                        });
                        self.get().stop(secondRan::countDown);
                    }, new DefaultErrorHandler(), KafkoInstrumentation.NOOP, new SimpleAsyncTaskExecutor());
            self.set(container);
            container.start();
            try {
                KafkoTestUtils.waitForAssignment(container, 1, Duration.ofSeconds(20));
                kafko.producer("breaking").send(null, "trip".getBytes(StandardCharsets.UTF_8)).join();

                assertThat(secondRan.await(20, TimeUnit.SECONDS)).as("the callback after the failed one ran").isTrue();
                assertThat(container.isRunning()).isFalse();
            } finally {
                container.stop();
            }
        }
    }
}
