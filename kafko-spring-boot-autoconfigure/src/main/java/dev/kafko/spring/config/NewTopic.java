package dev.kafko.spring.config;

import dev.kafko.CleanupPolicy;
import dev.kafko.Compression;
import dev.kafko.FsyncPolicy;
import dev.kafko.TopicConfig;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A topic an application declares as a bean, made with {@link TopicBuilder}: at start-up it is created when it does
 * not exist, grown when it has fewer partitions than it asks for, and a start-up fails when it would shrink; the keys
 * it leaves unset take {@code kafko.defaults.*}. The same as a topic declared under {@code kafko.topics.<name>.*};
 * declaring one topic both ways, or in two beans, fails the start-up naming both. Also accepted inside a
 * {@link NewTopics} bean.
 *
 * <p>spring-kafka's {@code TopicBuilder} makes Kafka's {@code NewTopic}, which its {@code KafkaAdmin} creates on the
 * broker; this is its counterpart, with no replication settings (one copy, on one disk).
 */
public final class NewTopic {

    /** The keys a {@code NewTopic} can set, in the order they are applied. */
    enum Key {
        PARTITIONS, COMPRESSION, SEGMENT_BYTES, SEGMENT_AGE, RETENTION, RETENTION_BYTES, FSYNC, MAX_RECORD_BYTES,
        CLEANUP_POLICY, MIN_COMPACTION_LAG, DELETE_RETENTION, MIN_CLEANABLE_DIRTY_RATIO
    }

    /**
     * One key's value ({@code null}: a retention of "forever") and how the declaration wrote it, for messages
     * ({@code partitions(0)}, {@code retention.ms=-5}).
     */
    record Setting(String label, @Nullable Object value) {
    }

    private final String name;
    private final Map<Key, Setting> settings;

    NewTopic(String name, EnumMap<Key, Setting> settings) {
        this.name = name;
        this.settings = new EnumMap<>(settings);
    }

    /** The topic's name. */
    public String name() {
        return name;
    }

    /**
     * The partition count it asks for, or {@code -1} when it leaves it to {@code kafko.defaults.partitions} (as
     * Kafka's {@code NewTopic} answers {@code -1} for the broker's default); an existing topic with more partitions
     * then keeps them.
     */
    public int numPartitions() {
        Setting partitions = settings.get(Key.PARTITIONS);
        return partitions == null ? -1 : (Integer) Objects.requireNonNull(partitions.value());
    }

    /**
     * The engine config this declaration makes over {@code base} (the instance's defaults for new topics): every key
     * it set replaces the base's, the rest stay.
     *
     * @throws dev.kafko.InvalidConfigException never for a {@code NewTopic} from {@link TopicBuilder#build()}, which
     *     checked each key against the engine's limits
     */
    public TopicConfig applyTo(TopicConfig base) {
        TopicConfig.Builder b = base.toBuilder();
        for (Map.Entry<Key, Setting> setting : settings.entrySet()) {
            apply(b, setting.getKey(), setting.getValue().value());
        }
        return b.build();
    }

    /** Sets one key on {@code b}. */
    static void apply(TopicConfig.Builder b, Key key, @Nullable Object value) {
        switch (key) {
            case PARTITIONS -> b.partitions((Integer) Objects.requireNonNull(value));
            case COMPRESSION -> b.compression((Compression) Objects.requireNonNull(value));
            case SEGMENT_BYTES -> b.segmentBytes((Long) Objects.requireNonNull(value));
            case SEGMENT_AGE -> b.segmentAge((Duration) Objects.requireNonNull(value));
            case RETENTION -> b.retention((Duration) value);
            case RETENTION_BYTES -> b.retentionBytes((Long) Objects.requireNonNull(value));
            case FSYNC -> b.fsync((FsyncPolicy) Objects.requireNonNull(value));
            case MAX_RECORD_BYTES -> b.maxRecordBytes((Integer) Objects.requireNonNull(value));
            case CLEANUP_POLICY -> b.cleanupPolicy((CleanupPolicy) Objects.requireNonNull(value));
            case MIN_COMPACTION_LAG -> b.minCompactionLag((Duration) Objects.requireNonNull(value));
            case DELETE_RETENTION -> b.deleteRetention((Duration) Objects.requireNonNull(value));
            case MIN_CLEANABLE_DIRTY_RATIO -> b.minCleanableDirtyRatio((Double) Objects.requireNonNull(value));
            default -> throw new IllegalStateException("unknown key " + key);
        }
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof NewTopic that && name.equals(that.name) && settings.equals(that.settings);
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + settings.hashCode();
    }

    /** {@code NewTopic[orders: partitions(6), retention.ms=604800000]}: the name and each key as it was set. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("NewTopic[").append(name);
        String separator = ": ";
        for (Setting setting : settings.values()) {
            s.append(separator).append(setting.label());
            separator = ", ";
        }
        return s.append(']').toString();
    }
}
