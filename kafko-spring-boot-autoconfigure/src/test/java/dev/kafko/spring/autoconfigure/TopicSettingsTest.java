package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.CleanupPolicy;
import dev.kafko.Compression;
import dev.kafko.FsyncPolicy;
import dev.kafko.TopicConfig;
import java.beans.PropertyDescriptor;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.convert.ApplicationConversionService;

/**
 * The two forms of a topic's keys, {@code kafko.defaults.*} and {@code kafko.topics.<name>.*}, name the same keys,
 * and each key of each form reaches the engine config: a key added to one form and forgotten in the other, or not
 * applied by {@link TopicKeys}, fails here.
 */
class TopicSettingsTest {

    /** A key, a value for kafko.defaults and another for the topic, each as the engine config it should make. */
    private record Key(String name, String defaultsValue, UnaryOperator<TopicConfig.Builder> defaults,
                       String topicValue, UnaryOperator<TopicConfig.Builder> topic) {
    }

    private static final List<Key> KEYS = List.of(
            new Key("partitions", "2", b -> b.partitions(2), "3", b -> b.partitions(3)),
            new Key("compression", "lz4", b -> b.compression(Compression.LZ4),
                    "zstd", b -> b.compression(Compression.ZSTD)),
            new Key("segment-size", "16MB", b -> b.segmentBytes(16L << 20), "32MB", b -> b.segmentBytes(32L << 20)),
            new Key("segment-age", "2h", b -> b.segmentAge(Duration.ofHours(2)),
                    "3h", b -> b.segmentAge(Duration.ofHours(3))),
            new Key("retention", "4d", b -> b.retention(Duration.ofDays(4)),
                    "5d", b -> b.retention(Duration.ofDays(5))),
            new Key("retention-bytes", "1GB", b -> b.retentionBytes(1L << 30),
                    "2GB", b -> b.retentionBytes(2L << 30)),
            new Key("fsync", "every-batch", b -> b.fsync(FsyncPolicy.EVERY_BATCH),
                    "interval:100ms", b -> b.fsync(FsyncPolicy.interval(Duration.ofMillis(100)))),
            new Key("max-record-size", "2MB", b -> b.maxRecordBytes(2 << 20), "3MB", b -> b.maxRecordBytes(3 << 20)),
            new Key("cleanup-policy", "compact", b -> b.cleanupPolicy(CleanupPolicy.COMPACT),
                    "compact,delete", b -> b.cleanupPolicy(CleanupPolicy.COMPACT_DELETE)),
            new Key("min-compaction-lag", "1m", b -> b.minCompactionLag(Duration.ofMinutes(1)),
                    "2m", b -> b.minCompactionLag(Duration.ofMinutes(2))),
            new Key("delete-retention", "2h", b -> b.deleteRetention(Duration.ofHours(2)),
                    "0s", b -> b.deleteRetention(Duration.ZERO)),
            new Key("min-cleanable-dirty-ratio", "0.25", b -> b.minCleanableDirtyRatio(0.25),
                    "0.75", b -> b.minCleanableDirtyRatio(0.75)));

    @Test
    void bothFormsNameTheSameKeysAndThisTestCoversEachOne() {
        Set<String> defaults = keys(KafkoProperties.TopicDefaults.class);
        assertThat(keys(KafkoProperties.TopicProperties.class)).isEqualTo(defaults);
        assertThat(KEYS.stream().map(Key::name).collect(Collectors.toSet())).isEqualTo(defaults);
    }

    @Test
    void eachKeyOfTheDefaultsAndOfATopicReachesItsEngineConfig() {
        for (Key key : KEYS) {
            KafkoProperties properties = bind(Map.of("kafko.defaults." + key.name(), key.defaultsValue(),
                    "kafko.topics.orders." + key.name(), key.topicValue(), "kafko.topics.audit.retention", "9d"));
            TopicConfig defaults = key.defaults().apply(TopicConfig.DEFAULTS.toBuilder()).build();
            assertThat(properties.topicDefaults()).as("kafko.defaults.%s", key.name()).isEqualTo(defaults);
            assertThat(properties.declaredTopics().get("orders")).as("kafko.topics.orders.%s", key.name())
                    .isEqualTo(key.topic().apply(defaults.toBuilder()).build());
            assertThat(properties.declaredTopics().get("audit"))
                    .as("a topic that does not set %s takes kafko.defaults'", key.name())
                    .isEqualTo(defaults.toBuilder().retention(Duration.ofDays(9)).build());
        }
    }

    @Test
    void onlyTheTopicsThatSetNoPartitionsOfTheirOwnTakeTheDefaultCount() {
        KafkoProperties properties = bind(Map.of("kafko.defaults.partitions", "4",
                "kafko.topics.orders.partitions", "6", "kafko.topics.audit.retention", "9d"));
        assertThat(properties.topicsWithDefaultPartitions()).containsExactly("audit");
        assertThat(properties.declaredTopics().get("audit").partitions()).isEqualTo(4);
        assertThat(properties.declaredTopics().get("orders").partitions()).isEqualTo(6);
    }

    /** The dashed names of the properties {@code type} binds. */
    private static Set<String> keys(Class<?> type) {
        return Arrays.stream(BeanUtils.getPropertyDescriptors(type)).filter(d -> d.getWriteMethod() != null)
                .map(PropertyDescriptor::getName).map(DataObjectPropertyName::toDashedForm)
                .collect(Collectors.toSet());
    }

    private static KafkoProperties bind(Map<String, String> values) {
        KafkoProperties properties = new KafkoProperties();
        new Binder(List.of(new MapConfigurationPropertySource(new LinkedHashMap<>(values))), null,
                ApplicationConversionService.getSharedInstance())
                .bind("kafko", Bindable.ofInstance(properties));
        return properties;
    }
}
