package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.spring.LogCapture;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTopicCreations;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.event.ConcurrentContainerStoppedEvent;
import dev.kafko.spring.event.ConsumerStoppedEvent;
import dev.kafko.spring.event.KafkoEvent;
import dev.kafko.spring.support.KafkoInstrumentation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * A container whose topic pattern matched no topic runs without members: its stop, and its stop at the application's
 * shutdown, tell once per run that it stopped (there being no member to tell it), on the stopping thread; a stop
 * after a stop tells nothing more, and a run without members after one with them tells its own; a container with no
 * event publisher just stops, logging nothing; each stop, and a start that fails, ends the watch of topic creations
 * the start began.
 */
class MemberlessContainerStopTest {

    @TempDir
    Path dir;

    private final List<KafkoEvent> events = new CopyOnWriteArrayList<>();

    @RegisterExtension
    final LogCapture log = new LogCapture(ConcurrentMessageListenerContainer.class);

    @Test
    void aStopForShutdownTellsOnceThatTheContainerStopped() {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            ConcurrentMessageListenerContainer container = container(kafko);
            container.setApplicationEventPublisher(event -> events.add((KafkoEvent) event));
            container.start();
            assertThat(container.getMembers()).isEmpty();

            container.stopForShutdown();
            assertThat(container.isRunning()).isFalse();
            assertThat(events).singleElement().isInstanceOfSatisfying(ConcurrentContainerStoppedEvent.class,
                    e -> assertThat(e.getReason()).isEqualTo(ConsumerStoppedEvent.Reason.NORMAL));
        }
    }

    @Test
    void aStopAfterAStopTellsNothingMoreAndTheNextRunsStopTellsAgain() {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            ConcurrentMessageListenerContainer container = container(kafko);
            container.setApplicationEventPublisher(event -> events.add((KafkoEvent) event));
            container.start();
            container.stop();
            container.stop();
            assertThat(events).hasSize(1).allMatch(ConcurrentContainerStoppedEvent.class::isInstance);

            container.start();
            container.stop();
            assertThat(events).hasSize(2).allMatch(ConcurrentContainerStoppedEvent.class::isInstance);
        }
    }

    @Test
    void aRunWithoutMembersAfterARunWithMembersTellsItsStop() {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            kafko.createTopic("memberless-gone");
            ConcurrentMessageListenerContainer container = container(kafko);
            container.setApplicationEventPublisher(event -> events.add((KafkoEvent) event));
            container.start();
            assertThat(container.getMembers()).hasSize(1);
            container.stop();
            await().atMost(Duration.ofSeconds(20)).until(() -> !events.isEmpty());
            assertThat(events).last().isInstanceOf(ConcurrentContainerStoppedEvent.class);

            kafko.deleteTopic("memberless-gone");
            events.clear();
            container.start(); // its topic gone: no member is left to launch
            assertThat(container.getMembers()).isEmpty();
            container.stop();
            assertThat(events).singleElement().isInstanceOf(ConcurrentContainerStoppedEvent.class);
        }
    }

    @Test
    void aContainerWithoutAnEventPublisherStops() {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            ConcurrentMessageListenerContainer container = container(kafko);
            container.start();
            assertThat(container.isRunning()).isTrue();
            container.stop();
            assertThat(container.isRunning()).isFalse();
            container.start();
            container.stopForShutdown();
            assertThat(container.isRunning()).isFalse();
            assertThat(List.copyOf(log.events())).noneMatch(e -> e.getLevel() == Level.ERROR);
        }
    }

    @Test
    void aStopEndsTheWatchOfTopicCreationsItsStartBegan() {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            CountingBackend counting = new CountingBackend(backend(kafko));
            ConcurrentMessageListenerContainer container = container(counting);
            container.start();
            assertThat(counting.watching).hasValue(1);
            container.stop();
            assertThat(counting.watching).as("the stop ended the watch").hasValue(0);
            container.start();
            assertThat(counting.watching).hasValue(1);
            container.stopForShutdown();
            assertThat(counting.watching).hasValue(0);
        }
    }

    @Test
    void aStartThatFailsEndsTheWatchOfTopicCreationsItBegan() {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            IllegalStateException refused = new IllegalStateException("the topics cannot be listed");
            CountingBackend failing = new CountingBackend(backend(kafko)) {
                @Override
                public Set<String> topicNames() {
                    throw refused;
                }
            };
            ConcurrentMessageListenerContainer container = container(failing);
            assertThatThrownBy(container::start).isSameAs(refused);
            assertThat(container.isRunning()).isFalse();
            assertThat(failing.watching).as("the failed start ended the watch it began").hasValue(0);
        }
    }

    /** Counts the watches of topic creations begun and not ended yet. */
    private static class CountingBackend extends DelegatingBackend {
        final AtomicInteger watching = new AtomicInteger();

        CountingBackend(LogBackend real) {
            super(real);
        }

        @Override
        public @Nullable AutoCloseable watchTopicCreations(Consumer<String> created) {
            AutoCloseable watch = real.watchTopicCreations(created);
            watching.incrementAndGet();
            return () -> {
                watching.decrementAndGet();
                if (watch != null) {
                    watch.close();
                }
            };
        }
    }

    private static ConcurrentMessageListenerContainer container(Kafko kafko) {
        return container(backend(kafko));
    }

    private static KafkoBackend backend(Kafko kafko) {
        return new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true), new KafkoTopicCreations());
    }

    private static ConcurrentMessageListenerContainer container(LogBackend backend) {
        return new ConcurrentMessageListenerContainer("memberless", Pattern.compile("memberless-.*"), "memberless",
                backend, new ContainerProperties(AckMode.BATCH, 1, Duration.ofMillis(50), 500, Duration.ofSeconds(10)),
                true, (records, ack) -> { }, new DefaultErrorHandler(), KafkoInstrumentation.NOOP,
                new SimpleAsyncTaskExecutor());
    }
}
