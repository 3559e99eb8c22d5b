package dev.kafko;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Per-consumer options. Unset values fall back to the {@link KafkoOptions} of the instance. Start from
 * {@link #DEFAULTS} and change what you need ({@code ConsumerOptions.DEFAULTS.withOffsetReset(FAIL)}).
 *
 * @param maxPollRecords the most records one poll returns, or 0 for the instance default
 * @param offsetReset what to do with a position outside the log, or {@code null} for the instance default
 * @param rebalanceListener told about partition moves of a group member; not null
 *     ({@link ConsumerRebalanceListener#NOOP} for none)
 */
public record ConsumerOptions(int maxPollRecords, @Nullable OffsetResetPolicy offsetReset,
                              ConsumerRebalanceListener rebalanceListener) {

    /** Everything from the instance defaults, no rebalance listener. */
    public static final ConsumerOptions DEFAULTS = new ConsumerOptions(0, null, ConsumerRebalanceListener.NOOP);

    public ConsumerOptions {
        Objects.requireNonNull(rebalanceListener, "rebalanceListener");
        if (maxPollRecords < 0) {
            throw new InvalidConfigException("maxPollRecords must be at least 1 (or 0 for the default), was " + maxPollRecords);
        }
    }

    public ConsumerOptions withMaxPollRecords(int maxPollRecords) {
        return new ConsumerOptions(maxPollRecords, offsetReset, rebalanceListener);
    }

    public ConsumerOptions withOffsetReset(OffsetResetPolicy offsetReset) {
        return new ConsumerOptions(maxPollRecords, offsetReset, rebalanceListener);
    }

    public ConsumerOptions withRebalanceListener(ConsumerRebalanceListener rebalanceListener) {
        return new ConsumerOptions(maxPollRecords, offsetReset, rebalanceListener);
    }
}
