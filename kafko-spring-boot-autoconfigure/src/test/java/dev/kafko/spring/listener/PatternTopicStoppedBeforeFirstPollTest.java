package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.OffsetResetPolicy;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTopicCreations;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.support.KafkoInstrumentation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.core.task.TaskExecutor;

/**
 * Under {@code latest}, the members of a topic a pattern matched as it was created read it from its start though
 * their container is stopped before they first polled it: started again, they read what was sent right after the
 * creation, as the README says of such a topic, and not from the end of the log at the new start.
 */
class PatternTopicStoppedBeforeFirstPollTest {

    @TempDir
    Path dir;

    @ParameterizedTest(name = "concurrency {0}")
    @ValueSource(ints = {1, 3})
    void aTopicCreatedWhileRunningIsReadFromItsStartAfterAStopBeforeTheMembersFirstPoll(int concurrency)
            throws Exception {
        ContainerProperties properties = new ContainerProperties(AckMode.BATCH, concurrency, Duration.ofMillis(50), 500,
                Duration.ofSeconds(10)).withOffsetReset(OffsetResetPolicy.LATEST);
        KafkoTopicCreations creations = new KafkoTopicCreations();
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().observer(creations).build())) {
            KafkoBackend backend = new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true),
                    creations);
            List<String> received = new CopyOnWriteArrayList<>();
            TaskExecutor threads = new SimpleAsyncTaskExecutor();
            // the first run's member thread is held until the container was asked to stop: it never polls
            AtomicBoolean hold = new AtomicBoolean(true);
            CountDownLatch release = new CountDownLatch(1);
            TaskExecutor holding = task -> {
                if (hold.get()) {
                    threads.execute(() -> {
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        task.run();
                    });
                } else {
                    threads.execute(task);
                }
            };
            ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer("late",
                    Pattern.compile("late-.*"), "late", backend, properties, true,
                    (records, ack) -> records.forEach(r -> received.add(new String(r.value(),
                            StandardCharsets.UTF_8))),
                    new DefaultErrorHandler(), KafkoInstrumentation.NOOP, holding);
            container.start();
            try {
                kafko.createTopic("late-1"); // its member is made and launched on this thread
                assertThat(container.getMembers()).hasSize(concurrency);
                kafko.producer("late-1").send(null, "sent-at-once".getBytes(StandardCharsets.UTF_8)).join();
                Thread stopper = new Thread(container::stop);
                stopper.start();
                await().atMost(Duration.ofSeconds(10)).until(() -> container.getMembers().stream()
                        .allMatch(m -> ((KafkoMessageListenerContainer) m).isStopping()));
                hold.set(false);
                release.countDown();
                stopper.join(20_000);
                assertThat(stopper.isAlive()).isFalse();
                assertThat(received).isEmpty();

                container.start();
                // where the member starts is committed as it is assigned the partition
                await().atMost(Duration.ofSeconds(20)).until(() -> kafko.groupInfo("late-1", "late").committed()
                        .containsKey(0));
                kafko.producer("late-1").send(null, "after-restart".getBytes(StandardCharsets.UTF_8)).join();
                await().atMost(Duration.ofSeconds(20)).until(() -> received.contains("after-restart"));
                assertThat(received).containsExactly("sent-at-once", "after-restart");
            } finally {
                container.stop();
            }
        }
    }

    /**
     * The topic the pattern matched as it was created is deleted while the container is stopped, and created again
     * before it starts: the new one is a topic that exists when the container starts, read from the end under
     * {@code latest}.
     */
    @Test
    void aTopicCreatedAgainWhileTheContainerIsStoppedStartsAtTheEndUnderLatest() throws Exception {
        ContainerProperties properties = new ContainerProperties(AckMode.BATCH, 3, Duration.ofMillis(50), 500,
                Duration.ofSeconds(10)).withOffsetReset(OffsetResetPolicy.LATEST);
        KafkoTopicCreations creations = new KafkoTopicCreations();
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().observer(creations).build())) {
            KafkoBackend backend = new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true),
                    creations);
            List<String> received = new CopyOnWriteArrayList<>();
            ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer("again",
                    Pattern.compile("again-.*"), "again", backend, properties, true,
                    (records, ack) -> records.forEach(r -> received.add(new String(r.value(),
                            StandardCharsets.UTF_8))),
                    new DefaultErrorHandler(), KafkoInstrumentation.NOOP, new SimpleAsyncTaskExecutor());
            container.start();
            try {
                kafko.createTopic("again-1");
                kafko.producer("again-1").send(null, "first".getBytes(StandardCharsets.UTF_8)).join();
                await().atMost(Duration.ofSeconds(20)).until(() -> received.contains("first"));
                container.stop();

                kafko.deleteTopic("again-1");
                kafko.createTopic("again-1");
                kafko.producer("again-1").send(null, "before-start".getBytes(StandardCharsets.UTF_8)).join();
                container.start();
                await().atMost(Duration.ofSeconds(20)).until(() -> kafko.groupInfo("again-1", "again").committed()
                        .containsKey(0));
                kafko.producer("again-1").send(null, "after-start".getBytes(StandardCharsets.UTF_8)).join();
                await().atMost(Duration.ofSeconds(20)).until(() -> received.contains("after-start"));
                assertThat(received).containsExactly("first", "after-start");
            } finally {
                container.stop();
            }
        }
    }
}
