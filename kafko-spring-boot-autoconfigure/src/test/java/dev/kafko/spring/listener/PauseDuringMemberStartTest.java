package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTopicCreations;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.support.KafkoInstrumentation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.core.task.TaskExecutor;

/**
 * A pause or a resume asked for on the thread that starts a container's members, under the container's lock (the
 * lock is re-entrant): by application code that runs there, an instrumentation told that the container starts to
 * read a topic, or the task executor that launches a member's thread. The members started after it follow it, as
 * they would had it come before the start.
 */
class PauseDuringMemberStartTest {

    @TempDir
    Path dir;

    private final ContainerProperties properties = new ContainerProperties(AckMode.BATCH, 2, Duration.ofMillis(50),
            500, Duration.ofSeconds(10));

    /**
     * A pattern's topic is created: the container gets it ready (telling its instrumentation, which pauses the
     * container), then makes and starts its members, which start paused.
     */
    @Test
    void aPauseAskedWhileAPatternsNewTopicIsGotReadyStartsItsMembersPaused() {
        KafkoTopicCreations creations = new KafkoTopicCreations();
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().observer(creations).build())) {
            KafkoBackend backend = new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true),
                    creations);
            AtomicReference<ConcurrentMessageListenerContainer> self = new AtomicReference<>();
            KafkoInstrumentation pausing = new KafkoInstrumentation() {
                @Override
                public void listenerStarting(String listenerId, String groupId, String topic) {
                    if (topic.equals("paused-1")) {
                        self.get().pause();
                    }
                }
            };
            ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer("paused",
                    Pattern.compile("paused-.*"), "paused", backend, properties, true, (records, ack) -> { },
                    new DefaultErrorHandler(), pausing, new SimpleAsyncTaskExecutor());
            self.set(container);
            container.start();
            try {
                kafko.createTopic("paused-1"); // the container is told on this thread, and starts the members
                assertThat(container.getMembers()).hasSize(2)
                        .allSatisfy(member -> assertThat(member.isPauseRequested()).isTrue());
                assertThat(container.isPauseRequested()).isTrue();
            } finally {
                container.stop();
            }
        }
    }

    /**
     * A paused container starts: the task executor resumes it as it launches the first member's thread; the other
     * member, started after the resume, does not start paused.
     */
    @Test
    void aResumeAskedAsTheFirstMemberIsLaunchedLeavesTheLaterMembersUnpaused() {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            KafkoBackend backend = new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true),
                    new KafkoTopicCreations());
            AtomicReference<ConcurrentMessageListenerContainer> self = new AtomicReference<>();
            AtomicBoolean first = new AtomicBoolean(true);
            TaskExecutor threads = new SimpleAsyncTaskExecutor();
            TaskExecutor resuming = task -> {
                if (first.getAndSet(false)) {
                    self.get().resume();
                }
                threads.execute(task);
            };
            ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer("resumed",
                    List.of("resumed"), "resumed", backend, properties, true, (records, ack) -> { },
                    new DefaultErrorHandler(), KafkoInstrumentation.NOOP, resuming);
            self.set(container);
            container.pause();
            container.start();
            try {
                assertThat(container.getMembers()).hasSize(2)
                        .allSatisfy(member -> assertThat(member.isPauseRequested()).isFalse());
                assertThat(container.isPauseRequested()).isFalse();
            } finally {
                container.stop();
            }
        }
    }
}
