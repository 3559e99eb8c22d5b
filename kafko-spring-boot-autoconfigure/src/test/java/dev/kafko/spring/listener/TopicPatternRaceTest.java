package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTopicCreations;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.KafkoInstrumentation;
import dev.kafko.spring.test.KafkoTestUtils;
import dev.kafko.KafkoOptions;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.messaging.handler.annotation.Header;

/** Topic-pattern listeners under topics created, deleted and created again from other threads. */
class TopicPatternRaceTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms");

    @BeforeEach
    void reset() {
        RECEIVED.clear();
        Rendezvous.barrier = new CyclicBarrier(2);
    }

    /**
     * Two listeners with their own patterns and dead letters on; a topic of each is created at once on two threads.
     * Each container prepares its new topic under its own lock, which creates the topic's dead-letter topic, whose
     * creation is told to the other container, which took its lock before it looked whether the pattern matches.
     * The rendezvous only makes the two creations meet (the observer is told of the dead-letter topics first): no
     * listener code runs.
     */
    @Test
    void twoPatternListenersDoNotDeadlockWhenTopicsOfEachAreCreatedAtOnce() throws Exception {
        CompletableFuture<String> verdict = new CompletableFuture<>();
        Thread driver = new Thread(() -> {
            try {
                runner.withBean(AlphaReader.class).withBean(BetaReader.class)
                        .withBean(Rendezvous.class, Rendezvous::new)
                        .withPropertyValues("kafko.listener.retry.max-attempts=1", "kafko.listener.dead-letter.enabled=true")
                        .run(context -> {
                    Kafko kafko = context.getBean(Kafko.class);
                    // the watchers are told in the order the containers started: one order of the two meets
                    for (String[] round : new String[][] {{"beta-1", "alpha-1"}, {"alpha-2", "beta-2"}}) {
                        Rendezvous.barrier = new CyclicBarrier(2);
                        CompletableFuture<Void> first = CompletableFuture.runAsync(() -> kafko.createTopic(round[0]),
                                daemon());
                        Thread.sleep(300); // the first creation waits at the rendezvous, its container's lock held
                        CompletableFuture<Void> second = CompletableFuture.runAsync(() -> kafko.createTopic(round[1]),
                                daemon());
                        try {
                            CompletableFuture.allOf(first, second).get(10, TimeUnit.SECONDS);
                        } catch (TimeoutException e) {
                            verdict.complete(deadlocked());
                            return; // the context cannot close: its containers' locks are held for good
                        }
                    }
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
                    verdict.complete("");
                });
            } catch (Throwable t) {
                verdict.completeExceptionally(t);
            }
        }, "pattern-race-driver");
        driver.setDaemon(true);
        driver.start();
        String deadlock = verdict.get(60, TimeUnit.SECONDS);
        if (!deadlock.isEmpty()) {
            fail("creating topics of two pattern listeners at once deadlocked:\n" + deadlock);
        }
    }

    /**
     * README: each topic created while the listener runs is read "from the start of the topic, whatever the
     * offset-reset policy". A topic it read, deleted and created again, is one of them; but its members (still
     * running, waiting for the topic) join it again only at their next poll timeout, at its end.
     */
    @Test
    void aRecordSentRightAfterATopicIsCreatedAgainIsReadAlsoWhenNewGroupsStartAtTheEnd() {
        runner.withBean(AlphaReader.class)
                .withPropertyValues("kafko.offset-reset=latest", "kafko.listener.poll-timeout=1s")
                .run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            kafko.createTopic("alpha-1");
            kafko.producer("alpha-1").send(null, bytes("first")).join();
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("alpha-1:first"));

            kafko.deleteTopic("alpha-1");
            Thread.sleep(1500); // the member found the topic gone, and waits for it
            kafko.createTopic("alpha-1");
            kafko.producer("alpha-1").send(null, bytes("again")).join();
            Thread.sleep(2500); // the member joined the topic again
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
            assertThat(RECEIVED).containsExactly("alpha-1:first", "alpha-1:again");
        });
    }

    /**
     * A pattern's listener never creates a topic: one it read that is deleted is simply not matched any more.
     * The test helper failed every later call at once for good, naming that topic.
     */
    @Test
    void waitForListenersDoesNotFailForeverOnceATopicAPatternMatchedIsDeleted() {
        runner.withBean(AlphaReader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            kafko.createTopic("alpha-old");
            kafko.producer("alpha-old").send(null, bytes("old")).join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
            kafko.deleteTopic("alpha-old"); // a test cleaning up after itself

            kafko.createTopic("alpha-new");
            kafko.producer("alpha-new").send(null, bytes("new")).join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
            assertThat(RECEIVED).containsExactly("alpha-old:old", "alpha-new:new");
        });
    }

    /**
     * A pattern's container whose start fails (a matched topic's dead-letter topic cannot be made) kept its watch
     * of topic creations: a container that was never registered (its registration failed) stayed reachable, and
     * was called, for every topic created for as long as the application ran.
     */
    @Test
    void aContainerWhoseStartFailedStopsWatchingTopicCreations(@TempDir Path dir) {
        KafkoTopicCreations creations = new KafkoTopicCreations();
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().observer(creations).build())) {
            kafko.createTopic("alpha-1");
            AtomicInteger watching = new AtomicInteger();
            LogBackend backend = new CountingWatches(new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, java.util.Map.of(), true), creations),
                    watching);
            KafkoErrorHandler refusing = new KafkoErrorHandler() {
                @Override
                public void handle(List<dev.kafko.KafkoRecord> records, Exception failure, FailedInvocation invocation) {
                }

                @Override
                public void prepare(String topic) {
                    throw new IllegalStateException("no dead-letter topic for " + topic);
                }
            };
            ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer("alpha",
                    Pattern.compile("alpha-.*"), "alpha", backend, ContainerProperties.DEFAULTS, true,
                    (records, ack) -> { }, refusing, KafkoInstrumentation.NOOP, new SimpleAsyncTaskExecutor());
            try {
                container.start();
                fail("the start should fail");
            } catch (IllegalStateException expected) {
                assertThat(expected).hasMessageContaining("no dead-letter topic for alpha-1");
            }
            assertThat(container.isRunning()).isFalse();
            assertThat(watching.get()).as("watches of topic creations left open").isZero();
        }
    }

    /**
     * README: {@code ConcurrentContainerStoppedEvent} comes once per stop of the whole container. A pattern's
     * container that matched no topic yet runs ({@code isRunning()}), but its stop told nobody: no member was
     * there to be the last one to stop.
     */
    @Test
    void aPatternContainerWithNoTopicYetTellsItsStop() {
        runner.withBean(AlphaReader.class).withBean(StopEvents.class).run(context -> {
            ConcurrentMessageListenerContainer container = container(context, "alpha");
            assertThat(container.isRunning()).isTrue();
            container.stop();
            assertThat(container.isRunning()).isFalse();
            await().atMost(Duration.ofSeconds(20)).until(() -> !StopEvents.SEEN.isEmpty());
            assertThat(StopEvents.SEEN).containsExactly("alpha NORMAL");
            container.stop(); // stopped already: nothing more to tell
            Thread.sleep(100);
            assertThat(StopEvents.SEEN).hasSize(1);
        });
    }

    static class StopEvents {
        static final List<String> SEEN = new CopyOnWriteArrayList<>();

        StopEvents() {
            SEEN.clear();
        }

        @org.springframework.context.event.EventListener
        void stopped(dev.kafko.spring.event.ConcurrentContainerStoppedEvent event) {
            SEEN.add(event.getListenerId() + " " + event.getReason());
        }
    }

    private static String deadlocked() {
        long[] ids = ManagementFactory.getThreadMXBean().findDeadlockedThreads();
        if (ids == null) {
            return "no deadlock found by the JVM, but the creations did not return within 10 s";
        }
        StringBuilder out = new StringBuilder();
        for (ThreadInfo info : ManagementFactory.getThreadMXBean().getThreadInfo(ids, true, true)) {
            out.append(info);
        }
        return out.toString();
    }

    private static java.util.concurrent.Executor daemon() {
        return runnable -> {
            Thread t = new Thread(runnable, "creator");
            t.setDaemon(true);
            t.start();
        };
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static ConcurrentMessageListenerContainer container(ApplicationContext context, String id) {
        return (ConcurrentMessageListenerContainer) context.getBean(KafkoListenerEndpointRegistry.class)
                .getListenerContainer(id);
    }

    /** Makes the creations of two dead-letter topics meet (told before the starter's watchers: first in order). */
    static final class Rendezvous implements KafkoObserver, Ordered {
        static volatile CyclicBarrier barrier = new CyclicBarrier(2);

        @Override
        public void onTopicCreated(String topic) {
            if (topic.endsWith(".DLT")) {
                try {
                    barrier.await(3, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (BrokenBarrierException | TimeoutException e) {
                    // the other creation did not come: nothing met
                }
            }
        }

        @Override
        public int getOrder() {
            return Ordered.HIGHEST_PRECEDENCE;
        }
    }

    /** Counts the watches of topic creations open. */
    /** Counts the watches of topic creations left open. */
    static final class CountingWatches extends DelegatingBackend {
        private final AtomicInteger open;

        CountingWatches(LogBackend real, AtomicInteger open) {
            super(real);
            this.open = open;
        }

        @Override
        public @Nullable AutoCloseable watchTopicCreations(Consumer<String> created) {
            AutoCloseable watch = real.watchTopicCreations(created);
            if (watch == null) {
                return null;
            }
            open.incrementAndGet();
            return () -> {
                open.decrementAndGet();
                watch.close();
            };
        }
    }

    static class AlphaReader {
        @KafkoListener(id = "alpha", topicPattern = "alpha-.*")
        void read(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            RECEIVED.add(topic + ":" + value);
        }
    }

    static class BetaReader {
        @KafkoListener(id = "beta", topicPattern = "beta-.*")
        void read(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            RECEIVED.add(topic + ":" + value);
        }
    }
}
