package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTopicCreations;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.support.KafkoInstrumentation;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.task.support.TaskExecutorAdapter;

/**
 * A member's stage slot ({@link AwaitedStage#current()}) is its polling thread's while the member runs, and no
 * longer: a pooled thread a container's task executor ran a member on runs other work after it, where the listener
 * adapter, the error handlers and the recoverers must not take it for a member's polling thread.
 */
class AwaitedStageBindingTest {

    @TempDir
    Path dir;

    @Test
    void aPooledThreadAMemberRanOnIsNoPollingThreadOnceTheMemberEnded() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            KafkoBackend backend = new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true),
                    new KafkoTopicCreations());
            ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer("pooled",
                    List.of("pooled"), "pooled", backend,
                    new ContainerProperties(AckMode.RECORD, 1, Duration.ofMillis(50), 500, Duration.ofSeconds(10)),
                    true, (records, ack) -> { }, new DefaultErrorHandler(), KafkoInstrumentation.NOOP,
                    new TaskExecutorAdapter(pool));
            container.start();
            KafkoTestUtils.waitForAssignment(container, 1, Duration.ofSeconds(20));
            assertThat(pool.submit(AwaitedStage::current).isDone()).as("the member holds the pool's thread").isFalse();
            container.stop();
            // the pool's one thread runs this once the member's run ended
            assertThat(pool.submit(AwaitedStage::current).get(20, TimeUnit.SECONDS)).isNull();
        } finally {
            pool.shutdownNow();
        }
    }
}
