package dev.kafko.spring.listener;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Consumer;
import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.annotation.TopicPartition;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.event.ConsumerPartitionPausedEvent;
import dev.kafko.spring.event.ConsumerPartitionResumedEvent;
import dev.kafko.spring.event.ListenerContainerPartitionIdleEvent;
import dev.kafko.spring.support.KafkoHeaders;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.event.EventListener;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.util.backoff.FixedBackOff;

/**
 * {@link MessageListenerContainer#pausePartition}: one partition of a listener stops being delivered while the others
 * go on, as spring-kafka's {@code pausePartition} and Kafka's consumer {@code pause} do.
 */
class PartitionPauseTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** "partition:value" of every record delivered, and the partition events ("paused:p", "resumed:p"). */
    static final List<String> SEEN = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Events.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.pp.partitions=2");

    @BeforeEach
    void reset() {
        SEEN.clear();
    }

    static class Events {
        @EventListener
        void paused(ConsumerPartitionPausedEvent e) {
            SEEN.add("paused:" + e.getTopic() + "-" + e.getPartition());
        }

        @EventListener
        void resumed(ConsumerPartitionResumedEvent e) {
            SEEN.add("resumed:" + e.getTopic() + "-" + e.getPartition());
        }
    }

    static class Listening {
        @KafkoListener(id = "pp", topics = "pp", concurrency = "${pp.concurrency:1}")
        void on(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition) {
            SEEN.add(partition + ":" + value);
        }
    }

    @Test
    void aPausedPartitionWaitsWhileTheOthersAreDeliveredAndComesWhenResumed() {
        runner.withBean(Listening.class).run(context -> {
            MessageListenerContainer container = container(context, "pp");
            await().atMost(WAIT).until(() -> !container.getAssignedPartitions().isEmpty());
            container.pausePartition("pp", 0);
            assertThat(container.isPartitionPauseRequested("pp", 0)).isTrue();
            assertThat(container.isPartitionPauseRequested("pp", 1)).isFalse();
            await().atMost(WAIT).until(() -> container.isPartitionPaused("pp", 0));
            assertThat(container.isPartitionPaused("pp", 1)).isFalse();
            assertThat(container.isPaused()).isFalse();
            assertThat(SEEN).containsExactly("paused:pp-0");

            template(context).send("pp", 0, null, "held").join();
            template(context).send("pp", 1, null, "passes").join();
            await().atMost(WAIT).until(() -> SEEN.contains("1:passes"));
            assertThat(SEEN).doesNotContain("0:held");

            container.resumePartition("pp", 0);
            assertThat(container.isPartitionPauseRequested("pp", 0)).isFalse();
            await().atMost(WAIT).until(() -> SEEN.contains("0:held"));
            assertThat(SEEN).containsExactly("paused:pp-0", "1:passes", "resumed:pp-0", "0:held");
            assertThat(container.isPartitionPaused("pp", 0)).isFalse();
        });
    }

    @Test
    void aPausedPartitionHandedToAnotherMemberAndBackIsPausedAgain() {
        runner.withBean(Listening.class).run(context -> {
            MessageListenerContainer container = container(context, "pp");
            await().atMost(WAIT)
                    .until(() -> container.getAssignedPartitions().getOrDefault("pp", Set.of()).size() == 2);
            container.pausePartition("pp", 1);
            await().atMost(WAIT).until(() -> container.isPartitionPaused("pp", 1));

            // a member joining the group takes partition 1 (range assignment in join order), and leaving gives it back
            try (Consumer joiner = context.getBean(Kafko.class).groupConsumer("pp", container.getGroupId())) {
                await().atMost(WAIT).until(() -> {
                    joiner.poll(Duration.ofMillis(100));
                    return joiner.assignment().contains(1);
                });
                await().atMost(WAIT).until(() -> !container.isPartitionPaused("pp", 1));
            }
            await().atMost(WAIT).until(() -> container.getAssignedPartitions().get("pp").size() == 2);
            template(context).send("pp", 1, null, "held").join();
            template(context).send("pp", 0, null, "passes").join();
            await().atMost(WAIT).until(() -> SEEN.contains("0:passes"));
            template(context).send("pp", 0, null, "passes again").join();
            await().atMost(WAIT).until(() -> SEEN.contains("0:passes again"));
            assertThat(SEEN).doesNotContain("1:held");
            assertThat(container.isPartitionPaused("pp", 1)).isTrue();

            container.resumePartition("pp", 1);
            await().atMost(WAIT).until(() -> SEEN.contains("1:held"));
        });
    }

    @Test
    void onlyTheMemberThatReadsThePartitionPausesItAndThePauseOutlivesAStopAndAStart() {
        runner.withBean(Listening.class).withPropertyValues("pp.concurrency=2").run(context -> {
            MessageListenerContainer container = container(context, "pp");
            await().atMost(WAIT).until(() -> container.getAssignedPartitions().getOrDefault("pp", java.util.Set.of())
                    .size() == 2);
            container.pausePartition("pp", 1);
            container.pausePartition("pp", 1); // again: one request, one event
            await().atMost(WAIT).until(() -> container.isPartitionPaused("pp", 1));
            assertThat(SEEN).containsExactly("paused:pp-1");

            container.stop();
            assertThat(container.isPartitionPaused("pp", 1)).isFalse();
            assertThat(container.isPartitionPauseRequested("pp", 1)).isTrue();
            template(context).send("pp", 1, null, "held").join();
            template(context).send("pp", 0, null, "passes").join();
            container.start();
            await().atMost(WAIT).until(() -> SEEN.contains("0:passes"));
            await().atMost(WAIT).until(() -> container.isPartitionPaused("pp", 1));
            assertThat(SEEN).doesNotContain("1:held").containsSubsequence("paused:pp-1", "paused:pp-1");

            container.resumePartition("pp", 1);
            await().atMost(WAIT).until(() -> SEEN.contains("1:held"));
        });
    }

    @Test
    void aPausedContainerReportsEachPartitionItsMembersReadAsPausedAsSpringKafkaDoes() {
        runner.withBean(Listening.class).run(context -> {
            MessageListenerContainer container = container(context, "pp");
            await().atMost(WAIT).until(() -> container.getAssignedPartitions().getOrDefault("pp", java.util.Set.of())
                    .size() == 2);
            container.pause();
            await().atMost(WAIT).until(container::isPaused);
            assertThat(container.isPartitionPaused("pp", 0)).isTrue();
            assertThat(container.isPartitionPaused("pp", 1)).isTrue();
            assertThat(container.isPartitionPauseRequested("pp", 0)).isFalse();
            container.resume();
            await().atMost(WAIT).until(() -> !container.isPaused());
            assertThat(container.isPartitionPaused("pp", 0)).isFalse();
        });
    }

    @Test
    void aPartitionOfAnotherTopicOrBeyondTheTopicIsNeverPaused() {
        runner.withBean(Listening.class).run(context -> {
            MessageListenerContainer container = container(context, "pp");
            await().atMost(WAIT).until(() -> !container.getAssignedPartitions().isEmpty());
            container.pausePartition("other", 0);
            container.pausePartition("pp", 7);
            template(context).send("pp", 0, null, "a").join();
            await().atMost(WAIT).until(() -> SEEN.contains("0:a"));
            assertThat(container.isPartitionPaused("other", 0)).isFalse();
            assertThat(container.isPartitionPaused("pp", 7)).isFalse();
            assertThat(SEEN).noneMatch(s -> s.startsWith("paused:"));
        });
    }

    static class ByHand {
        @KafkoListener(id = "byHand", topicPartitions = @TopicPartition(topic = "pp", partitions = {"0", "1"}))
        void on(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition) {
            SEEN.add(partition + ":" + value);
        }
    }

    @Test
    void aListenerOfPartitionsAssignedByHandStartsWithThePartitionPausedThatWasAskedBeforeItsStart() {
        runner.withBean(ByHand.class).withPropertyValues("kafko.listener.concurrency=1").run(context -> {
            MessageListenerContainer container = container(context, "byHand");
            container.stop();
            template(context).send("pp", 0, null, "held").join();
            template(context).send("pp", 1, null, "passes").join();
            container.pausePartition("pp", 0);
            container.start();
            await().atMost(WAIT).until(() -> SEEN.contains("1:passes"));
            assertThat(SEEN).doesNotContain("0:held");
            assertThat(container.isPartitionPaused("pp", 0)).isTrue();
            container.resumePartition("pp", 0);
            await().atMost(WAIT).until(() -> SEEN.contains("0:held"));
        });
    }

    static volatile CountDownLatch hold = new CountDownLatch(0);

    static class Holding {
        @KafkoListener(id = "holding", topics = "held")
        void on(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition) throws InterruptedException {
            SEEN.add(partition + ":" + value);
            hold.await();
        }
    }

    @Test
    void aPauseAskedForWhileTheTopicIsDeletedUnderTheMemberDoesNotKillIt() {
        runner.withBean(Holding.class).withPropertyValues("kafko.topics.held.partitions=2").run(context -> {
            MessageListenerContainer container = container(context, "holding");
            await().atMost(WAIT).until(() -> container.getAssignedPartitions().getOrDefault("held", Set.of())
                    .size() == 2);
            hold = new CountDownLatch(1);
            template(context).send("held", 0, null, "in hand").join();
            await().atMost(WAIT).until(() -> SEEN.contains("0:in hand"));
            context.getBean(Kafko.class).deleteTopic("held");
            // the member takes the request into effect after the record in hand, on the consumer of the deleted topic
            container.pausePartition("held", 1);
            hold.countDown();
            await().atMost(WAIT).until(() -> container.isPartitionPaused("held", 1));
            template(context).send("held", 0, null, "after").join();
            await().atMost(WAIT).until(() -> SEEN.contains("0:after"));
            assertThat(container.getFailure()).isNull();
            assertThat(((ConcurrentMessageListenerContainer) container).hasDeadMember()).isFalse();
        });
    }

    static final List<ListenerContainerPartitionIdleEvent> IDLE = new CopyOnWriteArrayList<>();

    static class IdleEvents {
        @EventListener
        void idle(ListenerContainerPartitionIdleEvent e) {
            IDLE.add(e);
        }
    }

    @Test
    void aPartitionIdleEventOfAPausedPartitionSaysItIsPausedAsInSpringKafka() {
        IDLE.clear();
        runner.withBean(Listening.class).withBean(IdleEvents.class)
                .withPropertyValues("kafko.listener.idle-partition-event-interval=100ms",
                        "kafko.listener.poll-timeout=100ms").run(context -> {
            MessageListenerContainer container = container(context, "pp");
            await().atMost(WAIT).until(() -> container.getAssignedPartitions().getOrDefault("pp", Set.of())
                    .size() == 2);
            container.pausePartition("pp", 0);
            await().atMost(WAIT).until(() -> container.isPartitionPaused("pp", 0));
            IDLE.clear();
            await().atMost(WAIT).until(() -> IDLE.stream().anyMatch(e -> e.getPartition() == 0)
                    && IDLE.stream().anyMatch(e -> e.getPartition() == 1));
            // spring-kafka: publishIdlePartitionEvent(..., isPartitionPauseRequested(topicPartition))
            assertThat(IDLE).filteredOn(e -> e.getPartition() == 0).allMatch(ListenerContainerPartitionIdleEvent::isPaused);
            assertThat(IDLE).filteredOn(e -> e.getPartition() == 1).noneMatch(ListenerContainerPartitionIdleEvent::isPaused);
        });
    }

    static class Failing {
        @KafkoListener(id = "failing", topics = "pp")
        void on(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition) {
            SEEN.add(partition + ":" + value);
            if (value.startsWith("bad")) {
                throw new IllegalStateException("refused " + value);
            }
        }
    }

    @Test
    void aPauseOfThePartitionOfARecordInItsRetriesEndsTheirBackOffAndHoldsItUntilTheResume() {
        // a back-off far longer than the test: without the pause the record would wait in it, then be recovered
        DefaultErrorHandler handler = new DefaultErrorHandler(new FixedBackOff(600_000, 2),
                (record, failure, invocation) -> SEEN.add("recovered:" + new String(record.value(), UTF_8)));
        runner.withBean(Failing.class).withBean(KafkoErrorHandler.class, () -> handler).run(context -> {
            MessageListenerContainer container = container(context, "failing");
            await().atMost(WAIT).until(() -> container.getAssignedPartitions().getOrDefault("pp", Set.of())
                    .size() == 2);
            template(context).send("pp", 0, null, "bad").join();
            await().atMost(WAIT).until(() -> SEEN.contains("0:bad")); // failed once: its back-off began
            container.pausePartition("pp", 0);
            await().atMost(WAIT).until(() -> container.isPartitionPaused("pp", 0));
            template(context).send("pp", 1, null, "passes").join();
            await().atMost(WAIT).until(() -> SEEN.contains("1:passes"));
            assertThat(SEEN).containsExactly("0:bad", "paused:pp-0", "1:passes");

            container.resumePartition("pp", 0);
            await().atMost(WAIT).until(() -> SEEN.stream().filter("0:bad"::equals).count() == 2);
            assertThat(SEEN).doesNotContain("recovered:bad");
        });
    }

    private static MessageListenerContainer container(ApplicationContext context, String id) {
        return context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer(id);
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }
}
