package dev.kafko;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How a topic is laid out and kept. Build one with {@link #builder()}; every field has a default,
 * so {@code TopicConfig.builder().build()} equals {@link #DEFAULTS}. The config is persisted in the
 * topic's directory and used again on reopen.
 *
 * @param partitions how many partitions (default 1; from 1 to {@link #MAX_PARTITIONS}; can grow later, never shrink)
 * @param compression the codec applied to each frame (default {@link Compression#NONE})
 * @param segmentBytes the most bytes a segment file holds (default 1 GiB): a frame that would take it
 *     past this starts the next segment, so a segment holds up to this many; a single frame larger
 *     than this still goes into an empty segment of its own (from {@link #MIN_SEGMENT_BYTES}, 1 KiB, to
 *     {@link #MAX_SEGMENT_BYTES}, 2 GiB minus one byte)
 * @param segmentAge a segment rolls once its first record is older than this (default 7 days):
 *     counted from when that record was appended, or, after the log is reopened, from the first
 *     record's timestamp if that is earlier than the reopen (so a segment whose first record carries
 *     an old explicit timestamp rolls at the first append after a reopen); durations beyond
 *     {@link #MAX_DURATION} are kept as {@link #MAX_DURATION} (never)
 * @param retention segments whose newest record is older than this are deleted, oldest first (when
 *     every record has, the active segment rolls and is deleted too, as in Kafka); {@code null} (the
 *     default) keeps records forever; durations beyond {@link #MAX_DURATION} are kept as it; not applied under
 *     {@link CleanupPolicy#COMPACT}
 * @param retentionBytes the oldest segments are deleted while the partition holds at least this many
 *     bytes without them (Kafka's rule); {@code -1} (the default) sets no limit; not applied under
 *     {@link CleanupPolicy#COMPACT}
 * @param fsync when appends are forced to disk (default {@link FsyncPolicy#NEVER})
 * @param maxRecordBytes the largest record a producer may send (default 1 MiB), counted as the log
 *     stores it: key, value and headers with their length fields, plus 5 bytes of record length and
 *     timestamp (a 1,000-byte value with no key and no headers counts 1,009 bytes); from {@link #MIN_RECORD_BYTES}
 *     (8) to {@link #MAX_RECORD_BYTES_LIMIT} (64 MiB)
 * @param indexIntervalBytes bytes of log between two entries of the sparse offset index (default 4 KiB; from 64
 *     bytes to 16 MiB)
 * @param cleanupPolicy what happens to old records (default {@link CleanupPolicy#DELETE}): deleted by segment under
 *     the retention limits, or compacted to the latest record of each key, or both (see {@link CleanupPolicy})
 * @param minCompactionLag a record is not removed by compaction before it is this old (default 0): compaction
 *     stops at the first segment holding a newer record (Kafka's {@code min.compaction.lag.ms}); at 0, timestamps
 *     do not count, and a record stamped ahead of the clock is compacted as any other, as in Kafka
 * @param deleteRetention a tombstone (a record whose value is null) that is the latest of its key is removed by
 *     the first compaction once it is older than this (default 1 day: Kafka's {@code delete.retention.ms}), so that a
 *     consumer that reads the partition within that time sees the deletion; counted from the tombstone's timestamp
 * @param minCleanableDirtyRatio the background compaction of a partition starts once the segments not compacted
 *     since the partition was opened hold at least this share of the bytes of its segments before the active one
 *     (default 0.5; from 0 to 1: Kafka's {@code min.cleanable.dirty.ratio})
 */
public record TopicConfig(
        int partitions,
        Compression compression,
        long segmentBytes,
        Duration segmentAge,
        @Nullable Duration retention,
        long retentionBytes,
        FsyncPolicy fsync,
        int maxRecordBytes,
        int indexIntervalBytes,
        CleanupPolicy cleanupPolicy,
        Duration minCompactionLag,
        Duration deleteRetention,
        double minCleanableDirtyRatio) {

    /** The smallest allowed segment size. */
    public static final long MIN_SEGMENT_BYTES = 1024;
    /** The largest allowed segment size: a segment is addressed with 32-bit positions. */
    public static final long MAX_SEGMENT_BYTES = Integer.MAX_VALUE;
    /** The smallest allowed {@link #maxRecordBytes()}: what a record with no key, value or headers takes. */
    public static final int MIN_RECORD_BYTES = 8;

    /** The largest allowed {@link #maxRecordBytes()}. */
    public static final int MAX_RECORD_BYTES_LIMIT = 64 * 1024 * 1024;
    /** The largest allowed partition count. */
    public static final int MAX_PARTITIONS = 10_000;

    /** The longest duration a config keeps: {@code Long.MAX_VALUE} milliseconds (about 292 million years). */
    public static final Duration MAX_DURATION = Duration.ofMillis(Long.MAX_VALUE);

    /** The defaults used for a topic created without a config. */
    public static final TopicConfig DEFAULTS = new TopicConfig(1, Compression.NONE, 1L << 30, Duration.ofDays(7),
            null, -1, FsyncPolicy.NEVER, 1024 * 1024, 4096, CleanupPolicy.DELETE, Duration.ZERO, Duration.ofDays(1),
            0.5);

    public TopicConfig {
        Objects.requireNonNull(compression, "compression");
        Objects.requireNonNull(segmentAge, "segmentAge");
        Objects.requireNonNull(fsync, "fsync");
        Objects.requireNonNull(cleanupPolicy, "cleanupPolicy");
        Objects.requireNonNull(minCompactionLag, "minCompactionLag");
        Objects.requireNonNull(deleteRetention, "deleteRetention");
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            throw new InvalidConfigException("partitions must be between 1 and " + MAX_PARTITIONS + ", was " + partitions);
        }
        if (segmentBytes < MIN_SEGMENT_BYTES || segmentBytes > MAX_SEGMENT_BYTES) {
            throw new InvalidConfigException("segmentBytes must be between " + MIN_SEGMENT_BYTES + " and "
                    + MAX_SEGMENT_BYTES + ", was " + segmentBytes);
        }
        if (segmentAge.isNegative() || segmentAge.isZero()) {
            throw new InvalidConfigException("segmentAge must be positive, was " + segmentAge);
        }
        if (retention != null && retention.isNegative()) {
            throw new InvalidConfigException("retention must not be negative, was " + retention
                    + " (use null to keep records forever)");
        }
        // the log counts ages in epoch milliseconds: a longer duration means "never" and is kept as the longest one
        segmentAge = saturated(segmentAge);
        retention = retention == null ? null : saturated(retention);
        if (retentionBytes < -1) {
            throw new InvalidConfigException("retentionBytes must be -1 (no limit) or at least 0, was " + retentionBytes);
        }
        if (maxRecordBytes < MIN_RECORD_BYTES || maxRecordBytes > MAX_RECORD_BYTES_LIMIT) {
            throw new InvalidConfigException("maxRecordBytes must be between " + MIN_RECORD_BYTES
                    + " (a record with no key, value or headers) and " + MAX_RECORD_BYTES_LIMIT + ", was " + maxRecordBytes);
        }
        if (indexIntervalBytes < 64 || indexIntervalBytes > 1 << 24) {
            throw new InvalidConfigException("indexIntervalBytes must be between 64 and " + (1 << 24)
                    + ", was " + indexIntervalBytes);
        }
        if (minCompactionLag.isNegative()) {
            throw new InvalidConfigException("minCompactionLag must not be negative, was " + minCompactionLag);
        }
        if (deleteRetention.isNegative()) {
            throw new InvalidConfigException("deleteRetention must not be negative, was " + deleteRetention);
        }
        minCompactionLag = saturated(minCompactionLag);
        deleteRetention = saturated(deleteRetention);
        if (!(minCleanableDirtyRatio >= 0 && minCleanableDirtyRatio <= 1)) {
            throw new InvalidConfigException("minCleanableDirtyRatio must be between 0 and 1, was "
                    + minCleanableDirtyRatio);
        }
    }

    private static Duration saturated(Duration d) {
        return d.compareTo(MAX_DURATION) > 0 ? MAX_DURATION : d;
    }

    /** A builder starting from {@link #DEFAULTS}. */
    public static Builder builder() {
        return new Builder(DEFAULTS);
    }

    /** A builder starting from this config. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds a {@link TopicConfig}; validation happens in {@link #build()}. */
    public static final class Builder {
        private int partitions;
        private Compression compression;
        private long segmentBytes;
        private Duration segmentAge;
        private @Nullable Duration retention;
        private long retentionBytes;
        private FsyncPolicy fsync;
        private int maxRecordBytes;
        private int indexIntervalBytes;
        private CleanupPolicy cleanupPolicy;
        private Duration minCompactionLag;
        private Duration deleteRetention;
        private double minCleanableDirtyRatio;

        private Builder(TopicConfig from) {
            partitions = from.partitions;
            compression = from.compression;
            segmentBytes = from.segmentBytes;
            segmentAge = from.segmentAge;
            retention = from.retention;
            retentionBytes = from.retentionBytes;
            fsync = from.fsync;
            maxRecordBytes = from.maxRecordBytes;
            indexIntervalBytes = from.indexIntervalBytes;
            cleanupPolicy = from.cleanupPolicy;
            minCompactionLag = from.minCompactionLag;
            deleteRetention = from.deleteRetention;
            minCleanableDirtyRatio = from.minCleanableDirtyRatio;
        }

        public Builder partitions(int partitions) {
            this.partitions = partitions;
            return this;
        }

        public Builder compression(Compression compression) {
            this.compression = compression;
            return this;
        }

        public Builder segmentBytes(long segmentBytes) {
            this.segmentBytes = segmentBytes;
            return this;
        }

        public Builder segmentAge(Duration segmentAge) {
            this.segmentAge = segmentAge;
            return this;
        }

        /** Keep records at most this long; {@code null} keeps them forever. */
        public Builder retention(@Nullable Duration retention) {
            this.retention = retention;
            return this;
        }

        /** Keep at most this many bytes per partition; {@code -1} sets no limit. */
        public Builder retentionBytes(long retentionBytes) {
            this.retentionBytes = retentionBytes;
            return this;
        }

        public Builder fsync(FsyncPolicy fsync) {
            this.fsync = fsync;
            return this;
        }

        public Builder maxRecordBytes(int maxRecordBytes) {
            this.maxRecordBytes = maxRecordBytes;
            return this;
        }

        public Builder indexIntervalBytes(int indexIntervalBytes) {
            this.indexIntervalBytes = indexIntervalBytes;
            return this;
        }

        /** Deleted by the retention limits, compacted, or both (see {@link CleanupPolicy}). */
        public Builder cleanupPolicy(CleanupPolicy cleanupPolicy) {
            this.cleanupPolicy = cleanupPolicy;
            return this;
        }

        /** {@link #cleanupPolicy cleanupPolicy(CleanupPolicy.COMPACT)}: Kafka's {@code TopicBuilder.compact()}. */
        public Builder compact() {
            return cleanupPolicy(CleanupPolicy.COMPACT);
        }

        /** A record is not removed by compaction before it is this old. */
        public Builder minCompactionLag(Duration minCompactionLag) {
            this.minCompactionLag = minCompactionLag;
            return this;
        }

        /** A tombstone that is the latest of its key is removed by compaction once it is older than this. */
        public Builder deleteRetention(Duration deleteRetention) {
            this.deleteRetention = deleteRetention;
            return this;
        }

        /** The share of uncompacted bytes at which the background compaction of a partition starts (0 to 1). */
        public Builder minCleanableDirtyRatio(double minCleanableDirtyRatio) {
            this.minCleanableDirtyRatio = minCleanableDirtyRatio;
            return this;
        }

        /** @throws InvalidConfigException naming the first value out of range */
        public TopicConfig build() {
            return new TopicConfig(partitions, compression, segmentBytes, segmentAge, retention, retentionBytes,
                    fsync, maxRecordBytes, indexIntervalBytes, cleanupPolicy, minCompactionLag, deleteRetention,
                    minCleanableDirtyRatio);
        }
    }
}
