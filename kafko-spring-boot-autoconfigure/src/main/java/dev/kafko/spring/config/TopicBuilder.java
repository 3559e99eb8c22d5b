package dev.kafko.spring.config;

import dev.kafko.CleanupPolicy;
import dev.kafko.Compression;
import dev.kafko.FsyncPolicy;
import dev.kafko.InvalidConfigException;
import dev.kafko.InvalidNameException;
import dev.kafko.Kafko;
import dev.kafko.TopicConfig;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Builds a {@link NewTopic} to declare as a bean, in the shape of spring-kafka's {@code TopicBuilder}:
 *
 * <pre>{@code
 * @Bean
 * NewTopic ordersTopic() {
 *     return TopicBuilder.name("orders").partitions(6).config("retention.ms", "604800000").build();
 * }
 * }</pre>
 *
 * Each key is set either with kafko's own setter (as {@link TopicConfig.Builder} names it) or, for code ported from
 * spring-kafka, with {@link #config(String, String)} and the Kafka topic config it corresponds to:
 * {@code retention.ms} and {@code retention.bytes} ({@code -1}: no limit), {@code segment.bytes}, {@code segment.ms},
 * {@code compression.type} ({@code uncompressed} or {@code none}, {@code lz4}, {@code zstd}; Kafka's default
 * {@code producer} leaves the key unset: kafko compresses per topic, not per producer),
 * {@code max.message.bytes} (kafko's per-record limit), {@code cleanup.policy} ({@code delete}, {@code compact},
 * {@code compact,delete}; {@link #compact()} as spring-kafka's), {@code min.compaction.lag.ms},
 * {@code delete.retention.ms} and {@code min.cleanable.dirty.ratio} (see {@link CleanupPolicy}).
 * A Kafka key kafko has no counterpart for (replication beyond {@link #replicas replicas(1)}, flushing by message
 * count) is refused rather than ignored, as is a value out of the engine's range: each with an
 * {@link InvalidConfigException} naming the topic and the key, at {@link #build()} or before. The last setting of a key wins.
 */
public final class TopicBuilder {

    private final String name;
    private final EnumMap<NewTopic.Key, NewTopic.Setting> settings = new EnumMap<>(NewTopic.Key.class);

    private TopicBuilder(String name) {
        this.name = name;
    }

    /**
     * A builder of the topic {@code name}.
     *
     * @throws InvalidNameException when the name breaks the topic name rule
     */
    public static TopicBuilder name(String name) {
        Kafko.checkName("topic", Objects.requireNonNull(name, "name"));
        return new TopicBuilder(name);
    }

    /** The partition count (1 to {@link TopicConfig#MAX_PARTITIONS}); unset, {@code kafko.defaults.partitions}. */
    public TopicBuilder partitions(int partitions) {
        return set(NewTopic.Key.PARTITIONS, "partitions(" + partitions + ")", partitions);
    }

    /**
     * spring-kafka's replication factor, taken only as 1: a kafko topic is one copy on one disk, so that code ported
     * with {@code replicas(1)} reads as it did, and any other count, which kafko cannot keep, is refused.
     *
     * @throws InvalidConfigException naming the topic when {@code replicas} is not 1
     */
    public TopicBuilder replicas(int replicas) {
        if (replicas != 1) {
            throw refused("replicas(" + replicas + ")", "cannot be kept: a kafko topic is one copy on one disk"
                    + " (replicas(1), or leave it out; fsync(...) sets when appends are forced to disk)");
        }
        return this;
    }

    /** The codec of the topic's frames. */
    public TopicBuilder compression(Compression compression) {
        Objects.requireNonNull(compression, "compression");
        return set(NewTopic.Key.COMPRESSION, "compression(" + compression + ")", compression);
    }

    /** The most bytes a segment file holds. */
    public TopicBuilder segmentBytes(long segmentBytes) {
        return set(NewTopic.Key.SEGMENT_BYTES, "segmentBytes(" + segmentBytes + ")", segmentBytes);
    }

    /** How old a segment's first record gets before the segment rolls. */
    public TopicBuilder segmentAge(Duration segmentAge) {
        Objects.requireNonNull(segmentAge, "segmentAge");
        return set(NewTopic.Key.SEGMENT_AGE, "segmentAge(" + segmentAge + ")", segmentAge);
    }

    /**
     * Segments whose newest record is older than this are deleted; {@code null} keeps records for ever (also over a
     * retention in {@code kafko.defaults}).
     */
    public TopicBuilder retention(@Nullable Duration retention) {
        return set(NewTopic.Key.RETENTION, "retention(" + retention + ")", retention);
    }

    /** The size a partition is cut back to by deleting its oldest segments; {@code -1}, no limit. */
    public TopicBuilder retentionBytes(long retentionBytes) {
        return set(NewTopic.Key.RETENTION_BYTES, "retentionBytes(" + retentionBytes + ")", retentionBytes);
    }

    /** When the topic's appends are forced to disk. */
    public TopicBuilder fsync(FsyncPolicy fsync) {
        Objects.requireNonNull(fsync, "fsync");
        return set(NewTopic.Key.FSYNC, "fsync(" + fsync + ")", fsync);
    }

    /** The largest record a producer may send, counted as the log stores it. */
    public TopicBuilder maxRecordBytes(int maxRecordBytes) {
        return set(NewTopic.Key.MAX_RECORD_BYTES, "maxRecordBytes(" + maxRecordBytes + ")", maxRecordBytes);
    }

    /**
     * What happens to old records: deleted by the retention limits ({@link CleanupPolicy#DELETE}), compacted to the
     * latest record of each key, or both (see {@link CleanupPolicy}); unset, {@code kafko.defaults.cleanup-policy}.
     */
    public TopicBuilder cleanupPolicy(CleanupPolicy cleanupPolicy) {
        Objects.requireNonNull(cleanupPolicy, "cleanupPolicy");
        return set(NewTopic.Key.CLEANUP_POLICY, "cleanupPolicy(" + cleanupPolicy + ")", cleanupPolicy);
    }

    /**
     * A compacted topic ({@link CleanupPolicy#COMPACT}: the latest record of each key kept, every record sent needs a
     * key), as spring-kafka's {@code TopicBuilder.compact()} sets {@code cleanup.policy=compact}.
     */
    public TopicBuilder compact() {
        return set(NewTopic.Key.CLEANUP_POLICY, "compact()", CleanupPolicy.COMPACT);
    }

    /** A record is not removed by compaction before it is this old (Kafka's {@code min.compaction.lag.ms}). */
    public TopicBuilder minCompactionLag(Duration minCompactionLag) {
        Objects.requireNonNull(minCompactionLag, "minCompactionLag");
        return set(NewTopic.Key.MIN_COMPACTION_LAG, "minCompactionLag(" + minCompactionLag + ")", minCompactionLag);
    }

    /**
     * A tombstone that is the latest record of its key is removed by compaction once it is older than this (Kafka's
     * {@code delete.retention.ms}).
     */
    public TopicBuilder deleteRetention(Duration deleteRetention) {
        Objects.requireNonNull(deleteRetention, "deleteRetention");
        return set(NewTopic.Key.DELETE_RETENTION, "deleteRetention(" + deleteRetention + ")", deleteRetention);
    }

    /**
     * The share (0 to 1) of a partition's sealed bytes not yet compacted at which its background compaction starts
     * (Kafka's {@code min.cleanable.dirty.ratio}).
     */
    public TopicBuilder minCleanableDirtyRatio(double minCleanableDirtyRatio) {
        return set(NewTopic.Key.MIN_CLEANABLE_DIRTY_RATIO, "minCleanableDirtyRatio(" + minCleanableDirtyRatio + ")",
                minCleanableDirtyRatio);
    }

    /**
     * Sets each Kafka topic config of {@code configs}, as {@link #config(String, String)} does.
     *
     * @throws InvalidConfigException naming the first key kafko has no counterpart for or whose value it refuses
     */
    public TopicBuilder configs(Map<String, String> configs) {
        for (Map.Entry<String, String> config : configs.entrySet()) {
            config(config.getKey(), config.getValue());
        }
        return this;
    }

    /**
     * Sets a key by its Kafka topic config name ({@code retention.ms}, {@code retention.bytes},
     * {@code segment.bytes}, {@code segment.ms}, {@code compression.type}, {@code max.message.bytes},
     * {@code cleanup.policy}, {@code min.compaction.lag.ms}, {@code delete.retention.ms},
     * {@code min.cleanable.dirty.ratio}).
     *
     * @throws InvalidConfigException naming the key when kafko has no counterpart for it, or when the value is not
     *     one it takes
     */
    public TopicBuilder config(String key, String value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        String label = key + "=" + value;
        String v = value.trim();
        switch (key) {
            case "retention.ms" -> {
                long ms = number(label, v, -1);
                return set(NewTopic.Key.RETENTION, label, ms == -1 ? null : Duration.ofMillis(ms));
            }
            case "retention.bytes" -> {
                return set(NewTopic.Key.RETENTION_BYTES, label, number(label, v, -1));
            }
            case "segment.bytes" -> {
                return set(NewTopic.Key.SEGMENT_BYTES, label, number(label, v, 0));
            }
            case "segment.ms" -> {
                return set(NewTopic.Key.SEGMENT_AGE, label, Duration.ofMillis(number(label, v, 0)));
            }
            case "max.message.bytes" -> {
                long bytes = number(label, v, 0);
                if (bytes > Integer.MAX_VALUE) {
                    throw refused(label, "is larger than " + Integer.MAX_VALUE);
                }
                return set(NewTopic.Key.MAX_RECORD_BYTES, label, (int) bytes);
            }
            case "compression.type" -> {
                if (v.equalsIgnoreCase("producer")) {
                    // Kafka's default: the producer's codec; kafko compresses per topic, so kafko.defaults' applies
                    settings.remove(NewTopic.Key.COMPRESSION);
                    return this;
                }
                return set(NewTopic.Key.COMPRESSION, label, compression(label, v));
            }
            case "cleanup.policy" -> {
                CleanupPolicy policy;
                try {
                    policy = CleanupPolicy.parse(v);
                } catch (InvalidConfigException e) {
                    throw refused(label, "is not a policy kafko has: delete, compact or compact,delete");
                }
                return set(NewTopic.Key.CLEANUP_POLICY, label, policy);
            }
            case "min.compaction.lag.ms" -> {
                return set(NewTopic.Key.MIN_COMPACTION_LAG, label, Duration.ofMillis(number(label, v, 0)));
            }
            case "delete.retention.ms" -> {
                return set(NewTopic.Key.DELETE_RETENTION, label, Duration.ofMillis(number(label, v, 0)));
            }
            case "min.cleanable.dirty.ratio" -> {
                double ratio;
                try {
                    ratio = Double.parseDouble(v);
                } catch (NumberFormatException e) {
                    throw refused(label, "is not a number");
                }
                if (!(ratio >= 0 && ratio <= 1)) {
                    throw refused(label, "must be between 0 and 1");
                }
                return set(NewTopic.Key.MIN_CLEANABLE_DIRTY_RATIO, label, ratio);
            }
            default -> throw new InvalidConfigException("topic '" + name + "': Kafka topic config '" + key
                    + "' has no counterpart in kafko, which takes retention.ms, retention.bytes, segment.bytes,"
                    + " segment.ms, compression.type, max.message.bytes, cleanup.policy, min.compaction.lag.ms,"
                    + " delete.retention.ms and min.cleanable.dirty.ratio (a kafko topic is one copy on one disk:"
                    + " there are no replication settings; fsync(...) sets when appends are forced to disk)");
        }
    }

    /**
     * The declaration, each key checked against the engine's limits.
     *
     * @throws InvalidConfigException naming the topic and the key of a value the engine refuses
     */
    public NewTopic build() {
        for (Map.Entry<NewTopic.Key, NewTopic.Setting> setting : settings.entrySet()) {
            TopicConfig.Builder b = TopicConfig.DEFAULTS.toBuilder();
            try {
                NewTopic.apply(b, setting.getKey(), setting.getValue().value());
                b.build();
            } catch (InvalidConfigException e) {
                throw new InvalidConfigException("topic '" + name + "': " + setting.getValue().label()
                        + " is refused: " + e.getMessage(), e);
            }
        }
        return new NewTopic(name, settings);
    }

    private TopicBuilder set(NewTopic.Key key, String label, @Nullable Object value) {
        settings.put(key, new NewTopic.Setting(label, value));
        return this;
    }

    /** {@code v} as a whole number of at least {@code min}. */
    private long number(String label, String v, long min) {
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw refused(label, "is not a whole number");
        }
        if (n < min) {
            throw refused(label, min == -1 ? "must be -1 (no limit) or at least 0" : "must be at least " + min);
        }
        return n;
    }

    private Compression compression(String label, String v) {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "uncompressed", "none" -> Compression.NONE;
            case "lz4" -> Compression.LZ4;
            case "zstd" -> Compression.ZSTD;
            default -> throw refused(label, "is not a codec kafko has: uncompressed (or none), lz4 or zstd"
                    + " (producer leaves it to kafko.defaults)");
        };
    }

    private InvalidConfigException refused(String label, String why) {
        return new InvalidConfigException("topic '" + name + "': " + label + " " + why);
    }
}
