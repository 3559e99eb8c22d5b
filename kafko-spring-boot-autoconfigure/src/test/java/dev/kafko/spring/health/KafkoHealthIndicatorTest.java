package dev.kafko.spring.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import dev.kafko.Kafko;
import dev.kafko.KafkoStorageException;
import dev.kafko.PartitionInfo;
import dev.kafko.PartitionState;
import dev.kafko.Topic;
import dev.kafko.spring.LogCapture;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.listener.MessageListenerContainer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.util.unit.DataSize;

class KafkoHealthIndicatorTest {

    @RegisterExtension
    final LogCapture log = new LogCapture(KafkoHealthIndicator.class);

    @TempDir
    Path dir;

    @Test
    void upWithDataDirTopicCountAndFreeDisk() {
        try (Kafko kafko = Kafko.open(dir)) {
            kafko.createTopic("a");
            kafko.createTopic("b");
            Health health = new KafkoHealthIndicator(kafko, DataSize.ofBytes(1), noRegistry()).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("dataDir", dir.toString()).containsEntry("topics", 2)
                    .containsKey("freeDiskBytes");
            // no empty list of failed partitions, and no error, on a healthy instance
            assertThat(health.getDetails()).doesNotContainKeys("failedPartitions", "failedListeners", "error");
        }
    }

    @Test
    void sizesAreGivenInTheUnitThatKeepsThemReadable() {
        assertThat(KafkoHealthIndicator.readable(974_848)).as("not 0MB").isEqualTo("952KB");
        assertThat(KafkoHealthIndicator.readable(5L << 20)).isEqualTo("5.0MB");
        assertThat(KafkoHealthIndicator.readable(100L << 20)).isEqualTo("100MB");
        assertThat(KafkoHealthIndicator.readable(1536L << 20)).isEqualTo("1.5GB");
        assertThat(KafkoHealthIndicator.readable(512)).isEqualTo("512B");
        assertThat(KafkoHealthIndicator.readable(0)).isEqualTo("0B");
    }

    @Test
    void theUnitChangesAtExactly1024AndTheDecimalGoesAtExactly10AndTheLargestSizeStaysInPetabytes() {
        assertThat(KafkoHealthIndicator.readable(1023)).isEqualTo("1023B");
        assertThat(KafkoHealthIndicator.readable(1024)).isEqualTo("1.0KB");
        assertThat(KafkoHealthIndicator.readable(10L << 10)).isEqualTo("10KB");
        assertThat(KafkoHealthIndicator.readable(1L << 50)).isEqualTo("1.0PB");
        // no unit after PB: a long's largest value (8 EiB) is said in petabytes
        assertThat(KafkoHealthIndicator.readable(Long.MAX_VALUE)).isEqualTo("8192PB");
    }

    @Test
    void downWhenFreeDiskIsBelowTheMinimumLoggedOnceWhenItGoesDown() {
        try (Kafko kafko = Kafko.open(dir)) {
            KafkoHealthIndicator indicator = new KafkoHealthIndicator(kafko, DataSize.ofTerabytes(1_000_000), noRegistry());
            Health health = indicator.health();
            indicator.health();
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat((String) health.getDetails().get("error")).contains("kafko.health.min-free-disk")
                    .contains("is below 977PB");
            assertThat(log.events()).singleElement().satisfies(e -> assertThat(e.getFormattedMessage())
                    .contains("kafko health is DOWN: free disk", dir.toString(), "kafko.health.min-free-disk"));
        }
    }

    @Test
    void downNamingTopicPartitionAndCauseWhenAPartitionFailed() {
        Kafko kafko = mock(Kafko.class);
        Topic topic = mock(Topic.class);
        when(kafko.dataDir()).thenReturn(dir);
        when(kafko.topics()).thenReturn(Set.of("orders"));
        when(kafko.topic("orders")).thenReturn(Optional.of(topic));
        when(topic.partitions()).thenReturn(List.of(
                new PartitionInfo("orders", 0, 0, 10, 100, 1, PartitionState.RUNNING, null),
                new PartitionInfo("orders", 1, 0, 10, 100, 1, PartitionState.FAILED,
                        new KafkoStorageException("write failed on 00000000000000000000.log"))));

        Health health = new KafkoHealthIndicator(kafko, DataSize.ofBytes(1), noRegistry()).health();

        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> failed = (List<Map<String, Object>>) health.getDetails().get("failedPartitions");
        assertThat(failed).singleElement().satisfies(f -> {
            assertThat(f).containsEntry("topic", "orders").containsEntry("partition", 1);
            assertThat((String) f.get("cause")).contains("write failed on 00000000000000000000.log");
        });
    }

    @Test
    void downNamingAListenerWhosePollingThreadDied() {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        MessageListenerContainer dead = mock(MessageListenerContainer.class);
        when(dead.getListenerId()).thenReturn("billing");
        when(dead.isInExpectedState()).thenReturn(false);
        when(dead.getFailure()).thenReturn(new OutOfMemoryError("Java heap space"));
        MessageListenerContainer fine = mock(MessageListenerContainer.class);
        when(fine.getListenerId()).thenReturn("audit");
        when(fine.isInExpectedState()).thenReturn(true);
        registry.registerListenerContainer(dead, false);
        registry.registerListenerContainer(fine, false);
        try (Kafko kafko = Kafko.open(dir)) {
            Health health = new KafkoHealthIndicator(kafko, DataSize.ofBytes(1), provider(registry)).health();
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.getDetails()).containsEntry("failedListeners", List.of("billing"))
                    .containsEntry("listenerFailures", Map.of("billing", "java.lang.OutOfMemoryError: Java heap space"));
        }
    }

    private static ObjectProvider<KafkoListenerEndpointRegistry> noRegistry() {
        return new StaticListableBeanFactory().getBeanProvider(KafkoListenerEndpointRegistry.class);
    }

    private static ObjectProvider<KafkoListenerEndpointRegistry> provider(KafkoListenerEndpointRegistry registry) {
        return new StaticListableBeanFactory(Map.of("registry", registry))
                .getBeanProvider(KafkoListenerEndpointRegistry.class);
    }
}
