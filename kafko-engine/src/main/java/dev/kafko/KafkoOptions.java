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
 * @param retentionCheckInterval how often retention runs in the background (default 1 minute)
 * @param observer receives engine events (default: none)
 * @param fsyncMetadata whether metadata (topic config files, the directory entries of created topics
 *        and of new group offsets files) is forced to disk (default {@code true}); {@code false} only
 *        for a data directory that does not outlive its use, such as a test's temporary one: a machine
 *        crash may then lose topics and groups. Records are forced by each topic's
 *        {@link FsyncPolicy} either way.
 */
public record KafkoOptions(
        TopicConfig topicDefaults,
        Clock clock,
        int maxPollRecords,
        OffsetResetPolicy offsetReset,
        Duration retentionCheckInterval,
        KafkoObserver observer,
        boolean fsyncMetadata) {

    /** The options {@link Kafko#open(java.nio.file.Path)} uses. */
    public static final KafkoOptions DEFAULTS = new KafkoOptions(TopicConfig.DEFAULTS, Clock.systemUTC(), 500,
            OffsetResetPolicy.EARLIEST, Duration.ofMinutes(1), KafkoObserver.NOOP, true);

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
    }

    /** Options that force metadata to disk ({@code fsyncMetadata} true). */
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

        private Builder(KafkoOptions from) {
            topicDefaults = from.topicDefaults;
            clock = from.clock;
            maxPollRecords = from.maxPollRecords;
            offsetReset = from.offsetReset;
            retentionCheckInterval = from.retentionCheckInterval;
            observer = from.observer;
            fsyncMetadata = from.fsyncMetadata;
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

        public KafkoOptions build() {
            return new KafkoOptions(topicDefaults, clock, maxPollRecords, offsetReset, retentionCheckInterval, observer,
                    fsyncMetadata);
        }
    }
}
