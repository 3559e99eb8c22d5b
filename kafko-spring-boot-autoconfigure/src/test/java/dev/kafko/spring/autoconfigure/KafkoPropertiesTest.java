package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.CleanupPolicy;
import dev.kafko.Compression;
import dev.kafko.FsyncPolicy;
import dev.kafko.KafkoOptions;
import dev.kafko.TopicConfig;
import dev.kafko.spring.listener.AckMode;
import dev.kafko.spring.listener.ContainerProperties;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.unit.DataSize;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

class KafkoPropertiesTest {

    @Test
    void defaultsEqualTheEngineDefaults() {
        KafkoProperties properties = new KafkoProperties();
        assertThat(properties.topicDefaults()).isEqualTo(TopicConfig.DEFAULTS);
        assertThat(properties.getListener().getMaxPollRecords()).isEqualTo(KafkoOptions.DEFAULTS.maxPollRecords());
        assertThat(properties.getLinger()).isEqualTo(KafkoOptions.DEFAULTS.linger());
        assertThat(properties.getMaxQueuedBytes().toBytes()).isEqualTo(KafkoOptions.DEFAULTS.maxQueuedBytes());
        assertThat(properties.getMaxBlock()).isEqualTo(KafkoOptions.DEFAULTS.maxBlock());
        assertThat(properties.getOffsetReset()).isEqualTo(KafkoOptions.DEFAULTS.offsetReset());
        KafkoProperties.Listener listener = properties.getListener();
        assertThat(new ContainerProperties(listener.getAckMode(), listener.getConcurrency(), listener.getPollTimeout(),
                listener.getMaxPollRecords(), listener.getShutdownTimeout())).isEqualTo(ContainerProperties.DEFAULTS);
        assertThat(listener.getRetry().getMaxAttempts()).isEqualTo(10);
        assertThat(listener.getRetry().getBackoff()).isZero();
        assertThat(listener.getDeadLetter().isEnabled()).isFalse();
        assertThat(properties.getHealth().getMinFreeDisk()).isEqualTo(DataSize.ofMegabytes(100));
        assertThat(properties.isAutoCreateTopics()).isTrue();
        assertThat(properties.isEphemeral()).isFalse();
        assertThat(properties.getDataDir().toString()).isEqualTo("kafko-data");
    }

    @Test
    void everyTopicKeyBindsAndTopicKeysOverrideTheDefaults() {
        new ApplicationContextRunner().withUserConfiguration(Props.class).withPropertyValues(
                "kafko.defaults.partitions=2", "kafko.defaults.fsync=every-batch",
                "kafko.defaults.segment-age=2h",
                "kafko.topics.orders.compression=zstd", "kafko.topics.orders.segment-size=16MB",
                "kafko.topics.orders.retention=3d", "kafko.topics.orders.retention-bytes=1GB",
                "kafko.topics.orders.fsync=interval:100ms", "kafko.topics.orders.max-record-size=2MB",
                "kafko.topics[audit.v1].segment-age=30m", "kafko.topics[audit.v1].fsync=interval:1h",
                "kafko.defaults.cleanup-policy=compact", "kafko.defaults.delete-retention=2h",
                "kafko.topics[audit.v1].cleanup-policy=compact,delete", "kafko.topics[audit.v1].min-compaction-lag=5m",
                "kafko.topics[audit.v1].delete-retention=0s", "kafko.topics[audit.v1].min-cleanable-dirty-ratio=0.1",
                "kafko.topics.orders.cleanup-policy=delete",
                "kafko.listener.ack-mode=manual-immediate", "kafko.listener.poll-timeout=250ms")
                .run(context -> {
                    KafkoProperties properties = context.getBean(KafkoProperties.class);
                    TopicConfig orders = properties.declaredTopics().get("orders");
                    assertThat(orders).isEqualTo(TopicConfig.builder().partitions(2).compression(Compression.ZSTD)
                            .segmentBytes(16L << 20).segmentAge(Duration.ofHours(2)).retention(Duration.ofDays(3))
                            .retentionBytes(1L << 30).fsync(FsyncPolicy.interval(Duration.ofMillis(100)))
                            .maxRecordBytes(2 << 20).deleteRetention(Duration.ofHours(2)).build());
                    TopicConfig audit = properties.declaredTopics().get("audit.v1");
                    assertThat(audit.segmentAge()).isEqualTo(Duration.ofMinutes(30));
                    assertThat(audit.fsync()).isEqualTo(FsyncPolicy.interval(Duration.ofHours(1)));
                    assertThat(audit.cleanupPolicy()).isEqualTo(CleanupPolicy.COMPACT_DELETE);
                    assertThat(audit.minCompactionLag()).isEqualTo(Duration.ofMinutes(5));
                    assertThat(audit.deleteRetention()).isZero();
                    assertThat(audit.minCleanableDirtyRatio()).isEqualTo(0.1);
                    assertThat(properties.topicDefaults().cleanupPolicy()).isEqualTo(CleanupPolicy.COMPACT);
                    assertThat(properties.topicDefaults().deleteRetention()).isEqualTo(Duration.ofHours(2));
                    assertThat(properties.topicDefaults().fsync()).isEqualTo(FsyncPolicy.EVERY_BATCH);
                    assertThat(properties.getListener().getAckMode()).isEqualTo(AckMode.MANUAL_IMMEDIATE);
                    assertThat(properties.getListener().getPollTimeout()).isEqualTo(Duration.ofMillis(250));
                });
    }

    @Test
    void configurationMetadataDescribesEveryProperty() throws Exception {
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("metadata generated by spring-boot-configuration-processor").isNotNull();
            String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(json).contains("\"kafko.data-dir\"", "\"kafko.ephemeral\"", "\"kafko.auto-create-topics\"",
                    "\"kafko.defaults.partitions\"", "\"kafko.defaults.cleanup-policy\"",
                    "\"kafko.defaults.min-cleanable-dirty-ratio\"", "\"kafko.topics\"",
                    "\"kafko.template.default-topic\"",
                    "\"kafko.listener.ack-mode\"", "\"kafko.listener.retry.max-attempts\"",
                    "\"kafko.listener.dead-letter.enabled\"", "\"kafko.health.min-free-disk\"",
                    "Attempts per record, the first one included");
        }
    }

    /**
     * The default the metadata gives an IDE for each property binds to the value a fresh {@link KafkoProperties}
     * holds: a default written by hand (the processor cannot read one set from another class's constant) or one
     * the processor read wrong would tell users something else than what applies.
     */
    @Test
    void everyDefaultInTheMetadataIsTheDefaultThatApplies() throws Exception {
        JsonNode metadata;
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            metadata = new ObjectMapper().readTree(in);
        }
        KafkoProperties fresh = new KafkoProperties();
        BeanWrapper bean = new BeanWrapperImpl(fresh);
        int compared = 0;
        for (JsonNode property : metadata.get("properties")) {
            JsonNode defaultValue = property.get("defaultValue");
            String name = property.get("name").asString();
            String path = Arrays.stream(name.substring("kafko.".length()).split("\\."))
                    .map(KafkoPropertiesTest::camel).collect(Collectors.joining("."));
            if (defaultValue == null) {
                // no default shown: there must be none (an IDE showed none for ack-count and ack-time)
                Object held = bean.getPropertyValue(path);
                assertThat(held == null || held instanceof java.util.Collection<?> c && c.isEmpty()
                        || held instanceof Map<?, ?> m && m.isEmpty())
                        .as("%s holds %s, which the metadata does not give as its default", name, held).isTrue();
                continue;
            }
            Class<?> type = bean.getPropertyType(path);
            assertThat(type).as(name).isNotNull();
            String text = defaultValue.isArray()
                    ? StreamSupport.stream(defaultValue.spliterator(), false).map(JsonNode::asString)
                            .collect(Collectors.joining(","))
                    : defaultValue.asString();
            Object bound = new Binder(List.of(new MapConfigurationPropertySource(Map.of(name, text))),
                    null, ApplicationConversionService.getSharedInstance())
                    .bind(name, Bindable.of(bean.getPropertyTypeDescriptor(path).getResolvableType()))
                    .orElse(null);
            assertThat(bound).as("%s: the metadata says %s", name, text).isEqualTo(bean.getPropertyValue(path));
            compared++;
        }
        assertThat(compared).as("properties with a default in the metadata").isGreaterThan(20);
    }

    /** {@code ack-mode} as its Java property, {@code ackMode}. */
    static String camel(String kebab) {
        StringBuilder b = new StringBuilder();
        boolean up = false;
        for (char c : kebab.toCharArray()) {
            if (c == '-') {
                up = true;
            } else {
                b.append(up ? Character.toUpperCase(c) : c);
                up = false;
            }
        }
        return b.toString();
    }

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(KafkoProperties.class)
    static class Props {
    }
}
