package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.event.ListenerContainerPartitionIdleEvent;
import dev.kafko.spring.event.ListenerContainerPartitionNoLongerIdleEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.event.EventListener;

/**
 * A retry container's member that holds a record back for its back-off publishes its idle events on time, whatever
 * the poll timeout, and the partition it holds back goes idle too: its polls no longer read it, as spring-kafka's
 * container that pauses such a partition.
 */
class RetryBackOffIdleEventsTest {

    static final List<String> HEARD = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.idled.partitions=2",
                    "kafko.listener.poll-timeout=30s", "kafko.listener.idle-partition-event-interval=200ms")
            .withBean(Fails.class).withBean(Heard.class);

    @BeforeEach
    void reset() {
        HEARD.clear();
    }

    static class Fails {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 600_000))
        @KafkoListener(id = "idled", topics = "idled")
        void on(String value) {
            throw new IllegalStateException("fails");
        }
    }

    static class Heard {
        @EventListener(condition = "event.listenerId.startsWith('idled-retry-')")
        void idle(ListenerContainerPartitionIdleEvent event) {
            HEARD.add("idle " + event.getPartition());
        }

        @EventListener(condition = "event.listenerId.startsWith('idled-retry-')")
        void noLongerIdle(ListenerContainerPartitionNoLongerIdleEvent event) {
            HEARD.add("no longer idle " + event.getPartition());
        }
    }

    @Test
    void bothPartitionsIdleEventsComeAtTheirIntervalWhileOneIsHeldForALongBackOff() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            await().atMost(Duration.ofSeconds(30)).until(() -> HEARD.contains("idle 0"));
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            template.send("idled", 0, null, "a").join();

            // the retry member polls the record, then holds its partition back for ten minutes; partition 1 stays idle
            await().atMost(Duration.ofSeconds(30)).until(() -> HEARD.contains("no longer idle 0"));
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                List<String> since = since("no longer idle 0");
                return since.stream().filter("idle 1"::equals).count() >= 3 && since.contains("idle 0");
            });
            List<String> since = since("no longer idle 0");
            assertThat(since).containsOnlyOnce("no longer idle 0"); // the held record is not read again
        });
    }

    /** What was heard from {@code event} on, copied: events go on arriving, which a view of the list would not bear. */
    private static List<String> since(String event) {
        List<String> heard = List.copyOf(HEARD);
        return heard.subList(heard.indexOf(event), heard.size());
    }
}
