package dev.kafko.spring.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.event.EventListener;

/**
 * The idle events name the member that published them, {@code <id>-<n>}, as spring-kafka's name the child
 * container of a member: the condition spring-kafka's reference gives for them selects them here too.
 */
class IdleEventListenerIdTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    static final List<String> HEARD = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.windows.partitions=2",
                    "kafko.listener.idle-event-interval=100ms", "kafko.listener.idle-partition-event-interval=100ms");

    @BeforeEach
    void reset() {
        HEARD.clear();
    }

    @Test
    void aConditionOnTheMembersIdsAsSpringKafkaDocumentsItHearsEveryMemberOfTheListener() {
        runner.withBean(Windows.class).withBean(Flusher.class).run(context -> {
            await().atMost(WAIT).until(() -> HEARD.containsAll(List.of("container windows-0", "container windows-1",
                    "partition windows-0", "partition windows-1")));
            assertThat(HEARD).allMatch(heard -> heard.matches("(container|partition) windows-[01]"));
        });
    }

    @Test
    void aClientIdPrefixNamesTheThreadsButNotTheIdOfTheEvents() {
        runner.withBean(PrefixedWindows.class).withBean(Flusher.class).run(context -> {
            await().atMost(WAIT).until(() -> HEARD.containsAll(List.of("container windows-0", "container windows-1")));
            assertThat(HEARD).noneMatch(heard -> heard.contains("meter-client"));
        });
    }

    static class Windows {
        @KafkoListener(id = "windows", topics = "windows", concurrency = "2")
        void on(String usage) {
        }
    }

    static class PrefixedWindows {
        @KafkoListener(id = "windows", topics = "windows", concurrency = "2", clientIdPrefix = "meter-client")
        void on(String usage) {
        }
    }

    /** spring-kafka's reference: "the actual containers are named id-n", hence {@code startsWith('qux-')}. */
    static class Flusher {
        @EventListener(condition = "event.listenerId.startsWith('windows-')")
        void flush(ListenerContainerIdleEvent event) {
            HEARD.add("container " + event.getListenerId());
        }

        @EventListener(condition = "event.listenerId.startsWith('windows-')")
        void flush(ListenerContainerPartitionIdleEvent event) {
            HEARD.add("partition " + event.getListenerId());
        }
    }
}
