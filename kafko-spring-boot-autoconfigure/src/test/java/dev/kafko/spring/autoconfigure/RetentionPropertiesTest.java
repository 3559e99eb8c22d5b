package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.TopicConfig;
import dev.kafko.spring.core.KafkoTemplate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * {@code retention=-1} under {@code kafko.defaults} and {@code kafko.topics.<name>}: no time limit, as Kafka's
 * {@code retention.ms=-1} and as {@code retention-bytes=-1} lifts the size limit; a topic's {@code -1} keeps its
 * records for ever over a {@code kafko.defaults.retention}. Any other negative retention fails start-up naming its
 * property.
 */
@ExtendWith(OutputCaptureExtension.class)
class RetentionPropertiesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @Test
    void aTopicsMinusOneKeepsItsRecordsForeverOverTheDefaultRetention() {
        runner.withPropertyValues("kafko.defaults.retention=7d", "kafko.topics.audit.retention=-1",
                "kafko.topics[audit.v2].retention=-1ms", "kafko.topics.orders.partitions=2").run(context -> {
                    assertThat(context).hasNotFailed();
                    Kafko kafko = context.getBean(Kafko.class);
                    assertThat(kafko.topic("audit").orElseThrow().config())
                            .isEqualTo(TopicConfig.DEFAULTS.toBuilder().retention(null).build());
                    assertThat(kafko.topic("audit.v2").orElseThrow().config().retention()).as("-1ms is -1").isNull();
                    assertThat(kafko.topic("orders").orElseThrow().config().retention())
                            .as("a topic that does not set retention keeps kafko.defaults'")
                            .isEqualTo(Duration.ofDays(7));
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    template.send("created-on-first-use", "k", "v").join();
                    assertThat(kafko.topic("created-on-first-use").orElseThrow().config().retention())
                            .isEqualTo(Duration.ofDays(7));
                });
    }

    @Test
    void aDefaultOfMinusOneKeepsRecordsForeverAndATopicCanStillSetItsOwn() {
        runner.withPropertyValues("kafko.defaults.retention=-1", "kafko.topics.orders.partitions=2",
                "kafko.topics.audit.retention=3d").run(context -> {
                    assertThat(context).hasNotFailed();
                    Kafko kafko = context.getBean(Kafko.class);
                    assertThat(kafko.options().topicDefaults()).isEqualTo(TopicConfig.DEFAULTS);
                    assertThat(kafko.topic("orders").orElseThrow().config().retention()).isNull();
                    assertThat(kafko.topic("audit").orElseThrow().config().retention()).isEqualTo(Duration.ofDays(3));
                });
    }

    @Test
    void anyOtherNegativeRetentionFailsStartUpNamingItsPropertyAndCreatesNothing(@TempDir Path dir) {
        Path data = dir.resolve("data");
        for (String setting : List.of("kafko.topics.orders.retention=-2", "kafko.topics.orders.retention=-5s",
                "kafko.topics.orders.retention=-1s", "kafko.topics[orders.v2].retention=-PT0.002S",
                "kafko.defaults.retention=-2", "kafko.defaults.retention=-1d")) {
            String property = setting.substring(0, setting.indexOf('='));
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                    .withPropertyValues("kafko.data-dir=" + data, setting)
                    .run(context -> {
                        assertThat(context).as(setting).hasFailed();
                        assertThat(context.getStartupFailure()).as(setting)
                                .hasRootCauseInstanceOf(InvalidKafkoPropertyException.class);
                        FailureAnalysis analysis = new InvalidKafkoPropertyFailureAnalyzer(null)
                                .analyze(context.getStartupFailure());
                        assertThat(analysis).as(setting).isNotNull();
                        assertThat(analysis.getDescription()).as(setting)
                                .contains(property + " must be -1 (no time limit) or at least 0, was ");
                        assertThat(analysis.getAction()).contains("Update " + property);
                    });
        }
        assertThat(Files.exists(data)).as("checked before the data directory is made").isFalse();
    }

    @Test
    void anExistingTopicsRetentionGoesToForeverOnlyUnderModifyTopicConfigs(@TempDir Path dir, CapturedOutput out) {
        ApplicationContextRunner onDir = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.defaults.retention=7d");
        onDir.withPropertyValues("kafko.topics.audit.partitions=1").run(context ->
                assertThat(context.getBean(Kafko.class).topic("audit").orElseThrow().config().retention())
                        .isEqualTo(Duration.ofDays(7)));
        onDir.withPropertyValues("kafko.topics.audit.retention=-1").run(context ->
                assertThat(context.getBean(Kafko.class).topic("audit").orElseThrow().config().retention())
                        .as("the stored config stays").isEqualTo(Duration.ofDays(7)));
        assertThat(out).contains("Topic 'audit' exists with another config than kafko.topics.audit asks for:"
                + " retention PT168H (asked forever). The stored config stays");
        onDir.withPropertyValues("kafko.modify-topic-configs=true", "kafko.topics.audit.retention=-1").run(context ->
                assertThat(context.getBean(Kafko.class).topic("audit").orElseThrow().config().retention()).isNull());
        assertThat(out).contains("Changing the config of topic 'audit' as kafko.topics.audit asks:"
                + " retention PT168H (asked forever)");
    }
}
