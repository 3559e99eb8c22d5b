package dev.kafko.spring.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.event.ConsumerStoppedEvent;
import dev.kafko.spring.listener.MessageListenerContainer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.EventListener;

@ExtendWith(OutputCaptureExtension.class)
class KafkoTestUtilsTest {

    static final List<String> SEEN = new CopyOnWriteArrayList<>();
    static volatile CountDownLatch gate = new CountDownLatch(0);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Gated.class).withPropertyValues("kafko.ephemeral=true");

    @Test
    void waitsForEveryRecordSentBeforeTheCallAndNamesThePartitionsStillBehind(CapturedOutput output) {
        SEEN.clear();
        gate = new CountDownLatch(1);
        runner.run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            template.send("gated", "a").join();
            template.send("gated", "b").join();
            assertThatThrownBy(() -> KafkoTestUtils.waitForListeners(context, Duration.ofMillis(200)))
                    .isInstanceOf(AssertionError.class).hasMessageContaining("gated: gated-0 at 0 of 2");
            gate.countDown();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(SEEN).containsExactly("a", "b");
        });
        assertThat(output).contains("Listener 'gated' has concurrency 2 but topic 'gated' has 1 partition(s)");
    }

    @Test
    void aNegativeOrMissingTimeoutIsRefusedAsTheRecordReadersRefuseIt() {
        SEEN.clear();
        gate = new CountDownLatch(0);
        runner.run(context -> {
            // nothing is behind: a negative timeout returned, as if the listeners had been waited for
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            MessageListenerContainer container = registry.getListenerContainer("gated");
            assertThatThrownBy(() -> KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("timeout must not be negative, was PT-1S");
            assertThatThrownBy(() -> KafkoTestUtils.waitForListeners(registry, Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("timeout must not be negative, was PT-1S");
            assertThatThrownBy(() -> KafkoTestUtils.waitForAssignment(container, 1, Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("timeout must not be negative, was PT-1S");
            assertThatThrownBy(() -> KafkoTestUtils.waitForListeners(context, null))
                    .isInstanceOf(NullPointerException.class).hasMessage("timeout");
            assertThatThrownBy(() -> KafkoTestUtils.waitForAssignment(container, 1, null))
                    .isInstanceOf(NullPointerException.class).hasMessage("timeout");
            KafkoTestUtils.waitForListeners(context, Duration.ZERO); // nothing behind: a zero timeout is enough
        });
    }

    @Test
    void whatWasConsumedOfADeletedTopicDoesNotCountForTheTopicCreatedAgainUnderItsName() {
        SEEN.clear();
        gate = new CountDownLatch(0);
        recreatedRunner().run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            for (String v : List.of("a", "b", "c")) {
                template.send("recreated", v).join();
            }
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            gate = new CountDownLatch(1); // the listener holds every record from now on
            context.getBean(Kafko.class).deleteTopic("recreated");
            for (String v : List.of("x", "y", "z")) {
                template.send("recreated", v).join(); // created again, with as many records as before
            }
            assertThatThrownBy(() -> KafkoTestUtils.waitForListeners(context, Duration.ofMillis(200)))
                    .isInstanceOf(AssertionError.class).hasMessageContaining("recreated-0 at 0 of 3");
            gate.countDown();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(SEEN).containsExactly("a", "b", "c", "x", "y", "z");
        });
    }

    @Test
    void aListenerStillOnTheDeletedTopicIsWaitedForOnTheTopicCreatedAgain() {
        SEEN.clear();
        gate = new CountDownLatch(1);
        recreatedRunner().run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            template.send("recreated", "before").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            template.send("recreated", "held").join(); // the listener holds it until the gate opens
            await().atMost(Duration.ofSeconds(20)).until(() -> SEEN.contains("held"));
            context.getBean(Kafko.class).deleteTopic("recreated");
            template.send("recreated", "after").join(); // its end, 1, is as far as the listener got before
            assertThatThrownBy(() -> KafkoTestUtils.waitForListeners(context, Duration.ofMillis(200)))
                    .isInstanceOf(AssertionError.class).hasMessageContaining("recreated-0 at 0 of 1");
            gate.countDown();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(SEEN).containsExactly("before", "held", "after");
        });
    }

    @Test
    void aListenedTopicThatDoesNotExistFailsTheWaitNamingTheListenerAndTheTopic() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(Unstarted.class).withPropertyValues("kafko.ephemeral=true", "kafko.auto-create-topics=false")
                .run(context -> {
                    Kafko kafko = context.getBean(Kafko.class);
                    kafko.createTopic("vanishing"); // not declared: nothing creates it again
                    context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("unstarted").start();
                    kafko.deleteTopic("vanishing");
                    assertThatThrownBy(() -> KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20)))
                            .isInstanceOf(AssertionError.class)
                            .hasMessageContaining("listener 'unstarted'").hasMessageContaining("topic 'vanishing'")
                            .hasCauseInstanceOf(UnknownTopicException.class);
                });
    }

    @Test
    void aListenerThatSoughtPastWhatItsTopicHoldsHasCaughtUpOnceAPollFindsNothing() {
        SEEN.clear();
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(Tail.class).withPropertyValues("kafko.ephemeral=true").run(context -> {
                    KafkoTemplate<Object, Object> template = template(context);
                    for (int i = 0; i < 10; i++) {
                        template.send("tail", "old-" + i).join();
                    }
                    context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("tail").start();
                    // nothing processed and nothing committed: caught up by its position, not at the timeout
                    long start = System.nanoTime();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
                    template.send("tail", "new").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(SEEN).containsExactly("tail:new");
                });
    }

    @Test
    void aListenerWhosePollingThreadDiedFailsTheWaitAtOnceNamingItAndWhy() {
        SEEN.clear();
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(Dies.class).withPropertyValues("kafko.ephemeral=true").run(context -> {
                    KafkoTemplate<Object, Object> template = template(context);
                    template.send("dies", "fatal").join();
                    template.send("dies", "never-read").join();
                    long start = System.nanoTime();
                    assertThatThrownBy(() -> KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30)))
                            .isInstanceOf(AssertionError.class).hasMessageContaining("listener 'dies'")
                            .hasMessageContaining("died").hasCauseInstanceOf(InternalError.class);
                    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
                    // and once it died, a wait fails before it begins
                    assertThatThrownBy(() -> KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30)))
                            .isInstanceOf(AssertionError.class).hasMessageContaining("listener 'dies'");
                    // started, never stopped, but dead: no start is pending, so waitForAssignment fails at once too
                    MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                            .getListenerContainer("dies");
                    assertThatThrownBy(() -> KafkoTestUtils.waitForAssignment(container, 1, Duration.ofSeconds(30)))
                            .isInstanceOf(AssertionError.class).hasMessageContaining("'dies' is not running")
                            .hasCauseInstanceOf(InternalError.class);
                    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
                });
    }

    @Test
    void aReplayChosenAsPartitionsAreAssignedIsWaitedForAfterARestart() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(ReadModel.class).withPropertyValues("kafko.ephemeral=true",
                        "kafko.topics.ledger.partitions=3").run(context -> {
                    KafkoTemplate<Object, Object> template = template(context);
                    for (int i = 0; i < 90; i++) {
                        template.send("ledger", "k" + (i % 7), "e" + i).join();
                    }
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    ReadModel model = context.getBean(ReadModel.class);
                    assertThat(model.size()).isEqualTo(90);
                    // the group has committed every record: a restart rebuilds the model from the beginning
                    MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                            .getListenerContainer("ledger");
                    for (int round = 0; round < 3; round++) {
                        container.stop();
                        container.start();
                        KafkoTestUtils.waitForAssignment(container, 3, Duration.ofSeconds(20));
                        KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                        assertThat(model.size()).as("round %d", round).isEqualTo(90);
                    }
                });
    }

    /** Rebuilds itself from the beginning of each partition it is assigned. */
    static class ReadModel implements dev.kafko.spring.listener.ConsumerSeekAware {
        private final java.util.Map<Integer, List<String>> byPartition = new java.util.concurrent.ConcurrentHashMap<>();

        @KafkoListener(id = "ledger", topics = "ledger")
        void on(String value, @org.springframework.messaging.handler.annotation.Header(
                dev.kafko.spring.support.KafkoHeaders.RECEIVED_PARTITION) int partition) throws InterruptedException {
            Thread.sleep(1); // a replay that takes a while, as a real one does
            byPartition.computeIfAbsent(partition, p -> new CopyOnWriteArrayList<>()).add(value);
        }

        @Override
        public void onPartitionsAssigned(java.util.Map<Integer, Long> assignments, ConsumerSeekCallback callback) {
            for (int p : assignments.keySet()) {
                byPartition.remove(p);
            }
            callback.seekToBeginning("ledger", assignments.keySet());
        }

        int size() {
            int n = 0;
            for (List<String> values : byPartition.values()) {
                n += values.size();
            }
            return n;
        }
    }

    /** Reads only what is sent after it started. */
    static class Tail implements dev.kafko.spring.listener.ConsumerSeekAware {
        @KafkoListener(id = "tail", topics = "tail", autoStartup = "false")
        void on(String value) {
            SEEN.add("tail:" + value);
        }

        @Override
        public void onPartitionsAssigned(java.util.Map<Integer, Long> assignments, ConsumerSeekCallback callback) {
            callback.seekToEnd("tail", assignments.keySet());
        }
    }

    /** A JVM error ends the member's thread. */
    static class Dies {
        @KafkoListener(id = "dies", topics = "dies")
        void on(String value) {
            SEEN.add(value);
            throw new InternalError("the listener's thread cannot go on");
        }
    }

    private ApplicationContextRunner recreatedRunner() {
        return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(Recreated.class).withPropertyValues("kafko.ephemeral=true");
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    @Test
    void oneCallSettlesAPipelineTheSendToHopAndTheDeadLetterIncluded() {
        SEEN.clear();
        // the second hops are slow: a wait that returned once the first ones had caught up would
        // find them not done
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(Up.class).withBean(Down.class).withBean(Poison.class).withBean(PoisonDlt.class)
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.retry.max-attempts=1",
                        "kafko.listener.dead-letter.enabled=true")
                .run(context -> {
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    template.send("upstream", "x").join();
                    template.send("poison", "p").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(SEEN).containsExactlyInAnyOrder("up:x", "down:X", "poison:p", "dlt:p");
                    // what the topics hold, as a test asserts it
                    assertThat(KafkoTestUtils.records(context, "poison.DLT")).singleElement()
                            .satisfies(r -> assertThat(new String(r.value())).isEqualTo("p"));
                    for (int i = 0; i < 5; i++) {
                        template.send("poison.DLT", "more-" + i);
                    }
                    assertThat(KafkoTestUtils.records(context, "poison.DLT")).hasSize(6)
                            .extracting(r -> new String(r.value())).startsWith("p").endsWith("more-4");
                    assertThatThrownBy(() -> KafkoTestUtils.records(context, "nowhere"))
                            .isInstanceOf(UnknownTopicException.class);
                });
    }

    @Test
    void listenersThatFeedEachOtherForeverDoNotKeepTheCallerWaiting() {
        SEEN.clear();
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(Ping.class).withBean(Pong.class).withPropertyValues("kafko.ephemeral=true")
                .run(context -> {
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    template.send("ping", "1").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(60));
                    // returned after its passes (three: one more than the two containers), not at the timeout
                    assertThat(SEEN).isNotEmpty();
                });
    }

    static class Ping {
        @KafkoListener(id = "ping", topics = "ping")
        @org.springframework.messaging.handler.annotation.SendTo("pong")
        String on(String value) {
            SEEN.add("ping:" + value);
            return value;
        }
    }

    static class Pong {
        @KafkoListener(id = "pong", topics = "pong")
        @org.springframework.messaging.handler.annotation.SendTo("ping")
        String on(String value) {
            return value;
        }
    }

    static class Poison {
        @KafkoListener(id = "poison", topics = "poison")
        void on(String value) {
            SEEN.add("poison:" + value);
            throw new IllegalStateException("refused " + value);
        }
    }

    static class PoisonDlt {
        @KafkoListener(id = "poison-dlt", topics = "poison.DLT")
        void on(String value) throws InterruptedException {
            Thread.sleep(300); // slow work
            SEEN.add("dlt:" + value);
        }
    }

    static class Up {
        @KafkoListener(id = "up", topics = "upstream")
        @org.springframework.messaging.handler.annotation.SendTo("downstream")
        String on(String value) {
            SEEN.add("up:" + value);
            return value.toUpperCase();
        }
    }

    static class Down {
        @KafkoListener(id = "down", topics = "downstream")
        void on(String value) throws InterruptedException {
            Thread.sleep(300); // slow work
            SEEN.add("down:" + value);
        }
    }

    /** Holds each record until the gate opens ("before" excepted), after it shows in {@link #SEEN}. */
    static class Recreated {
        @KafkoListener(id = "recreated", topics = "recreated")
        void on(String value) throws InterruptedException {
            SEEN.add(value);
            if (!value.equals("before")) {
                gate.await(30, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void aListenerPausedWhileTheCallWaitsIsNoLongerWaitedFor() {
        SEEN.clear();
        gate = new CountDownLatch(1);
        runner.withPropertyValues("kafko.listener.max-poll-records=1").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            template.send("gated", "a").join(); // held by the gate
            template.send("gated", "b").join();
            MessageListenerContainer gated = context.getBean(KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("gated");
            CompletableFuture.runAsync(() -> {
                gated.pause();
                gate.countDown();
            }, CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS));

            long start = System.nanoTime();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(5));

            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
            await().atMost(Duration.ofSeconds(20)).until(gated::isPaused); // once "a" is finished
            assertThat(SEEN).containsExactly("a");
        });
    }

    @Test
    void aListenerThatStopsItsOwnContainerWhileTheCallWaitsIsNoLongerWaitedFor() {
        SEEN.clear();
        gate = new CountDownLatch(1);
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(Breaker.class).withPropertyValues("kafko.ephemeral=true").run(context -> {
                    KafkoTemplate<Object, Object> template = template(context);
                    template.send("breaker", "trip").join(); // held by the gate, then stops the container
                    template.send("breaker", "after").join();
                    CompletableFuture.runAsync(gate::countDown, CompletableFuture.delayedExecutor(200,
                            TimeUnit.MILLISECONDS));

                    long start = System.nanoTime();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(5));

                    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
                    assertThat(SEEN).containsExactly("trip");
                    assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("breaker")
                            .isRunning()).isFalse();
                });
    }

    @Test
    void aClosedContextIsNotWaitedFor() {
        SEEN.clear();
        gate = new CountDownLatch(1); // nothing is processed
        ConfigurableApplicationContext[] closed = new ConfigurableApplicationContext[1];
        runner.run(context -> {
            template(context).send("gated", "a").join();
            closed[0] = context;
            gate.countDown(); // the close need not wait for the listener
        });

        long start = System.nanoTime();
        KafkoTestUtils.waitForListeners(closed[0], Duration.ofSeconds(5));

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
    }

    @Test
    void aContextClosedWhileTheCallWaitsIsNoLongerWaitedFor() {
        SEEN.clear();
        gate = new CountDownLatch(1); // "a" is held past the shutdown timeout
        try {
            runner.withPropertyValues("kafko.listener.shutdown-timeout=200ms").run(context -> {
                template(context).send("gated", "a").join();
                // closed by another thread (Spring's test context cache evicting it, a parallel test's
                // @DirtiesContext) while the call waits: its listeners stop, then its log closes
                CompletableFuture.runAsync(context.getSourceApplicationContext()::close,
                        CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS));

                long start = System.nanoTime();
                KafkoTestUtils.waitForListeners(context.getBean(KafkoListenerEndpointRegistry.class),
                        Duration.ofSeconds(10));

                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
                assertThat(SEEN).isEmpty();
            });
        } finally {
            releaseGatedMember();
        }
    }

    /**
     * The member outlived its context holding "a": it adds "a" to SEEN once let go, which must happen before the
     * next test clears SEEN, not after.
     */
    private static void releaseGatedMember() {
        gate.countDown();
        await().atMost(Duration.ofSeconds(20)).until(() -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.isAlive() && t.getName().startsWith("gated-")));
    }

    /**
     * Through the context, a close by another thread while the call waits fails the wait: a test asserting that a
     * record did not arrive would otherwise pass having checked nothing.
     */
    @Test
    void aContextClosedByAnotherThreadWhileTheCallWaitsOnItFailsTheWait() {
        SEEN.clear();
        gate = new CountDownLatch(1); // "a" is held past the shutdown timeout
        try {
            runner.withPropertyValues("kafko.listener.shutdown-timeout=200ms").run(context -> {
                template(context).send("gated", "a").join();
                ConfigurableApplicationContext source = context.getSourceApplicationContext();
                CompletableFuture.runAsync(source::close, CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS));

                assertThatThrownBy(() -> KafkoTestUtils.waitForListeners(source, Duration.ofSeconds(10)))
                        .isInstanceOf(AssertionError.class)
                        .hasMessageContaining("closed while waitForListeners waited")
                        .hasMessageContaining("was not checked");
                assertThat(SEEN).isEmpty();
                // closed before the call: nothing to wait for, as before
                KafkoTestUtils.waitForListeners(source, Duration.ofSeconds(10));
            });
        } finally {
            releaseGatedMember();
        }
    }

    /** A circuit breaker: stops its own container at "trip", once the gate opens. */
    static class Breaker {
        private final ObjectProvider<KafkoListenerEndpointRegistry> registry;

        Breaker(ObjectProvider<KafkoListenerEndpointRegistry> registry) {
            this.registry = registry;
        }

        @KafkoListener(id = "breaker", topics = "breaker")
        void on(String value) throws InterruptedException {
            gate.await(30, TimeUnit.SECONDS);
            SEEN.add(value);
            if (value.equals("trip")) {
                registry.getObject().getListenerContainer("breaker").stop();
            }
        }
    }

    /** Started by the test once its topic exists. */
    @Test
    void waitForAssignmentWaitsForTheMembersPartitionsAndNamesWhatItGotWhenTheyDoNotCome() {
        runner.withBean(Spread.class).withPropertyValues("kafko.topics.spread.partitions=4").run(context -> {
            MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("spread");
            assertThat(container.getAssignedPartitions()).as("not started").isEmpty();
            container.start();

            KafkoTestUtils.waitForAssignment(container, 4, Duration.ofSeconds(20));

            assertThat(container.getAssignedPartitions()).containsOnlyKeys("spread")
                    .extractingByKey("spread").asInstanceOf(InstanceOfAssertFactories.collection(Integer.class))
                    .containsExactlyInAnyOrder(0, 1, 2, 3);
            assertThatThrownBy(() -> KafkoTestUtils.waitForAssignment(container, 5, Duration.ofMillis(100)))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining("'spread' was assigned 4 partition(s) {spread=[0, 1, 2, 3]}, not 5");
            container.stop();
            assertThat(container.getAssignedPartitions()).as("stopped").isEmpty();
        });
    }

    @Test
    void waitForAssignmentOfAContainerThatIsNotRunningFailsAtOnceNamingIt() {
        runner.withBean(Spread.class).withPropertyValues("kafko.topics.spread.partitions=4").run(context -> {
            MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("spread");
            long began = System.nanoTime();
            assertThatThrownBy(() -> KafkoTestUtils.waitForAssignment(container, 4, Duration.ofSeconds(60)))
                    .as("never started (autoStartup false)").isInstanceOf(AssertionError.class)
                    .hasMessageContaining("kafko listener 'spread' is not running");
            container.start();
            KafkoTestUtils.waitForAssignment(container, 4, Duration.ofSeconds(20));
            container.stop();
            assertThatThrownBy(() -> KafkoTestUtils.waitForAssignment(container, 4, Duration.ofSeconds(60)))
                    .as("stopped").isInstanceOf(AssertionError.class)
                    .hasMessageContaining("kafko listener 'spread' is not running");
            assertThat(Duration.ofNanos(System.nanoTime() - began)).as("neither waited out its timeout")
                    .isLessThan(Duration.ofSeconds(30));
            KafkoTestUtils.waitForAssignment(container, 0, Duration.ZERO); // what a stopped container reads
        });
    }

    @Test
    void waitForAssignmentOfAContainerStartedDuringTheStopItsMemberFinishesWaitsForTheRestart() {
        SelfStopping.reset();
        runner.withBean(SelfStopping.class).run(context -> {
            MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("self-stopping");
            try {
                container.start();
                KafkoTestUtils.waitForAssignment(container, 1, Duration.ofSeconds(20));
                template(context).send("self-stopping", "k", "trip").join();
                assertThat(SelfStopping.stopAsked.await(20, TimeUnit.SECONDS)).isTrue();
                container.start(); // while its member finishes the record of the stop its own listener asked for
                SelfStopping.restartAsked.countDown();
                assertThat(SelfStopping.stoppedSeen.await(20, TimeUnit.SECONDS)).isTrue();

                // the member's thread ended and tells its stop; the start asked for runs it again once that is told
                assertThatThrownBy(() -> KafkoTestUtils.waitForAssignment(container, 1, Duration.ofMillis(200)))
                        .as("a start is pending: waited for, not refused").isInstanceOf(AssertionError.class)
                        .hasMessageContaining("was assigned 0 partition(s) {}, not 1, within PT0.2S");
                SelfStopping.stoppedHeld.countDown();
                KafkoTestUtils.waitForAssignment(container, 1, Duration.ofSeconds(20));
                assertThat(container.isRunning()).isTrue();
            } finally {
                SelfStopping.stoppedHeld.countDown();
                SelfStopping.restartAsked.countDown();
            }
        });
    }

    @Test
    void aListenerNeverStartedIsNotWaitedForAndItsRecordsStayUnread() {
        runner.withBean(Spread.class).withPropertyValues("kafko.topics.spread.partitions=4").run(context -> {
            template(context).send("spread", "k", "unread").join();
            long began = System.nanoTime();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(60));
            assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(Duration.ofSeconds(30));
            assertThat(context.getBean(Kafko.class).groupInfo("spread", "spread").committed()).isEmpty();
        });
    }

    /** Stops its own container at its first record, and holds the tale of its member's stop until the test lets go. */
    static class SelfStopping {
        static volatile CountDownLatch stopAsked;
        static volatile CountDownLatch restartAsked;
        static volatile CountDownLatch stoppedSeen;
        static volatile CountDownLatch stoppedHeld;
        private final ObjectProvider<KafkoListenerEndpointRegistry> registry;

        SelfStopping(ObjectProvider<KafkoListenerEndpointRegistry> registry) {
            this.registry = registry;
        }

        static void reset() {
            stopAsked = new CountDownLatch(1);
            restartAsked = new CountDownLatch(1);
            stoppedSeen = new CountDownLatch(1);
            stoppedHeld = new CountDownLatch(1);
        }

        @KafkoListener(id = "self-stopping", topics = "self-stopping", autoStartup = "false")
        void on(String value) throws InterruptedException {
            registry.getObject().getListenerContainer("self-stopping").stop();
            stopAsked.countDown();
            restartAsked.await(30, TimeUnit.SECONDS);
        }

        @EventListener
        void stopped(ConsumerStoppedEvent event) throws InterruptedException {
            stoppedSeen.countDown();
            stoppedHeld.await(30, TimeUnit.SECONDS);
        }
    }

    static class Spread {
        @KafkoListener(id = "spread", topics = "spread", concurrency = "2", autoStartup = "false")
        void on(String value) {
        }
    }

    static class Unstarted {
        @KafkoListener(id = "unstarted", topics = "vanishing", autoStartup = "false")
        void on(String value) {
        }
    }

    @Test
    void aPartitionWhosePauseIsAskedForIsNotWaitedFor() {
        SEEN.clear();
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(Warehouses.class)
                .withPropertyValues("kafko.ephemeral=true", "kafko.topics.wards.partitions=2").run(context -> {
                    MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                            .getListenerContainer("wards");
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    container.pausePartition("wards", 1); // its warehouse's downstream is down
                    KafkoTemplate<Object, Object> template = template(context);
                    template.send("wards", 1, "k", "held").join();
                    template.send("wards", 0, "k", "shipped").join();

                    // as for a paused container: the paused partition's record waits for the resume, not the call
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(SEEN).containsExactly("shipped");

                    container.resumePartition("wards", 1);
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(SEEN).containsExactly("shipped", "held");
                });
    }

    static class Warehouses {
        @KafkoListener(id = "wards", topics = "wards")
        void on(String value) {
            SEEN.add(value);
        }
    }

    static class Gated {
        @KafkoListener(id = "gated", topics = "gated", concurrency = "2")
        void on(String value) throws InterruptedException {
            gate.await(30, TimeUnit.SECONDS);
            SEEN.add(value);
        }
    }
}
