package dev.kafko.spring.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Compression;
import dev.kafko.Kafko;
import dev.kafko.KafkoException;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.TopicBuilder;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@link KafkoAdmin}: topics created, grown, described and deleted at run time, as spring-kafka's KafkaAdmin does. */
@ExtendWith(OutputCaptureExtension.class)
class KafkoAdminTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.defaults.partitions=2", "kafko.defaults.retention=7d");

    @Test
    void createOrModifyCreatesWithTheKeysOverTheDefaultsAndGrowsWhatHasFewerPartitions(CapturedOutput out) {
        runner.run(context -> {
            KafkoAdmin admin = context.getBean(KafkoAdmin.class);
            Kafko kafko = context.getBean(Kafko.class);
            admin.createOrModifyTopics(TopicBuilder.name("tenant-a").partitions(3).compression(Compression.LZ4).build(),
                    TopicBuilder.name("tenant-b").build());
            TopicConfig a = kafko.topic("tenant-a").orElseThrow().config();
            assertThat(a.partitions()).isEqualTo(3);
            assertThat(a.compression()).isEqualTo(Compression.LZ4);
            assertThat(a.retention()).as("from kafko.defaults").isEqualTo(Duration.ofDays(7));
            assertThat(kafko.topic("tenant-b").orElseThrow().partitionCount()).isEqualTo(2);

            admin.createOrModifyTopics(TopicBuilder.name("tenant-a").partitions(5).build(),
                    TopicBuilder.name("tenant-b").build());
            assertThat(kafko.topic("tenant-a").orElseThrow().partitionCount()).isEqualTo(5);
            assertThat(out).as("a key the NewTopic does not name is no difference").doesNotContain("exists with");
            admin.createOrModifyTopics(TopicBuilder.name("tenant-a").partitions(5).compression(Compression.ZSTD).build());
            assertThat(kafko.topic("tenant-a").orElseThrow().config().compression()).as("stored config stays")
                    .isEqualTo(Compression.LZ4);
            assertThat(out).contains("Topic 'tenant-a' exists with another config than NewTopic 'tenant-a' asks for:"
                    + " compression LZ4 (asked ZSTD)");
        });
    }

    @Test
    void withModifyTopicConfigsCreateOrModifyChangesAnExistingTopicsOtherKeys(CapturedOutput out) {
        runner.run(context -> {
            KafkoAdmin admin = context.getBean(KafkoAdmin.class);
            Kafko kafko = context.getBean(Kafko.class);
            admin.createOrModifyTopics(TopicBuilder.name("tenant-a").partitions(3).build());
            admin.setModifyTopicConfigs(true);
            admin.createOrModifyTopics(TopicBuilder.name("tenant-a").partitions(4).compression(Compression.ZSTD)
                    .config("retention.ms", "3600000").build());
            Topic a = kafko.topic("tenant-a").orElseThrow();
            assertThat(a.partitionCount()).isEqualTo(4);
            assertThat(a.config().compression()).isEqualTo(Compression.ZSTD);
            assertThat(a.config().retention()).isEqualTo(Duration.ofHours(1));
            assertThat(out).contains("Changing the config of topic 'tenant-a'");

            admin.setModifyTopicConfigs(false);
            admin.createOrModifyTopics(TopicBuilder.name("tenant-a").partitions(4).build());
            assertThat(kafko.topic("tenant-a").orElseThrow().config().compression()).as("stored config stays")
                    .isEqualTo(Compression.ZSTD);
        });
        runner.withPropertyValues("kafko.modify-topic-configs=true").run(context -> {
            KafkoAdmin admin = context.getBean(KafkoAdmin.class);
            admin.createOrModifyTopics(TopicBuilder.name("t").build());
            admin.createOrModifyTopics(TopicBuilder.name("t").config("max.message.bytes", "4096").build());
            assertThat(context.getBean(Kafko.class).topic("t").orElseThrow().config().maxRecordBytes()).isEqualTo(4096);
        });
    }

    @Test
    void aShrinkIsRefusedNamingTheTopicBeforeAnyTopicIsCreatedOrGrown(CapturedOutput out) {
        runner.run(context -> {
            KafkoAdmin admin = context.getBean(KafkoAdmin.class);
            Kafko kafko = context.getBean(Kafko.class);
            admin.createOrModifyTopics(TopicBuilder.name("big").partitions(4).build(),
                    TopicBuilder.name("small").partitions(1).build());
            admin.createOrModifyTopics(TopicBuilder.name("big").partitions(4).build());
            assertThat(kafko.topic("big").orElseThrow().partitionCount()).as("as many as it has: no change")
                    .isEqualTo(4);
            assertThat(out).doesNotContain("Growing topic 'big'").doesNotContain("Topic 'big' exists with");
            assertThatThrownBy(() -> admin.createOrModifyTopics(TopicBuilder.name("small").partitions(3).build(),
                    TopicBuilder.name("big").partitions(2).build(), TopicBuilder.name("fresh").build()))
                    .isInstanceOf(KafkoException.class)
                    .hasMessage("NewTopic 'big' with 2 partitions would shrink topic 'big', which has 4 partitions;"
                            + " partitions can only grow: ask for 4 or more");
            assertThat(kafko.topic("small").orElseThrow().partitionCount()).isEqualTo(1);
            assertThat(kafko.topic("fresh")).isEmpty();
            assertThatThrownBy(() -> admin.createOrModifyTopics(TopicBuilder.name("x").build(),
                    TopicBuilder.name("x").partitions(2).build()))
                    .isInstanceOf(KafkoException.class).hasMessage("topic 'x' is given twice to createOrModifyTopics");
            assertThat(kafko.topic("x")).isEmpty();
        });
    }

    @Test
    void describeAndDeleteNameTheFirstMissingTopicAndDeleteNothingThen() {
        runner.run(context -> {
            KafkoAdmin admin = context.getBean(KafkoAdmin.class);
            Kafko kafko = context.getBean(Kafko.class);
            admin.createOrModifyTopics(TopicBuilder.name("a").build(), TopicBuilder.name("b").partitions(3).build());
            Map<String, Topic> described = admin.describeTopics("b", "a");
            assertThat(described.keySet()).containsExactly("b", "a");
            assertThat(described.get("b").partitionCount()).isEqualTo(3);
            assertThatThrownBy(() -> admin.describeTopics("a", "nope")).isInstanceOf(UnknownTopicException.class)
                    .hasMessage("topic 'nope' does not exist");
            assertThatThrownBy(() -> admin.deleteTopics("a", "nope")).isInstanceOf(UnknownTopicException.class)
                    .hasMessage("topic 'nope' does not exist");
            assertThat(kafko.topics()).contains("a", "b");
            admin.deleteTopics("a", "b");
            assertThat(kafko.topics()).doesNotContain("a", "b");
        });
    }

    @Test
    void aNameGivenTwiceToDeleteTopicsIsRefusedBeforeAnyTopicIsDeleted() {
        runner.run(context -> {
            KafkoAdmin admin = context.getBean(KafkoAdmin.class);
            Kafko kafko = context.getBean(Kafko.class);
            admin.createOrModifyTopics(TopicBuilder.name("a").build(), TopicBuilder.name("b").build());
            assertThatThrownBy(() -> admin.deleteTopics("a", "b", "a")).isInstanceOf(KafkoException.class)
                    .isNotInstanceOf(UnknownTopicException.class)
                    .hasMessage("topic 'a' is given twice to deleteTopics (nothing was deleted)");
            assertThat(kafko.topics()).contains("a", "b");
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnAdmin {
        @Bean
        KafkoAdmin myAdmin(Kafko kafko, KafkoTopicProvisioner topics) {
            return new KafkoAdmin(kafko, topics);
        }
    }

    @Test
    void anApplicationsOwnAdminReplacesTheAutoConfiguredOne() {
        runner.withUserConfiguration(OwnAdmin.class).run(context ->
                assertThat(context).hasSingleBean(KafkoAdmin.class).hasBean("myAdmin").doesNotHaveBean("kafkoAdmin"));
    }
}
