package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.MessageListenerContainer;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.handler.annotation.Header;

/**
 * A retry container's member that waits out a long back-off still takes part in its group: a member that joins
 * meanwhile gets its partitions within a poll timeout, not once the back-off ends.
 */
class RetryBackOffHandoverTest {

    static final List<String> SEEN = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.handed.partitions=2",
                    "kafko.listener.poll-timeout=200ms")
            .withBean(Waits.class).withBean(Joins.class);

    @BeforeEach
    void reset() {
        SEEN.clear();
    }

    static class Waits {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 600_000))
        @KafkoListener(id = "handed", topics = "handed")
        void on(String value) {
            throw new IllegalStateException("fails");
        }
    }

    static class Joins {
        // another member of the retry container's group, on its topic
        @KafkoListener(id = "joins", groupId = "handed", topics = "handed-retry", autoStartup = "false")
        void on(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition) {
            SEEN.add(partition + ":" + value);
        }
    }

    @Test
    void aMemberJoiningWhileTheRetryMemberWaitsOutItsBackOffGetsItsPartitionsAndRecords() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            template.send("handed", 0, null, "a").join();
            template.send("handed", 1, null, "b").join();
            KafkoTestUtils.records(context, "handed-retry", 2, Duration.ofSeconds(30));
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            MessageListenerContainer retry = registry.getListenerContainer("handed-retry");
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> retry.getAssignedPartitions().getOrDefault("handed-retry", Set.of()).size() == 2);

            // the retry member waits ten minutes for both records; the new member gets one partition, and its record
            MessageListenerContainer joins = registry.getListenerContainer("joins");
            joins.start();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> joins.getAssignedPartitions().getOrDefault("handed-retry", Set.of()).size() == 1);
            await().atMost(Duration.ofSeconds(30)).until(() -> SEEN.size() == 1);
            int taken = joins.getAssignedPartitions().get("handed-retry").iterator().next();
            assertThat(SEEN).containsExactly(taken + ":" + (taken == 0 ? "a" : "b"));
            assertThat(retry.getAssignedPartitions().get("handed-retry")).containsExactly(1 - taken);
        });
    }
}
