package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * The README's claims on a partition's pause ("Containers at run time") that no other test checks: a partition
 * another listener's container of the same group takes over is not paused there, and the request stays with the
 * container that was asked, to take effect when it reads the partition again.
 */
class ReadmeClaimsPartitionPausesTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    static final List<String> SEEN = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.shared.partitions=1");

    @Test
    void aPartitionAnotherContainerOfTheGroupTakesOverIsNotPausedThere() {
        SEEN.clear();
        runner.withBean(TwoListenersOneGroup.class).run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            MessageListenerContainer first = registry.getListenerContainer("first");
            MessageListenerContainer second = registry.getListenerContainer("second");
            await().atMost(WAIT).until(() -> !first.getAssignedPartitions().isEmpty());
            first.pausePartition("shared", 0);
            await().atMost(WAIT).until(() -> first.isPartitionPaused("shared", 0));
            template(context).send("shared", "while paused").join();

            first.stop();
            second.start();
            await().atMost(WAIT).until(() -> SEEN.contains("second:while paused"));
            assertThat(second.isPartitionPauseRequested("shared", 0)).isFalse();
            assertThat(second.isPartitionPaused("shared", 0)).isFalse();
            // the request is the first container's, and holds across its stop
            assertThat(first.isPartitionPauseRequested("shared", 0)).isTrue();
            assertThat(SEEN).doesNotContain("first:while paused");

            second.stop();
            first.start();
            template(context).send("shared", "after").join();
            await().atMost(WAIT).until(() -> first.isPartitionPaused("shared", 0));
            assertThat(SEEN).doesNotContain("first:after", "second:after");
            first.resumePartition("shared", 0);
            await().atMost(WAIT).until(() -> SEEN.contains("first:after"));
        });
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static class TwoListenersOneGroup {
        @KafkoListener(id = "first", groupId = "readers", topics = "shared")
        void first(String value) {
            SEEN.add("first:" + value);
        }

        @KafkoListener(id = "second", groupId = "readers", topics = "shared", autoStartup = "false")
        void second(String value) {
            SEEN.add("second:" + value);
        }
    }
}
