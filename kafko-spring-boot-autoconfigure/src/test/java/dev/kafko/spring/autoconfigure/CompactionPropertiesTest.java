package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.CleanupPolicy;
import dev.kafko.InvalidRecordException;
import dev.kafko.Kafko;
import dev.kafko.TopicConfig;
import dev.kafko.spring.core.KafkoTemplate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The compaction keys of {@code kafko.defaults.*} and {@code kafko.topics.<name>.*}: {@code cleanup-policy} in Kafka's
 * spellings, {@code min-compaction-lag}, {@code delete-retention}, {@code min-cleanable-dirty-ratio}.
 */
class CompactionPropertiesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @Test
    void declaredAndAutoCreatedTopicsTakeTheirCompactionKeysFromTheProperties() {
        runner.withPropertyValues("kafko.defaults.cleanup-policy=compact", "kafko.defaults.delete-retention=1h",
                "kafko.topics.prices.cleanup-policy=compact,delete", "kafko.topics.prices.min-compaction-lag=10s",
                "kafko.topics.prices.min-cleanable-dirty-ratio=0.2", "kafko.topics.log.cleanup-policy=delete")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Kafko kafko = context.getBean(Kafko.class);
                    TopicConfig prices = kafko.topic("prices").orElseThrow().config();
                    assertThat(prices).isEqualTo(TopicConfig.DEFAULTS.toBuilder()
                            .cleanupPolicy(CleanupPolicy.COMPACT_DELETE).minCompactionLag(Duration.ofSeconds(10))
                            .deleteRetention(Duration.ofHours(1)).minCleanableDirtyRatio(0.2).build());
                    assertThat(kafko.topic("log").orElseThrow().config().cleanupPolicy())
                            .isEqualTo(CleanupPolicy.DELETE);
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    assertThat(template.send("log", "no key").join().offset()).isZero();
                    assertThatThrownBy(() -> template.send("created-on-first-use", "no key").join())
                            .as("a topic created on first use takes kafko.defaults' policy")
                            .cause().isInstanceOf(InvalidRecordException.class);
                    assertThat(kafko.topic("created-on-first-use").orElseThrow().config().cleanupPolicy())
                            .isEqualTo(CleanupPolicy.COMPACT);
                });
    }

    @Test
    void aCompactionValueThatCannotWorkFailsStartUpNamingItsPropertyAndCreatesNothing(@TempDir Path dir) {
        Map<String, String> refused = Map.of(
                "kafko.topics.prices.cleanup-policy=shred", "cleanup policy 'shred' is none of delete, compact,",
                "kafko.defaults.cleanup-policy=compact;delete", "is none of delete, compact",
                "kafko.topics.prices.min-compaction-lag=-1s", "minCompactionLag must not be negative",
                "kafko.defaults.delete-retention=-1ms", "deleteRetention must not be negative",
                "kafko.topics[prices.v2].min-cleanable-dirty-ratio=1.5", "minCleanableDirtyRatio must be between 0"
                        + " and 1, was 1.5",
                "kafko.defaults.min-cleanable-dirty-ratio=-0.5", "minCleanableDirtyRatio must be between 0 and 1");
        Path data = dir.resolve("data");
        refused.forEach((setting, reason) -> {
            String property = setting.substring(0, setting.indexOf('='));
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                    .withPropertyValues("kafko.data-dir=" + data, setting).run(context -> {
                        assertThat(context).as(setting).hasFailed();
                        FailureAnalysis analysis = new InvalidKafkoPropertyFailureAnalyzer(null)
                                .analyze(context.getStartupFailure());
                        assertThat(analysis).as(setting).isNotNull();
                        assertThat(analysis.getDescription()).as(setting)
                                .contains(property + " is refused: ", reason);
                        assertThat(analysis.getAction()).contains("Update " + property);
                    });
        });
        assertThat(Files.exists(data)).as("checked before the data directory is made").isFalse();
        runner.withPropertyValues("kafko.topics.prices.min-cleanable-dirty-ratio=half").run(context ->
                assertThat(context).getFailure().as("Boot's own binding names it")
                        .hasStackTraceContaining("kafko.topics.prices.min-cleanable-dirty-ratio"));
    }
}
