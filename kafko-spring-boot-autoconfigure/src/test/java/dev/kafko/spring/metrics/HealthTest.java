package dev.kafko.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kafko.Kafko;
import dev.kafko.TopicConfig;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoHealthAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoMetricsAutoConfiguration;
import dev.kafko.spring.health.KafkoHealthIndicator;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class HealthTest {

    @TempDir
    Path dir;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class, KafkoMetricsAutoConfiguration.class,
                    KafkoHealthAutoConfiguration.class))
            .withBean(SimpleMeterRegistry.class);

    @Test
    void aPartitionWhoseNextSegmentCannotBeCreatedIsDownInHealthAndOneOnItsFailedGauge() {
        runner.withPropertyValues("kafko.data-dir=" + dir).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            KafkoHealthIndicator health = context.getBean(KafkoHealthIndicator.class);
            kafko.createTopic("orders", TopicConfig.builder().partitions(2).segmentBytes(4096).build());
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
            // the partition's directory replaced by a file: the next roll cannot create its segment
            Path p0 = dir.resolve("orders").resolve("0");
            try (Stream<Path> files = Files.walk(p0)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
            Files.writeString(p0, "not a directory");
            Throwable failed = null;
            for (int i = 0; i < 100 && failed == null; i++) {
                failed = catchThrowable(() -> kafko.producer("orders").sendTo(0, null, new byte[500]).join());
            }
            System.out.println("PROBE send failure " + failed);
            Health h = health.health();
            System.out.println("PROBE " + h.getStatus() + " " + h.getDetails());
            assertThat(h.getStatus()).isEqualTo(Status.DOWN);
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> partitions = (List<Map<String, Object>>) h.getDetails().get("failedPartitions");
            assertThat(partitions).singleElement().satisfies(f -> assertThat(f).containsEntry("topic", "orders")
                    .containsEntry("partition", 0));
            assertThat(registry.get("kafko.log.failed").tag("topic", "orders").tag("partition", "0").gauge().value())
                    .isEqualTo(1);
            assertThat(registry.get("kafko.log.failed").tag("topic", "orders").tag("partition", "1").gauge().value())
                    .isZero();
            assertThat(registry.get("kafko.log.failures").tag("topic", "orders").tag("partition", "0").counter()
                    .count()).isEqualTo(1);
        });
    }
}
