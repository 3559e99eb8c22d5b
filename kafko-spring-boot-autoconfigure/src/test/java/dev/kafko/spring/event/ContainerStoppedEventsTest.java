package dev.kafko.spring.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.listener.KafkoMessageListenerContainer;
import dev.kafko.spring.listener.MessageListenerContainer;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;

/** {@link ContainerStoppedEvent} per member, then one {@link ConcurrentContainerStoppedEvent} once all stopped. */
class ContainerStoppedEventsTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    static final List<KafkoEvent> EVENTS = new CopyOnWriteArrayList<>();
    static volatile String dieOn = "";
    static volatile boolean restartWhenAllStopped;
    static volatile boolean restartOnDeath;
    static final AtomicBoolean DIED = new AtomicBoolean();
    /** For each ConcurrentContainerStoppedEvent, whether its container ran when it was published. */
    static final List<Boolean> ALL_STOPPED_WHILE_RUNNING = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Listeners.class).withBean(Recorder.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.three.partitions=3");

    @BeforeEach
    void reset() {
        EVENTS.clear();
        dieOn = "";
        restartWhenAllStopped = false;
        restartOnDeath = false;
        DIED.set(false);
        ALL_STOPPED_WHILE_RUNNING.clear();
    }

    @Test
    void eachMemberTellsItStoppedAndTheLastOneThatTheContainerDidOncePerStop() {
        runner.run(context -> {
            MessageListenerContainer container = registry(context).getListenerContainer("three");
            KafkoTestUtils.waitForAssignment(container, 3, WAIT);
            container.stop();
            assertThat(container.isRunning()).isFalse();
            await().atMost(WAIT).until(() -> count(ConcurrentContainerStoppedEvent.class, "three") == 1);
            List<KafkoEvent> events = ofListener("three");
            assertThat(events).filteredOn(ContainerStoppedEvent.class::isInstance).hasSize(3)
                    .allSatisfy(e -> {
                        assertThat(e.getSource()).isInstanceOf(KafkoMessageListenerContainer.class);
                        assertThat(e.getContainer(ConcurrentMessageListenerContainer.class)).isSameAs(container);
                    });
            assertThat(events).filteredOn(ContainerStoppedEvent.class::isInstance)
                    .extracting(KafkoEvent::getSource).doesNotHaveDuplicates();
            KafkoEvent last = events.get(events.size() - 1);
            assertThat(last).as("after every member's events").isInstanceOf(ConcurrentContainerStoppedEvent.class);
            assertThat(((ConcurrentContainerStoppedEvent) last).getReason()).isEqualTo(ConsumerStoppedEvent.Reason.NORMAL);
            assertThat(last.getSource()).isSameAs(container);
            assertThat(last.getContainer(MessageListenerContainer.class)).isSameAs(container);
            // each ContainerStoppedEvent follows its member's ConsumerStoppedEvent
            for (int i = 0; i < events.size(); i++) {
                if (events.get(i) instanceof ContainerStoppedEvent stopped) {
                    Object member = stopped.getSource();
                    assertThat(events.subList(0, i)).anySatisfy(e -> {
                        assertThat(e).isInstanceOf(ConsumerStoppedEvent.class);
                        assertThat(e.getSource()).isSameAs(member);
                    });
                }
            }

            container.start();
            KafkoTestUtils.waitForAssignment(container, 3, WAIT);
            assertThat(count(ConcurrentContainerStoppedEvent.class, "three")).isEqualTo(1);
            container.stop();
            await().atMost(WAIT).until(() -> count(ConcurrentContainerStoppedEvent.class, "three") == 2);
            assertThat(count(ContainerStoppedEvent.class, "three")).isEqualTo(6);
        });
    }

    @Test
    void aMemberThatDiedGivesTheReasonWhenTheLastOneStops() {
        dieOn = "kill";
        runner.run(context -> {
            MessageListenerContainer container = registry(context).getListenerContainer("three");
            KafkoTestUtils.waitForAssignment(container, 3, WAIT);
            template(context).send("three", 1, null, "kill").join();
            await().atMost(WAIT).until(() -> count(ConsumerStoppedEvent.class, "three") == 1);
            assertThat(count(ContainerStoppedEvent.class, "three")).isEqualTo(1);
            assertThat(count(ConcurrentContainerStoppedEvent.class, "three")).as("two members still run").isZero();
            container.stop();
            await().atMost(WAIT).until(() -> count(ConcurrentContainerStoppedEvent.class, "three") == 1);
            ConcurrentContainerStoppedEvent all = (ConcurrentContainerStoppedEvent) ofListener("three").stream()
                    .filter(ConcurrentContainerStoppedEvent.class::isInstance).findFirst().orElseThrow();
            assertThat(all.getReason()).isEqualTo(ConsumerStoppedEvent.Reason.ERROR);

            // the next run's reason starts afresh
            dieOn = "";
            container.start();
            KafkoTestUtils.waitForAssignment(container, 3, WAIT);
            container.stop();
            await().atMost(WAIT).until(() -> count(ConcurrentContainerStoppedEvent.class, "three") == 2);
            assertThat(ofListener("three")).filteredOn(ConcurrentContainerStoppedEvent.class::isInstance)
                    .extracting(e -> ((ConcurrentContainerStoppedEvent) e).getReason())
                    .containsExactly(ConsumerStoppedEvent.Reason.ERROR, ConsumerStoppedEvent.Reason.NORMAL);
        });
    }

    /**
     * A supervisor restarts the container from the ConsumerStoppedEvent of its only member, which died: the container
     * never stopped as a whole, so no ConcurrentContainerStoppedEvent (one was published while it ran again).
     */
    @Test
    void aMemberRestartedFromItsStoppedEventLeavesTheContainerRunningWithoutAnAllStoppedEvent() {
        restartOnDeath = true;
        runner.withPropertyValues("kafko.topics.one.partitions=1").withBean(Single.class).run(context -> {
            MessageListenerContainer container = registry(context).getListenerContainer("single");
            KafkoTestUtils.waitForAssignment(container, 1, WAIT);
            template(context).send("one", "kill").join();
            await().atMost(WAIT).until(() -> count(ConsumerStoppedEvent.class, "single") == 1);
            await().atMost(WAIT).until(container::isRunning);
            template(context).send("one", "after").join();
            await().atMost(WAIT).until(() -> Single.received.contains("after"));
            assertThat(count(ConcurrentContainerStoppedEvent.class, "single")).isZero();
            restartOnDeath = false;
            container.stop();
            await().atMost(WAIT).until(() -> count(ConcurrentContainerStoppedEvent.class, "single") == 1);
            assertThat(ALL_STOPPED_WHILE_RUNNING).containsExactly(false);
        });
    }

    @Test
    void aContainerStartedFromTheEventRunsAgain() {
        restartWhenAllStopped = true;
        runner.run(context -> {
            MessageListenerContainer container = registry(context).getListenerContainer("three");
            KafkoTestUtils.waitForAssignment(container, 3, WAIT);
            long start = System.nanoTime();
            container.stop();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the stop waits for the run it ended, not"
                    + " for the one the event started (shutdown timeout 10 s)").isLessThan(Duration.ofSeconds(5));
            assertThat(count(ConcurrentContainerStoppedEvent.class, "three")).isEqualTo(1);
            await().atMost(WAIT).until(container::isRunning);
            restartWhenAllStopped = false;
            template(context).send("three", 0, null, "after").join();
            await().atMost(WAIT).until(() -> Listeners.received.contains("after"));
        });
    }

    private static long count(Class<? extends KafkoEvent> type, String listenerId) {
        return ofListener(listenerId).stream().filter(type::isInstance).count();
    }

    private static List<KafkoEvent> ofListener(String listenerId) {
        return EVENTS.stream().filter(e -> e.getListenerId().equals(listenerId)).toList();
    }

    private static KafkoListenerEndpointRegistry registry(ApplicationContext context) {
        return context.getBean(KafkoListenerEndpointRegistry.class);
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static class Listeners {
        static final List<String> received = new CopyOnWriteArrayList<>();

        @KafkoListener(id = "three", topics = "three", concurrency = "3")
        void on(String value) {
            if (value.equals(dieOn) && DIED.compareAndSet(false, true)) {
                throw new OutOfMemoryError("simulated"); // once: the member that takes the partition over lives
            }
            received.add(value);
        }
    }

    static class Single {
        static final List<String> received = new CopyOnWriteArrayList<>();

        @KafkoListener(id = "single", topics = "one")
        void on(String value) {
            if (value.equals("kill") && DIED.compareAndSet(false, true)) {
                throw new OutOfMemoryError("simulated");
            }
            received.add(value);
        }
    }

    static class Recorder implements ApplicationListener<KafkoEvent> {
        @Override
        public void onApplicationEvent(KafkoEvent event) {
            if (event instanceof ConsumerStoppedEvent || event instanceof ContainerStoppedEvent
                    || event instanceof ConcurrentContainerStoppedEvent) {
                EVENTS.add(event);
            }
            if (event instanceof ConsumerStoppedEvent stopped && restartOnDeath
                    && stopped.getReason() != ConsumerStoppedEvent.Reason.NORMAL) {
                stopped.getContainer(MessageListenerContainer.class).start(); // a supervisor
            }
            if (event instanceof ConcurrentContainerStoppedEvent all) {
                ALL_STOPPED_WHILE_RUNNING.add(all.getContainer(MessageListenerContainer.class).isRunning());
            }
            if (event instanceof ConcurrentContainerStoppedEvent all && restartWhenAllStopped) {
                all.getContainer(MessageListenerContainer.class).start();
            }
        }
    }
}
