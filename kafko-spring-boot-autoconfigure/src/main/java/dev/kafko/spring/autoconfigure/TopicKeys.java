package dev.kafko.spring.autoconfigure;

import dev.kafko.CleanupPolicy;
import dev.kafko.Compression;
import dev.kafko.FsyncPolicy;
import dev.kafko.InvalidConfigException;
import dev.kafko.TopicConfig;
import java.time.Duration;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.springframework.util.unit.DataSize;

/**
 * The keys of {@code kafko.defaults.*} and {@code kafko.topics.<name>.*} applied to an engine
 * {@link TopicConfig}, one at a time, so that a value the engine refuses fails naming the property that
 * set it ({@code kafko.topics.orders.partitions is refused: ...}). A {@code null} key is left as the base has it;
 * so is a key whose value the config already has (every default of {@code kafko.defaults.*}): applying it to a
 * valid config could not fail nor change it, and skipping it spares a start-up its lambda.
 */
final class TopicKeys {

    /**
     * A {@code retention} that sets no time limit: {@code -1}, which binds as -1 ms (Kafka's {@code retention.ms=-1};
     * {@code -1ms} and {@code PT-0.001S} are the same value), as {@code retention-bytes} spells no limit {@code -1}.
     */
    static final Duration NO_RETENTION = Duration.ofMillis(-1);

    private TopicKeys() {
    }

    static TopicConfig apply(String prefix, TopicConfig base, @Nullable Integer partitions,
                             @Nullable Compression compression, @Nullable DataSize segmentSize,
                             @Nullable Duration segmentAge, @Nullable Duration retention,
                             @Nullable DataSize retentionBytes, @Nullable String fsync,
                             @Nullable DataSize maxRecordSize, Compaction compaction) {
        TopicConfig c = base;
        if (partitions != null && partitions != c.partitions()) {
            c = with(c, prefix + ".partitions", b -> b.partitions(partitions));
        }
        if (compression != null && compression != c.compression()) {
            c = with(c, prefix + ".compression", b -> b.compression(compression));
        }
        if (segmentSize != null && segmentSize.toBytes() != c.segmentBytes()) {
            c = with(c, prefix + ".segment-size", b -> b.segmentBytes(segmentSize.toBytes()));
        }
        if (segmentAge != null && !segmentAge.equals(c.segmentAge())) {
            c = with(c, prefix + ".segment-age", b -> b.segmentAge(segmentAge));
        }
        if (retention != null) {
            Duration kept = retention(prefix + ".retention", retention);
            if (!Objects.equals(kept, c.retention())) {
                c = with(c, prefix + ".retention", b -> b.retention(kept));
            }
        }
        if (retentionBytes != null && retentionBytes.toBytes() != c.retentionBytes()) {
            c = with(c, prefix + ".retention-bytes", b -> b.retentionBytes(retentionBytes.toBytes()));
        }
        if (fsync != null) {
            c = with(c, prefix + ".fsync", new FsyncKey(fsync));
        }
        if (maxRecordSize != null && maxRecordSize.toBytes() != c.maxRecordBytes()) {
            c = with(c, prefix + ".max-record-size", b -> b.maxRecordBytes(maxRecordBytes(maxRecordSize.toBytes())));
        }
        return compaction.applyTo(prefix, c);
    }

    /**
     * The engine's retention for a {@code retention} property: {@code null} (no time limit) for {@link #NO_RETENTION},
     * as Kafka's {@code retention.ms=-1} and {@code TopicBuilder.config("retention.ms", "-1")}; the value itself
     * otherwise.
     *
     * @throws InvalidKafkoPropertyException naming {@code property} for any other negative value
     */
    static @Nullable Duration retention(String property, Duration retention) {
        if (retention.equals(NO_RETENTION)) {
            return null;
        }
        if (retention.isNegative()) {
            throw new InvalidKafkoPropertyException(property, "must be -1 (no time limit) or at least 0, was "
                    + retention);
        }
        return retention;
    }

    /**
     * The compaction keys of {@code kafko.defaults.*} and {@code kafko.topics.<name>.*}: {@code cleanup-policy}
     * (Kafka's spellings, {@link CleanupPolicy#parse}), {@code min-compaction-lag}, {@code delete-retention},
     * {@code min-cleanable-dirty-ratio}; a {@code null} leaves the base's.
     */
    record Compaction(@Nullable String cleanupPolicy, @Nullable Duration minCompactionLag,
                      @Nullable Duration deleteRetention, @Nullable Double minCleanableDirtyRatio) {

        TopicConfig applyTo(String prefix, TopicConfig base) {
            TopicConfig c = base;
            if (cleanupPolicy != null) {
                CleanupPolicy policy = parse(prefix + ".cleanup-policy", cleanupPolicy);
                if (policy != c.cleanupPolicy()) {
                    c = with(c, prefix + ".cleanup-policy", b -> b.cleanupPolicy(policy));
                }
            }
            if (minCompactionLag != null && !minCompactionLag.equals(c.minCompactionLag())) {
                c = with(c, prefix + ".min-compaction-lag", b -> b.minCompactionLag(minCompactionLag));
            }
            if (deleteRetention != null && !deleteRetention.equals(c.deleteRetention())) {
                c = with(c, prefix + ".delete-retention", b -> b.deleteRetention(deleteRetention));
            }
            if (minCleanableDirtyRatio != null && minCleanableDirtyRatio != c.minCleanableDirtyRatio()) {
                c = with(c, prefix + ".min-cleanable-dirty-ratio",
                        b -> b.minCleanableDirtyRatio(minCleanableDirtyRatio));
            }
            return c;
        }

        private static CleanupPolicy parse(String property, String text) {
            try {
                return CleanupPolicy.parse(text);
            } catch (InvalidConfigException e) {
                throw new InvalidKafkoPropertyException(property, "is refused: " + e.getMessage(), e);
            }
        }
    }

    /** Sets the fsync policy its text names. */
    private static final class FsyncKey implements UnaryOperator<TopicConfig.Builder> {

        private final String fsync;

        FsyncKey(String fsync) {
            this.fsync = fsync;
        }

        @Override
        public TopicConfig.Builder apply(TopicConfig.Builder b) {
            return b.fsync(FsyncPolicy.parse(fsync));
        }
    }

    /**
     * {@code bytes} as the engine's int, or the engine's refusal for a size beyond an int either way, with the value
     * as set (an overflow would say "too large" of {@code -3GB}, and give no range).
     *
     * @throws InvalidConfigException when {@code bytes} is not an int
     */
    private static int maxRecordBytes(long bytes) {
        if (bytes != (int) bytes) {
            throw new InvalidConfigException("maxRecordBytes must be between " + TopicConfig.MIN_RECORD_BYTES
                    + " (a record with no key, value or headers) and " + TopicConfig.MAX_RECORD_BYTES_LIMIT + ", was "
                    + bytes);
        }
        return (int) bytes;
    }

    /**
     * {@code config} with one key changed by {@code change}; a value the engine refuses fails with
     * the property that set it in front of the engine's reason. Applying keys one at a time over a
     * valid config is what lets the error name the culprit.
     *
     * @throws InvalidKafkoPropertyException naming {@code property}, caused by the engine's
     *     {@link InvalidConfigException}
     */
    private static TopicConfig with(TopicConfig config, String property, UnaryOperator<TopicConfig.Builder> change) {
        try {
            return change.apply(config.toBuilder()).build();
        } catch (InvalidConfigException e) {
            throw new InvalidKafkoPropertyException(property, "is refused: " + e.getMessage(), e);
        } catch (ArithmeticException e) {
            throw new InvalidKafkoPropertyException(property, "is too large (" + e.getMessage() + ")", e);
        }
    }
}
