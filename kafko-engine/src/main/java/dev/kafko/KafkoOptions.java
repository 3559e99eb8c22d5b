package dev.kafko;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * Options of a {@link Kafko} instance. Build with {@link #builder()}; {@link #DEFAULTS} are used by
 * {@link Kafko#open(java.nio.file.Path)}.
 *
 * @param topicDefaults the config of a topic created without one
 * @param clock the clock for record timestamps, segment age and retention (tests inject one)
 * @param maxPollRecords the most records one {@code poll} returns (default 500)
 * @param offsetReset what a consumer does with a position outside the log (default {@code EARLIEST})
 * @param retentionCheckInterval how often retention runs in the background (default 1 minute); it also runs
 *     once, in the background, when the instance opens
 * @param observer receives engine events (default: none)
 * @param fsyncMetadata whether metadata (topic config files, the directory entries of created topics
 *        and of new group offsets files) is forced to disk (default {@code true}); {@code false} only
 *        for a data directory that does not outlive its use, such as a test's temporary one: a machine
 *        crash may then lose topics and groups, and leave the directory unreadable. Records are forced
 *        by each topic's {@link FsyncPolicy} either way, with one difference under
 *        {@link FsyncPolicy#NEVER}: a rolled segment is forced at {@code close()} instead of at its roll
 *        (not at all when {@code durableClose} is false too), so a writer never waits at a roll for a whole
 *        segment to reach the disk.
 * @param linger how long a send that streams in with others may wait, at most, to be written in one
 *        frame with the sends that follow it (default 1 ms; zero writes every send at once). A send
 *        lingers only while sends come in a stream (less than 100 µs apart), no consumer of its
 *        partition is parked waiting (nor, for up to 32 send rounds, woken by an append and not
 *        yet running), the topic's policy is not {@link FsyncPolicy#EVERY_BATCH}, and
 *        nobody waits on it: blocking on its future ({@code join}, {@code get}, also of a future derived
 *        from it with {@code thenApply} and the like) writes it at once, as does a consumer about to
 *        wait for records, and {@link Kafko#close()}. Only a future observed through callbacks alone
 *        (or through {@code CompletableFuture.allOf}) may complete up to {@code linger} later.
 * @param maxQueuedBytes the most bytes of records that may wait in one partition's queue to be written
 *        (default 8 MiB), each record counted at its encoded size plus 64 bytes. A send that finds the
 *        queue full blocks until the partition has taken the queue to write it, like a Kafka
 *        producer's {@code buffer.memory}; a single request larger than the limit is taken when no
 *        record is queued. A queue fills only while another thread owns the partition: a thread that
 *        finds its partition idle writes its sends itself. The heap held for one partition's unwritten
 *        sends stays under about twice this limit (the queue, and the round being written) plus the
 *        sends that linger (64 KiB at most). Sends made from a {@link KafkoObserver} callback never wait.
 * @param maxBlock how long a send waits for room in a full queue before its future fails with
 *        {@link BufferExhaustedException} (default 60 s, as Kafka's {@code max.block.ms}); zero fails at once
 * @param durableClose whether {@link Kafko#close()} makes the log durable and clean (default {@code true}): every
 *        partition's records forced to disk, its index files and the marker that lets the next open skip
 *        recovery written. {@code false} only for a data directory deleted right after {@code close()}, such as a
 *        test's temporary one: the close still writes every pending send and completes its future, stops every
 *        thread and releases the lock, but forces nothing and writes nothing for a later open. Should the
 *        directory be opened again anyway, it is recovered as after a crash of the process: nothing written is
 *        lost unless the machine lost power.
 * @param compactionBufferBytes the most bytes (about) a compaction of a compacted topic's partition keeps its keys in
 *        (default 32 MiB, at least 64 KiB, at most 1 GiB; Kafka's {@code log.cleaner.dedupe.buffer.size}): each key
 *        takes its own length plus 31 to 57 bytes (the table doubles as it grows), the key kept whole, so
 *        that two keys never count as one. When a partition's keys do not fit, a compaction runs in passes, each as
 *        far as its keys fit, every pass reading the sealed segments before its end again (the background ones run
 *        them one after the other; {@link Topic#compact()} returns after the last)
 */
public record KafkoOptions(
        TopicConfig topicDefaults,
        Clock clock,
        int maxPollRecords,
        OffsetResetPolicy offsetReset,
        Duration retentionCheckInterval,
        KafkoObserver observer,
        boolean fsyncMetadata,
        Duration linger,
        long maxQueuedBytes,
        Duration maxBlock,
        boolean durableClose,
        long compactionBufferBytes) {

    private static final Duration DEFAULTS_LINGER = Duration.ofMillis(1);
    private static final long DEFAULTS_MAX_QUEUED_BYTES = 8L << 20;
    private static final Duration DEFAULTS_MAX_BLOCK = Duration.ofSeconds(60);
    private static final long DEFAULTS_COMPACTION_BUFFER_BYTES = 32L << 20;
    /** The smallest {@link #compactionBufferBytes()}. */
    public static final long MIN_COMPACTION_BUFFER_BYTES = 64L << 10;
    /** The largest {@link #compactionBufferBytes()}. */
    public static final long MAX_COMPACTION_BUFFER_BYTES = 1L << 30;

    /** The options {@link Kafko#open(java.nio.file.Path)} uses. */
    public static final KafkoOptions DEFAULTS = new KafkoOptions(TopicConfig.DEFAULTS, Clock.systemUTC(), 500,
            OffsetResetPolicy.EARLIEST, Duration.ofMinutes(1), KafkoObserver.NOOP, true, DEFAULTS_LINGER,
            DEFAULTS_MAX_QUEUED_BYTES, DEFAULTS_MAX_BLOCK, true, DEFAULTS_COMPACTION_BUFFER_BYTES);

    public KafkoOptions {
        Objects.requireNonNull(topicDefaults, "topicDefaults");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(offsetReset, "offsetReset");
        Objects.requireNonNull(retentionCheckInterval, "retentionCheckInterval");
        Objects.requireNonNull(observer, "observer");
        if (maxPollRecords < 1) {
            throw new InvalidConfigException("maxPollRecords must be at least 1, was " + maxPollRecords);
        }
        if (retentionCheckInterval.isNegative() || retentionCheckInterval.isZero()) {
            throw new InvalidConfigException("retentionCheckInterval must be positive, was " + retentionCheckInterval);
        }
        Objects.requireNonNull(linger, "linger");
        if (linger.isNegative()) {
            throw new InvalidConfigException("linger must not be negative, was " + linger);
        }
        if (maxQueuedBytes < 1) {
            throw new InvalidConfigException("maxQueuedBytes must be at least 1, was " + maxQueuedBytes);
        }
        Objects.requireNonNull(maxBlock, "maxBlock");
        if (maxBlock.isNegative()) {
            throw new InvalidConfigException("maxBlock must not be negative, was " + maxBlock);
        }
        if (compactionBufferBytes < MIN_COMPACTION_BUFFER_BYTES || compactionBufferBytes > MAX_COMPACTION_BUFFER_BYTES) {
            throw new InvalidConfigException("compactionBufferBytes must be between " + MIN_COMPACTION_BUFFER_BYTES
                    + " and " + MAX_COMPACTION_BUFFER_BYTES + ", was " + compactionBufferBytes);
        }
    }

    /** Options with the default {@code compactionBufferBytes}. */
    public KafkoOptions(TopicConfig topicDefaults, Clock clock, int maxPollRecords, OffsetResetPolicy offsetReset,
                        Duration retentionCheckInterval, KafkoObserver observer, boolean fsyncMetadata,
                        Duration linger, long maxQueuedBytes, Duration maxBlock, boolean durableClose) {
        this(topicDefaults, clock, maxPollRecords, offsetReset, retentionCheckInterval, observer, fsyncMetadata,
                linger, maxQueuedBytes, maxBlock, durableClose, DEFAULTS_COMPACTION_BUFFER_BYTES);
    }

    /** Options whose {@code close()} is durable ({@code durableClose} true). */
    public KafkoOptions(TopicConfig topicDefaults, Clock clock, int maxPollRecords, OffsetResetPolicy offsetReset,
                        Duration retentionCheckInterval, KafkoObserver observer, boolean fsyncMetadata,
                        Duration linger, long maxQueuedBytes, Duration maxBlock) {
        this(topicDefaults, clock, maxPollRecords, offsetReset, retentionCheckInterval, observer, fsyncMetadata,
                linger, maxQueuedBytes, maxBlock, true);
    }

    /** Options with the default {@code linger}, {@code maxQueuedBytes} and {@code maxBlock}. */
    public KafkoOptions(TopicConfig topicDefaults, Clock clock, int maxPollRecords, OffsetResetPolicy offsetReset,
                        Duration retentionCheckInterval, KafkoObserver observer, boolean fsyncMetadata) {
        this(topicDefaults, clock, maxPollRecords, offsetReset, retentionCheckInterval, observer, fsyncMetadata,
                DEFAULTS_LINGER, DEFAULTS_MAX_QUEUED_BYTES, DEFAULTS_MAX_BLOCK);
    }

    /** Options that force metadata to disk ({@code fsyncMetadata} true), with the defaults for the rest. */
    public KafkoOptions(TopicConfig topicDefaults, Clock clock, int maxPollRecords, OffsetResetPolicy offsetReset,
                        Duration retentionCheckInterval, KafkoObserver observer) {
        this(topicDefaults, clock, maxPollRecords, offsetReset, retentionCheckInterval, observer, true);
    }

    public static Builder builder() {
        return new Builder(DEFAULTS);
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds {@link KafkoOptions}. */
    public static final class Builder {
        private TopicConfig topicDefaults;
        private Clock clock;
        private int maxPollRecords;
        private OffsetResetPolicy offsetReset;
        private Duration retentionCheckInterval;
        private KafkoObserver observer;
        private boolean fsyncMetadata;
        private Duration linger;
        private long maxQueuedBytes;
        private Duration maxBlock;
        private boolean durableClose;
        private long compactionBufferBytes;

        private Builder(KafkoOptions from) {
            topicDefaults = from.topicDefaults;
            clock = from.clock;
            maxPollRecords = from.maxPollRecords;
            offsetReset = from.offsetReset;
            retentionCheckInterval = from.retentionCheckInterval;
            observer = from.observer;
            fsyncMetadata = from.fsyncMetadata;
            linger = from.linger;
            maxQueuedBytes = from.maxQueuedBytes;
            maxBlock = from.maxBlock;
            durableClose = from.durableClose;
            compactionBufferBytes = from.compactionBufferBytes;
        }

        public Builder topicDefaults(TopicConfig topicDefaults) {
            this.topicDefaults = topicDefaults;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        public Builder maxPollRecords(int maxPollRecords) {
            this.maxPollRecords = maxPollRecords;
            return this;
        }

        public Builder offsetReset(OffsetResetPolicy offsetReset) {
            this.offsetReset = offsetReset;
            return this;
        }

        public Builder retentionCheckInterval(Duration retentionCheckInterval) {
            this.retentionCheckInterval = retentionCheckInterval;
            return this;
        }

        public Builder observer(KafkoObserver observer) {
            this.observer = observer;
            return this;
        }

        /** {@code false} skips fsyncs of topic metadata: only for a data directory thrown away after use. */
        public Builder fsyncMetadata(boolean fsyncMetadata) {
            this.fsyncMetadata = fsyncMetadata;
            return this;
        }

        /** The longest a streaming send may wait to share a frame; zero writes every send at once. */
        public Builder linger(Duration linger) {
            this.linger = linger;
            return this;
        }

        /** The most bytes of records one partition's queue of unwritten sends holds. */
        public Builder maxQueuedBytes(long maxQueuedBytes) {
            this.maxQueuedBytes = maxQueuedBytes;
            return this;
        }

        /** How long a send waits for room in a full partition queue; zero fails at once. */
        public Builder maxBlock(Duration maxBlock) {
            this.maxBlock = maxBlock;
            return this;
        }

        /**
         * {@code false}: {@code close()} forces nothing and writes no index files nor clean-shutdown marker, only
         * for a data directory deleted right after it (see {@link KafkoOptions#durableClose()}).
         */
        public Builder durableClose(boolean durableClose) {
            this.durableClose = durableClose;
            return this;
        }

        /** The most bytes a compaction keeps a partition's keys in before it goes on in another pass. */
        public Builder compactionBufferBytes(long compactionBufferBytes) {
            this.compactionBufferBytes = compactionBufferBytes;
            return this;
        }

        public KafkoOptions build() {
            return new KafkoOptions(topicDefaults, clock, maxPollRecords, offsetReset, retentionCheckInterval, observer,
                    fsyncMetadata, linger, maxQueuedBytes, maxBlock, durableClose, compactionBufferBytes);
        }
    }
}
