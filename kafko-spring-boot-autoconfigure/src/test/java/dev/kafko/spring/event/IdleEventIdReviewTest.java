package dev.kafko.spring.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.annotation.BackOff;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.annotation.RetryableTopic;
import dev.kafko.spring.annotation.TopicPartition;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.listener.KafkoMessageListenerContainer;
import dev.kafko.spring.listener.MessageListenerContainer;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.event.EventListener;

/**
 * The ids the idle events carry, {@code <id>-<n>}, for each shape of listener: the n of a listener are unique across
 * its topics (kafko runs {@code concurrency} members per topic), each is the number of the member's thread, a
 * restart keeps them, and a {@code @RetryableTopic} listener's retry and dead-letter containers name theirs after
 * their own ids, as spring-kafka's children of those containers are named.
 */
class IdleEventIdReviewTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** Each id heard, with the topic and thread name of the member that published it. */
    static final Map<String, String> HEARD = new ConcurrentHashMap<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.usage.partitions=2",
                    "kafko.topics.billing.partitions=2", "kafko.listener.idle-event-interval=100ms",
                    "kafko.listener.idle-partition-event-interval=100ms")
            .withBean(Heard.class);

    @BeforeEach
    void reset() {
        HEARD.clear();
    }

    @Test
    void aListenerOfTwoTopicsNamesItsFourMembersOnceEachAfterTheirThreads() {
        runner.withBean(TwoTopics.class).run(context -> {
            await().atMost(WAIT).until(() -> HEARD.keySet().containsAll(Set.of("meter-0", "meter-1", "meter-2",
                    "meter-3")));
            assertThat(HEARD).containsOnlyKeys("meter-0", "meter-1", "meter-2", "meter-3")
                    .containsEntry("meter-0", "usage meter-0").containsEntry("meter-1", "usage meter-1")
                    .containsEntry("meter-2", "billing meter-2").containsEntry("meter-3", "billing meter-3");
        });
    }

    @Test
    void aRestartKeepsTheIds() {
        runner.withBean(TwoTopics.class).run(context -> {
            await().atMost(WAIT).until(() -> HEARD.size() == 4);
            MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("meter");
            container.stop();
            HEARD.clear();
            container.start();
            await().atMost(WAIT).until(() -> HEARD.size() == 4);
            assertThat(new TreeSet<>(HEARD.keySet())).containsExactly("meter-0", "meter-1", "meter-2", "meter-3");
        });
    }

    @Test
    void assignedPartitionsAPrefixAndRetryContainersEachNameTheirMembersAfterTheirOwnIds() {
        runner.withBean(ByHand.class).withBean(Retried.class).run(context -> {
            await().atMost(WAIT).until(() -> HEARD.keySet().containsAll(Set.of("assigned-0", "assigned-1",
                    "retried-0", "retried-retry-0", "retried-dlt-0")));
            assertThat(HEARD).containsEntry("assigned-1", "billing assigned-1")
                    .containsEntry("retried-0", "usage client-0")
                    .containsEntry("retried-retry-0", "usage-retry client-retry-0")
                    .containsEntry("retried-dlt-0", "usage-dlt client-dlt-0");
        });
    }

    static class TwoTopics {
        @KafkoListener(id = "meter", topics = {"usage", "billing"}, concurrency = "2")
        void on(String usage) {
        }
    }

    static class ByHand {
        @KafkoListener(id = "assigned", topicPartitions = @TopicPartition(topic = "billing", partitions = {"0", "1"}),
                concurrency = "2", groupId = "by-hand")
        void on(String usage) {
        }
    }

    static class Retried {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 3_600_000))
        @KafkoListener(id = "retried", topics = "usage", clientIdPrefix = "client", groupId = "retried")
        void on(String usage) {
        }
    }

    static class Heard {
        @EventListener
        void on(ListenerContainerIdleEvent event) {
            KafkoMessageListenerContainer member = event.getSource(KafkoMessageListenerContainer.class);
            HEARD.put(event.getListenerId(), event.getTopic() + " " + member.memberName());
        }

        @EventListener
        void on(ListenerContainerPartitionIdleEvent event) {
            KafkoMessageListenerContainer member = event.getSource(KafkoMessageListenerContainer.class);
            HEARD.put(event.getListenerId(), event.getTopic() + " " + member.memberName());
        }
    }
}
