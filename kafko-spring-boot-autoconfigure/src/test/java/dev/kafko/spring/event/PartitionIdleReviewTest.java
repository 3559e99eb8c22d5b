package dev.kafko.spring.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.listener.ConsumerSeekAware;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.event.EventListener;

/**
 * Partition idle events ({@code kafko.listener.idle-partition-event-interval}): on time from a member's first
 * assignment whatever the poll timeout, and, as in spring-kafka, a {@link ConsumerSeekAware} listener's
 * {@code onIdleContainer} is called with the idle partition.
 */
class PartitionIdleReviewTest {

    private static final Duration WAIT = Duration.ofSeconds(15);
    /** Each event published, with when it was (System.nanoTime()). */
    static final List<Object[]> SEEN = new CopyOnWriteArrayList<>();
    static final List<Map<Integer, Long>> IDLE_CALLS = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Events.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.quiet.partitions=2");

    @BeforeEach
    void reset() {
        SEEN.clear();
        IDLE_CALLS.clear();
    }

    @Test
    void theFirstPartitionIdleEventsComeAfterOneIntervalWhateverThePollTimeout() {
        runner.withBean(Quiet.class).withPropertyValues("kafko.listener.idle-partition-event-interval=200ms",
                "kafko.listener.poll-timeout=8s").run(context -> {
            await().atMost(WAIT).until(() -> !events(ListenerContainerPartitionIdleEvent.class).isEmpty());
            long started = (long) SEEN.stream().filter(e -> e[0] instanceof ConsumerStartedEvent).findFirst()
                    .orElseThrow()[1];
            Object[] first = SEEN.stream().filter(e -> e[0] instanceof ListenerContainerPartitionIdleEvent)
                    .findFirst().orElseThrow();
            long afterStartMillis = (((long) first[1]) - started) / 1_000_000;
            assertThat(afterStartMillis).as("the first partition idle event, ms after the member started (the"
                    + " interval is 200 ms, the poll timeout 8 s)").isLessThan(3_000);
            assertThat(((ListenerContainerPartitionIdleEvent) first[0]).getIdleTime()).isLessThan(3_000);
        });
    }

    @Test
    void aSeekAwareListenerIsToldOfEachIdlePartitionAsInSpringKafka() {
        runner.withBean(SeekAwareQuiet.class).withPropertyValues("kafko.listener.idle-partition-event-interval=200ms",
                "kafko.listener.poll-timeout=100ms").run(context -> {
            template(context).send("quiet", 1, null, "one").join();
            await().atMost(WAIT).until(() -> events(ListenerContainerPartitionIdleEvent.class).size() >= 2);
            // spring-kafka: checkIdlePartition -> seekPartitions(singletonList(tp), true) -> onIdleContainer
            await().atMost(Duration.ofSeconds(10)).until(() -> !IDLE_CALLS.isEmpty());
            assertThat(IDLE_CALLS).allSatisfy(m -> assertThat(m).hasSize(1));
            assertThat(IDLE_CALLS).anySatisfy(m -> assertThat(m).containsEntry(0, 0L));
        });
    }

    @Test
    void aPartitionMovedToAnotherMemberAndBackHasItsIdleEventsFromItsOwnerOnly() {
        runner.withBean(TwoInOneGroup.class).withPropertyValues("kafko.listener.idle-partition-event-interval=150ms",
                "kafko.listener.poll-timeout=5s").run(context -> {
            var registry = context.getBean(KafkoListenerEndpointRegistry.class);
            registry.getListenerContainer("first").start();
            await().atMost(WAIT).until(() -> partitionsIdleOf("first").containsAll(List.of(0, 1)));
            registry.getListenerContainer("second").start();
            await().atMost(WAIT).until(() -> !partitionsIdleOf("second").isEmpty());
            // the rebalance settled once each member reads one partition (a member takes in what it reads before it
            // publishes the idle events of that poll); from then on, two idle events of each, not a fixed window
            await().atMost(WAIT).until(() -> assignedCount(registry, "first") == 1
                    && assignedCount(registry, "second") == 1);
            SEEN.clear();
            await().atMost(WAIT).until(() -> idleEventsOf("first") >= 2 && idleEventsOf("second") >= 2);
            List<Integer> ofFirst = partitionsIdleOf("first");
            List<Integer> ofSecond = partitionsIdleOf("second");
            assertThat(ofFirst).as("first's").isNotEmpty().doesNotContainAnyElementsOf(ofSecond);
            assertThat(ofSecond).as("second's").isNotEmpty();
            registry.getListenerContainer("second").stop();
            SEEN.clear();
            await().atMost(WAIT).until(() -> partitionsIdleOf("first").containsAll(List.of(0, 1)));
            assertThat(partitionsIdleOf("second")).isEmpty();
        });
    }

    private static int assignedCount(KafkoListenerEndpointRegistry registry, String id) {
        return registry.getListenerContainer(id).getAssignedPartitions().values().stream().mapToInt(Set::size).sum();
    }

    private static long idleEventsOf(String listenerId) {
        return SEEN.stream().map(e -> e[0]).filter(ListenerContainerPartitionIdleEvent.class::isInstance)
                .map(ListenerContainerPartitionIdleEvent.class::cast)
                .filter(e -> e.getContainer(ConcurrentMessageListenerContainer.class).getListenerId().equals(listenerId))
                .count();
    }

    private static List<Integer> partitionsIdleOf(String listenerId) {
        return SEEN.stream().map(e -> e[0]).filter(ListenerContainerPartitionIdleEvent.class::isInstance)
                .map(ListenerContainerPartitionIdleEvent.class::cast)
                .filter(e -> e.getContainer(ConcurrentMessageListenerContainer.class).getListenerId().equals(listenerId))
                .map(ListenerContainerPartitionIdleEvent::getPartition).distinct().toList();
    }

    static class TwoInOneGroup {
        @KafkoListener(id = "first", groupId = "shared", topics = "quiet", autoStartup = "false")
        void first(String value) {
        }

        @KafkoListener(id = "second", groupId = "shared", topics = "quiet", autoStartup = "false")
        void second(String value) {
        }
    }

    private static List<Object> events(Class<?> type) {
        return SEEN.stream().map(e -> e[0]).filter(type::isInstance).toList();
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static class Events {
        @EventListener
        void on(KafkoEvent event) {
            SEEN.add(new Object[] {event, System.nanoTime()});
        }
    }

    static class Quiet {
        @KafkoListener(id = "quiet", topics = "quiet")
        void on(String value) {
        }
    }

    static class SeekAwareQuiet implements ConsumerSeekAware {
        @KafkoListener(id = "quiet-aware", topics = "quiet")
        void on(String value) {
        }

        @Override
        public void onIdleContainer(Map<Integer, Long> assignments, ConsumerSeekCallback callback) {
            IDLE_CALLS.add(Map.copyOf(assignments));
        }
    }
}
