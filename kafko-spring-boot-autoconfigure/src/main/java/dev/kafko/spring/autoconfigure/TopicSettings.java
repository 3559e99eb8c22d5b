package dev.kafko.spring.autoconfigure;

import dev.kafko.Compression;
import dev.kafko.TopicConfig;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.util.unit.DataSize;

/**
 * The keys of a topic's config, in their two forms side by side: {@code kafko.defaults.*} ({@link Defaults}, each
 * key with the engine's default) and {@code kafko.topics.<name>.*} ({@link Overrides}, each key {@code null} until
 * set, taking kafko.defaults' then). Users name them as {@link KafkoProperties.TopicDefaults} and
 * {@link KafkoProperties.TopicProperties}, which inherit every property from here: these classes are package-private,
 * so javadoc documents their public getters and setters as those types' own. A key added to one form is added to
 * the other and to {@link TopicKeys}, which applies both; {@code TopicSettingsTest} fails otherwise.
 */
final class TopicSettings {

    private TopicSettings() {
    }

    /** The properties of {@link KafkoProperties.TopicDefaults}. */
    abstract static class Defaults {

        /** Partitions of a new topic. */
        private int partitions = 1;

        /** Codec applied to each frame: none, lz4 or zstd. */
        private Compression compression = Compression.NONE;

        /** The most a segment file holds: a frame that would take it past this starts the next one. */
        private DataSize segmentSize = DataSize.ofGigabytes(1);

        /**
         * A segment also rolls once its first record is this old. Retention deletes whole segments: a
         * sealed segment goes once its newest record is older than the retention, and the active one
         * (rolled first) once every record of the partition is.
         */
        private Duration segmentAge = Duration.ofDays(7);

        /**
         * Delete segments whose newest record is older than this; unset, or -1 (read as -1 ms: Kafka's
         * retention.ms=-1), keeps records forever. Any other negative value fails start-up.
         */
        private @Nullable Duration retention;

        /**
         * Delete the oldest segments while a partition holds at least this much without them (Kafka's
         * rule: it keeps at least this size, and passes it by up to a segment); -1 sets no limit.
         */
        private DataSize retentionBytes = DataSize.ofBytes(-1);

        /**
         * When appends are forced to disk: never, every-batch or interval:DURATION, the duration as a
         * number with ns, us, ms, s, m, h or d, or ISO-8601 (e.g. interval:100ms).
         */
        private String fsync = "never";

        /**
         * The largest record a producer may send, as the log stores it: key, value and headers with
         * their length fields and a few bytes of framing (a 1,000-byte value alone counts 1,009 bytes).
         */
        private DataSize maxRecordSize = DataSize.ofMegabytes(1);

        /**
         * What happens to old records, in Kafka's spelling: delete (segments deleted by the retention limits),
         * compact (the latest record of each key kept; every record sent needs a key) or compact,delete (both).
         */
        private String cleanupPolicy = "delete";

        /** A record of a compacted topic is not removed by compaction before it is this old. */
        private Duration minCompactionLag = Duration.ZERO;

        /** A tombstone (null value) that is the latest of its key is removed by compaction once older than this. */
        private Duration deleteRetention = Duration.ofDays(1);

        /**
         * Share (0 to 1) of a compacted partition's sealed bytes not yet compacted at which its background
         * compaction starts.
         */
        private double minCleanableDirtyRatio = 0.5;

        public int getPartitions() {
            return partitions;
        }

        public void setPartitions(int partitions) {
            this.partitions = partitions;
        }

        public Compression getCompression() {
            return compression;
        }

        public void setCompression(Compression compression) {
            this.compression = compression;
        }

        public DataSize getSegmentSize() {
            return segmentSize;
        }

        public void setSegmentSize(DataSize segmentSize) {
            this.segmentSize = segmentSize;
        }

        public Duration getSegmentAge() {
            return segmentAge;
        }

        public void setSegmentAge(Duration segmentAge) {
            this.segmentAge = segmentAge;
        }

        public @Nullable Duration getRetention() {
            return retention;
        }

        public void setRetention(@Nullable Duration retention) {
            this.retention = retention;
        }

        public DataSize getRetentionBytes() {
            return retentionBytes;
        }

        public void setRetentionBytes(DataSize retentionBytes) {
            this.retentionBytes = retentionBytes;
        }

        public String getFsync() {
            return fsync;
        }

        public void setFsync(String fsync) {
            this.fsync = fsync;
        }

        public DataSize getMaxRecordSize() {
            return maxRecordSize;
        }

        public void setMaxRecordSize(DataSize maxRecordSize) {
            this.maxRecordSize = maxRecordSize;
        }

        public String getCleanupPolicy() {
            return cleanupPolicy;
        }

        public void setCleanupPolicy(String cleanupPolicy) {
            this.cleanupPolicy = cleanupPolicy;
        }

        public Duration getMinCompactionLag() {
            return minCompactionLag;
        }

        public void setMinCompactionLag(Duration minCompactionLag) {
            this.minCompactionLag = minCompactionLag;
        }

        public Duration getDeleteRetention() {
            return deleteRetention;
        }

        public void setDeleteRetention(Duration deleteRetention) {
            this.deleteRetention = deleteRetention;
        }

        public double getMinCleanableDirtyRatio() {
            return minCleanableDirtyRatio;
        }

        public void setMinCleanableDirtyRatio(double minCleanableDirtyRatio) {
            this.minCleanableDirtyRatio = minCleanableDirtyRatio;
        }

        TopicConfig applyTo(String prefix, TopicConfig base) {
            return TopicKeys.apply(prefix, base, partitions, compression, segmentSize, segmentAge, retention,
                    retentionBytes, fsync, maxRecordSize, new TopicKeys.Compaction(cleanupPolicy, minCompactionLag,
                            deleteRetention, minCleanableDirtyRatio));
        }
    }

    /** The properties of {@link KafkoProperties.TopicProperties}. */
    abstract static class Overrides {

        /**
         * Partitions; an existing topic grows to this, and start-up fails if it has more (but a
         * dead-letter topic, name.DLT, may have as many as its original topic: it is grown to that).
         */
        private @Nullable Integer partitions;

        /** Codec applied to each frame: none, lz4 or zstd. */
        private @Nullable Compression compression;

        /** The most a segment file holds: a frame that would take it past this starts the next one. */
        private @Nullable DataSize segmentSize;

        /** A segment also rolls once its first record is this old (see kafko.defaults.segment-age). */
        private @Nullable Duration segmentAge;

        /**
         * Delete segments whose newest record is older than this; -1 (read as -1 ms: Kafka's retention.ms=-1)
         * keeps this topic's records forever, over a kafko.defaults.retention. Any other negative value fails
         * start-up.
         */
        private @Nullable Duration retention;

        /**
         * Delete the oldest segments while a partition holds at least this much without them (Kafka's
         * rule: it keeps at least this size, and passes it by up to a segment); -1 sets no limit.
         */
        private @Nullable DataSize retentionBytes;

        /** When appends are forced to disk: never, every-batch or interval:<duration>. */
        private @Nullable String fsync;

        /**
         * The largest record a producer may send, as the log stores it: key, value and headers with
         * their length fields and a few bytes of framing (a 1,000-byte value alone counts 1,009 bytes).
         */
        private @Nullable DataSize maxRecordSize;

        /** delete, compact or compact,delete (see kafko.defaults.cleanup-policy). */
        private @Nullable String cleanupPolicy;

        /** A record is not removed by compaction before it is this old. */
        private @Nullable Duration minCompactionLag;

        /** A tombstone that is the latest of its key is removed by compaction once older than this. */
        private @Nullable Duration deleteRetention;

        /** Share (0 to 1) of sealed bytes not yet compacted at which a partition's background compaction starts. */
        private @Nullable Double minCleanableDirtyRatio;

        public @Nullable Integer getPartitions() {
            return partitions;
        }

        public void setPartitions(@Nullable Integer partitions) {
            this.partitions = partitions;
        }

        public @Nullable Compression getCompression() {
            return compression;
        }

        public void setCompression(@Nullable Compression compression) {
            this.compression = compression;
        }

        public @Nullable DataSize getSegmentSize() {
            return segmentSize;
        }

        public void setSegmentSize(@Nullable DataSize segmentSize) {
            this.segmentSize = segmentSize;
        }

        public @Nullable Duration getSegmentAge() {
            return segmentAge;
        }

        public void setSegmentAge(@Nullable Duration segmentAge) {
            this.segmentAge = segmentAge;
        }

        public @Nullable Duration getRetention() {
            return retention;
        }

        public void setRetention(@Nullable Duration retention) {
            this.retention = retention;
        }

        public @Nullable DataSize getRetentionBytes() {
            return retentionBytes;
        }

        public void setRetentionBytes(@Nullable DataSize retentionBytes) {
            this.retentionBytes = retentionBytes;
        }

        public @Nullable String getFsync() {
            return fsync;
        }

        public void setFsync(@Nullable String fsync) {
            this.fsync = fsync;
        }

        public @Nullable DataSize getMaxRecordSize() {
            return maxRecordSize;
        }

        public void setMaxRecordSize(@Nullable DataSize maxRecordSize) {
            this.maxRecordSize = maxRecordSize;
        }

        public @Nullable String getCleanupPolicy() {
            return cleanupPolicy;
        }

        public void setCleanupPolicy(@Nullable String cleanupPolicy) {
            this.cleanupPolicy = cleanupPolicy;
        }

        public @Nullable Duration getMinCompactionLag() {
            return minCompactionLag;
        }

        public void setMinCompactionLag(@Nullable Duration minCompactionLag) {
            this.minCompactionLag = minCompactionLag;
        }

        public @Nullable Duration getDeleteRetention() {
            return deleteRetention;
        }

        public void setDeleteRetention(@Nullable Duration deleteRetention) {
            this.deleteRetention = deleteRetention;
        }

        public @Nullable Double getMinCleanableDirtyRatio() {
            return minCleanableDirtyRatio;
        }

        public void setMinCleanableDirtyRatio(@Nullable Double minCleanableDirtyRatio) {
            this.minCleanableDirtyRatio = minCleanableDirtyRatio;
        }

        TopicConfig applyTo(String prefix, TopicConfig base) {
            return TopicKeys.apply(prefix, base, partitions, compression, segmentSize, segmentAge, retention,
                    retentionBytes, fsync, maxRecordSize, new TopicKeys.Compaction(cleanupPolicy, minCompactionLag,
                            deleteRetention, minCleanableDirtyRatio));
        }
    }
}
