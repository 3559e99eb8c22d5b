package dev.kafko.spring.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.AckMode;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.listener.ConsumerSeekAware;
import dev.kafko.spring.listener.ContainerProperties;
import dev.kafko.spring.listener.KafkoMessageListenerContainer;
import dev.kafko.spring.listener.MessageListenerContainer;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.EventListener;

/** The events a listener container publishes: started, stopped, paused, resumed, idle and no longer idle. */
class ContainerEventsTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** Every event published and every record delivered ("record:<value>"), in order. */
    static final List<Object> SEEN = new CopyOnWriteArrayList<>();
    static final AtomicBoolean THROW_IN_EVENT_LISTENER = new AtomicBoolean();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Events.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.watched.partitions=2");

    @BeforeEach
    void reset() {
        SEEN.clear();
        Dying.ONCE.set(false);
        THROW_IN_EVENT_LISTENER.set(false);
    }

    @Test
    void anIdleMemberPublishesAnIdleEventEveryIntervalAndANoLongerIdleEventBeforeTheNextRecords() {
        // a poll timeout far above the interval: the member shortens its polls, or the events would come late
        runner.withBean(Listening.class).withPropertyValues("kafko.listener.idle-event-interval=150ms",
                "kafko.listener.poll-timeout=30s").run(context -> {
            await().atMost(WAIT).until(() -> events(ListenerContainerIdleEvent.class).size() >= 2);
            assertThat(SEEN.get(0)).isInstanceOf(ConsumerStartingEvent.class);
            assertThat(SEEN.get(1)).isInstanceOf(ConsumerStartedEvent.class);
            assertThat(((KafkoEvent) SEEN.get(0)).getSource()).isSameAs(((KafkoEvent) SEEN.get(1)).getSource());
            assertThat(((KafkoEvent) SEEN.get(0)).getListenerId()).isEqualTo("listening");
            assertThat(((KafkoEvent) SEEN.get(0)).getContainer(ConcurrentMessageListenerContainer.class)).isSameAs(
                    context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("listening"));
            List<ListenerContainerIdleEvent> idle = events(ListenerContainerIdleEvent.class);
            ListenerContainerIdleEvent first = idle.get(0);
            assertThat(first.getListenerId()).isEqualTo("listening-0");
            assertThat(first.getTopic()).isEqualTo("watched");
            assertThat(first.getPartitions()).containsExactly(0, 1);
            assertThat(first.isPaused()).isFalse();
            assertThat(first.getIdleTime()).isBetween(150L, 10_000L);
            assertThat(idle.get(1).getIdleTime()).isGreaterThanOrEqualTo(first.getIdleTime() + 150);
            assertThat(first.getContainer(ConcurrentMessageListenerContainer.class)).isSameAs(
                    context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("listening"));
            assertThat(first.getSource(KafkoMessageListenerContainer.class).memberName()).isEqualTo("listening-0");
            assertThat(events(ListenerContainerNoLongerIdleEvent.class)).isEmpty();

            template(context).send("watched", "a").join();
            await().atMost(WAIT).until(() -> SEEN.contains("record:a"));
            List<ListenerContainerNoLongerIdleEvent> back = events(ListenerContainerNoLongerIdleEvent.class);
            assertThat(back).hasSize(1);
            assertThat(back.get(0).getIdleTime()).isGreaterThanOrEqualTo(idle.get(1).getIdleTime());
            assertThat(SEEN.indexOf(back.get(0))).as("published before the records are delivered")
                    .isLessThan(SEEN.indexOf("record:a"));

            // idle again, counted from the record
            int before = events(ListenerContainerIdleEvent.class).size();
            await().atMost(WAIT).until(() -> events(ListenerContainerIdleEvent.class).size() > before);
            ListenerContainerIdleEvent again = events(ListenerContainerIdleEvent.class).get(before);
            assertThat(SEEN.indexOf(again)).isGreaterThan(SEEN.indexOf("record:a"));
            assertThat(again.getIdleTime()).isLessThan(back.get(0).getIdleTime() + 10_000);
        });
    }

    @Test
    void eachIdlePartitionHasItsOwnEventsWhileAnotherPartitionReceivesRecords() {
        runner.withBean(Listening.class).withPropertyValues("kafko.listener.idle-partition-event-interval=150ms",
                "kafko.listener.poll-timeout=30s").run(context -> {
            // partition 1 gets a record every 50 ms: never idle; partition 0 gets none, until it had two idle events
            // (not a fixed window: idle time counts from the member's first poll, which a loaded machine makes late)
            long deadline = System.nanoTime() + WAIT.toNanos();
            int n = 0;
            while (idleOfPartition0().size() < 2) {
                assertThat(System.nanoTime()).as("two idle events of partition 0 within %s", WAIT).isLessThan(deadline);
                template(context).send("watched", 1, null, "busy-" + n++).join();
                Thread.sleep(50); // the pace of partition 1's records
            }
            // (partition 1 may have its own when a pause of the machine outlasts the interval)
            List<ListenerContainerPartitionIdleEvent> idle = idleOfPartition0();
            assertThat(idle).as("partition 0 idle after 150 ms, then after each further 150 ms")
                    .hasSizeGreaterThanOrEqualTo(2)
                    .allSatisfy(e -> {
                        assertThat(e.getTopic()).isEqualTo("watched");
                        assertThat(e.getListenerId()).isEqualTo("listening-0");
                        assertThat(e.isPaused()).isFalse();
                        assertThat(e.getPartitions()).containsExactly(0);
                    });
            assertThat(idle.get(0).getIdleTime()).isBetween(150L, 10_000L);
            assertThat(idle.get(1).getIdleTime()).isGreaterThanOrEqualTo(idle.get(0).getIdleTime() + 150);
            assertThat(events(ListenerContainerIdleEvent.class)).as("no container idle events without their interval")
                    .isEmpty();
            assertThat(events(ListenerContainerPartitionNoLongerIdleEvent.class)).noneMatch(e -> e.getPartition() == 0);

            template(context).send("watched", 0, null, "wakes").join();
            await().atMost(WAIT).until(() -> SEEN.contains("record:wakes"));
            List<ListenerContainerPartitionNoLongerIdleEvent> back =
                    events(ListenerContainerPartitionNoLongerIdleEvent.class);
            back = back.stream().filter(e -> e.getPartition() == 0).toList();
            assertThat(back).singleElement().satisfies(e ->
                    assertThat(e.getIdleTime()).isGreaterThanOrEqualTo(idle.get(1).getIdleTime()));
            assertThat(SEEN.indexOf(back.get(0))).as("published before the records are delivered")
                    .isLessThan(SEEN.indexOf("record:wakes"));

            // paused: idle events go on, marked paused
            registry(context).getListenerContainer("listening").pause();
            await().atMost(WAIT).until(() -> events(ListenerContainerPartitionIdleEvent.class).stream()
                    .anyMatch(ListenerContainerPartitionIdleEvent::isPaused));
        });
    }

    @Test
    void withoutAnIntervalThereAreNoIdleEvents() throws Exception {
        runner.withBean(Listening.class).withPropertyValues("kafko.listener.poll-timeout=20ms").run(context -> {
            template(context).send("watched", "a").join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            Thread.sleep(300); // fifteen empty polls
            assertThat(events(ListenerContainerIdleEvent.class)).isEmpty();
            assertThat(events(ListenerContainerPartitionIdleEvent.class)).isEmpty();
            assertThat(events(ConsumerStartingEvent.class)).hasSize(1);
            assertThat(events(ConsumerStartedEvent.class)).hasSize(1);
        });
    }

    @Test
    void aPauseTakenIntoEffectAndTheResumeAreEachPublishedOnceAndIdleEventsSayPaused() {
        runner.withBean(Listening.class).withPropertyValues("kafko.listener.idle-event-interval=100ms",
                "kafko.listener.poll-timeout=20ms").run(context -> {
            MessageListenerContainer container = registry(context).getListenerContainer("listening");
            await().atMost(WAIT).until(() -> !events(ConsumerStartedEvent.class).isEmpty());
            container.pause();
            await().atMost(WAIT).until(() -> events(ListenerContainerIdleEvent.class).stream()
                    .filter(ListenerContainerIdleEvent::isPaused).count() >= 2);
            assertThat(events(ConsumerPausedEvent.class)).hasSize(1);
            ConsumerPausedEvent paused = events(ConsumerPausedEvent.class).get(0);
            assertThat(paused.getPartitions()).containsExactly(0, 1);
            assertThat(paused.getTopic()).isEqualTo("watched");
            assertThat(events(ConsumerResumedEvent.class)).isEmpty();

            container.resume();
            template(context).send("watched", "after").join();
            await().atMost(WAIT).until(() -> SEEN.contains("record:after"));
            assertThat(events(ConsumerResumedEvent.class)).hasSize(1);
            assertThat(events(ConsumerPausedEvent.class)).hasSize(1);
            assertThat(SEEN.indexOf(events(ConsumerResumedEvent.class).get(0)))
                    .isLessThan(SEEN.indexOf("record:after"));
        });
    }

    @Test
    void aStopIsPublishedAsANormalStopOfEachMember() {
        runner.withBean(Listening.class).withPropertyValues("kafko.listener.concurrency=2").run(context -> {
            await().atMost(WAIT).until(() -> events(ConsumerStartedEvent.class).size() == 2);
            registry(context).getListenerContainer("listening").stop();
            List<ConsumerStoppedEvent> stopped = events(ConsumerStoppedEvent.class);
            assertThat(stopped).hasSize(2).allSatisfy(e -> {
                assertThat(e.getReason()).isEqualTo(ConsumerStoppedEvent.Reason.NORMAL);
                assertThat(e.getListenerId()).isEqualTo("listening");
            });
            assertThat(stopped).extracting(e -> e.getSource(KafkoMessageListenerContainer.class).memberName())
                    .containsExactlyInAnyOrder("listening-0", "listening-1");
            assertThatThrownBy(() -> stopped.get(0).getContainer(String.class))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(ConcurrentMessageListenerContainer.class.getName())
                    .hasMessageContaining("not a java.lang.String");
        });
    }

    @Test
    void aMemberKilledByAnErrorIsPublishedAsStoppedByAnError() {
        runner.withBean(Dying.class).run(context -> {
            template(context).send("fatal", "x").join();
            await().atMost(WAIT).until(() -> !events(ConsumerStoppedEvent.class).isEmpty());
            assertThat(events(ConsumerStoppedEvent.class).get(0).getReason())
                    .isEqualTo(ConsumerStoppedEvent.Reason.ERROR);
        });
    }

    @Test
    void anEventListenerThatThrowsDoesNotStopTheMember() {
        THROW_IN_EVENT_LISTENER.set(true);
        runner.withBean(Listening.class).withPropertyValues("kafko.listener.idle-event-interval=50ms",
                "kafko.listener.poll-timeout=20ms").run(context -> {
            await().atMost(WAIT).until(() -> events(ListenerContainerIdleEvent.class).size() >= 2);
            template(context).send("watched", "still").join();
            await().atMost(WAIT).until(() -> SEEN.contains("record:still"));
            assertThat(registry(context).getListenerContainer("listening").isRunning()).isTrue();
        });
    }

    @Test
    void onIdleContainerGetsThePositionsAndItsSeeksAreMadeBeforeTheNextPoll() {
        runner.withBean(Replaying.class).withPropertyValues("kafko.listener.idle-event-interval=200ms",
                "kafko.listener.poll-timeout=50ms").run(context -> {
            for (String v : List.of("r0", "r1", "r2")) {
                template(context).send("replayed", v).join();
            }
            await().atMost(WAIT).until(() -> SEEN.stream().filter("record:r2"::equals).count() == 2);
            assertThat(SEEN.stream().filter(String.class::isInstance).toList())
                    .containsExactly("record:r0", "record:r1", "record:r2", "record:r0", "record:r1", "record:r2");
            assertThat(Replaying.POSITIONS.get(0)).isEqualTo(Map.of(0, 3L));
            // the replay's position was committed: the group is at the end again once the records came again
            await().atMost(WAIT).until(() -> context.getBean(Kafko.class)
                    .groupInfo("replayed", "replaying").committed().getOrDefault(0, -1L) == 3L);
        });
    }

    @Test
    void anErrorThrownByAnApplicationListenerOfTheStopStillLetsTheMemberEnd() {
        runner.withBean(Listening.class).withBean(FailingOnStop.class)
                .withPropertyValues("kafko.listener.shutdown-timeout=10s").run(context -> {
            await().atMost(WAIT).until(() -> !events(ConsumerStartedEvent.class).isEmpty());
            MessageListenerContainer container = registry(context).getListenerContainer("listening");
            long start = System.nanoTime();
            container.stop();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("not the shutdown timeout")
                    .isLessThan(Duration.ofSeconds(5));
            assertThat(container.isRunning()).isFalse();
            container.start();
            await().atMost(WAIT).until(() -> events(ConsumerStartedEvent.class).size() == 2);
        });
    }

    @Test
    void theStoppedEventOfAMemberThatDiedShowsItDeadAndAStartFromItStartsItAgain() {
        RestartOnDeath.STATE.clear();
        Dying.ONCE.set(true);
        runner.withBean(Dying.class).withBean(RestartOnDeath.class).run(context -> {
            template(context).send("fatal", "x").join();
            await().atMost(WAIT).until(() -> events(ConsumerStartedEvent.class).size() == 2);
            assertThat(RestartOnDeath.STATE).containsExactly("running=false dead=true failure=OutOfMemoryError");
            template(context).send("fatal", "y").join();
            await().atMost(WAIT).until(() -> SEEN.contains("record:y"));
        });
    }

    @Test
    void aDeserializedEventKnowsNeitherItsSourceNorItsContainerAndSaysSo() throws Exception {
        ConsumerStoppedEvent event = new ConsumerStoppedEvent("member", "container", "id",
                ConsumerStoppedEvent.Reason.NORMAL);
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
            out.writeObject(event);
        }
        ConsumerStoppedEvent copy;
        try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(
                new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
            copy = (ConsumerStoppedEvent) in.readObject();
        }
        assertThat(copy.getReason()).isEqualTo(ConsumerStoppedEvent.Reason.NORMAL);
        assertThat(copy.getListenerId()).isEqualTo("id");
        assertThatThrownBy(() -> copy.getContainer(String.class)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not known");
    }

    @Test
    void anIntervalThatIsNotPositiveIsRefused() {
        runner.withPropertyValues("kafko.listener.idle-event-interval=0s").run(context -> assertThat(context)
                .getFailure().hasStackTraceContaining("kafko.listener.idle-event-interval must be positive, was PT0S"));
        assertThatThrownBy(() -> ContainerProperties.DEFAULTS.withIdleEventInterval(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("idleEventInterval must be positive");
        assertThat(ContainerProperties.DEFAULTS.withIdleEventInterval(Duration.ofSeconds(1))
                .withAckMode(AckMode.RECORD).idleEventInterval()).isEqualTo(Duration.ofSeconds(1));
        runner.withPropertyValues("kafko.listener.idle-partition-event-interval=-1s").run(context -> assertThat(context)
                .getFailure().hasStackTraceContaining("kafko.listener.idle-partition-event-interval must be positive"));
        assertThatThrownBy(() -> ContainerProperties.DEFAULTS.withIdlePartitionEventInterval(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("idlePartitionEventInterval must be positive");
        assertThat(ContainerProperties.DEFAULTS.withIdlePartitionEventInterval(Duration.ofSeconds(2))
                .withIdleEventInterval(Duration.ofSeconds(1)).withAckMode(AckMode.RECORD).idlePartitionEventInterval())
                .isEqualTo(Duration.ofSeconds(2));
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    private static List<ListenerContainerPartitionIdleEvent> idleOfPartition0() {
        return events(ListenerContainerPartitionIdleEvent.class).stream().filter(e -> e.getPartition() == 0).toList();
    }

    private static KafkoListenerEndpointRegistry registry(ApplicationContext context) {
        return context.getBean(KafkoListenerEndpointRegistry.class);
    }

    private static <T> List<T> events(Class<T> type) {
        return SEEN.stream().filter(type::isInstance).map(type::cast).toList();
    }

    static class Events {
        @EventListener
        void on(KafkoEvent event) {
            SEEN.add(event);
            if (THROW_IN_EVENT_LISTENER.get()) {
                throw new IllegalStateException("an application listener that fails");
            }
        }
    }

    static class Listening {
        @KafkoListener(id = "listening", topics = "watched")
        void on(String value) {
            SEEN.add("record:" + value);
        }
    }

    static class Dying {
        /** Whether only the first record kills the member; otherwise every record does. */
        static final AtomicBoolean ONCE = new AtomicBoolean();
        private final AtomicBoolean died = new AtomicBoolean();

        @KafkoListener(id = "dying", topics = "fatal")
        void on(String value) {
            if (!ONCE.get() || died.compareAndSet(false, true)) {
                throw new OutOfMemoryError("simulated");
            }
            SEEN.add("record:" + value);
        }
    }

    /** A plain listener (an {@code @EventListener} method would wrap an Error) whose assertion fails at the stop. */
    static class FailingOnStop implements ApplicationListener<ConsumerStoppedEvent> {
        @Override
        public void onApplicationEvent(ConsumerStoppedEvent event) {
            throw new AssertionError("an assertion of a test's event listener");
        }
    }

    /** Starts a member that died again from its stopped event, as spring-kafka documents. */
    static class RestartOnDeath implements ApplicationListener<ConsumerStoppedEvent> {
        static final List<String> STATE = new CopyOnWriteArrayList<>();

        @Override
        public void onApplicationEvent(ConsumerStoppedEvent event) {
            if (event.getReason() == ConsumerStoppedEvent.Reason.NORMAL) {
                return;
            }
            ConcurrentMessageListenerContainer c = event.getContainer(ConcurrentMessageListenerContainer.class);
            STATE.add("running=" + c.isRunning() + " dead=" + c.hasDeadMember() + " failure="
                    + (c.getFailure() == null ? null : c.getFailure().getClass().getSimpleName()));
            event.getSource(MessageListenerContainer.class).start();
        }
    }

    static class Replaying implements ConsumerSeekAware {
        static final List<Map<Integer, Long>> POSITIONS = new CopyOnWriteArrayList<>();
        private final AtomicBoolean replayed = new AtomicBoolean();

        @KafkoListener(id = "replaying", topics = "replayed")
        void on(String value) {
            SEEN.add("record:" + value);
        }

        @Override
        public void onIdleContainer(Map<Integer, Long> assignments, ConsumerSeekCallback callback) {
            if (assignments.getOrDefault(0, 0L) == 3L && replayed.compareAndSet(false, true)) {
                POSITIONS.add(assignments);
                callback.seekToBeginning("replayed", assignments.keySet());
            }
        }
    }
}
