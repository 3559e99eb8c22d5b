package dev.kafko;

import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Per-consumer options. Unset values fall back to the {@link KafkoOptions} of the instance. Start from
 * {@link #DEFAULTS} and change what you need ({@code ConsumerOptions.DEFAULTS.withOffsetReset(FAIL)}).
 *
 * @param maxPollRecords the most records one poll returns, or 0 for the instance default
 * @param offsetReset what to do with a position outside the log, or {@code null} for the instance default
 * @param rebalanceListener told about partition moves of a group member; not null
 *     ({@link ConsumerRebalanceListener#NOOP} for none). Never called for a consumer with {@code partitions}
 * @param partitions the partitions the consumer reads, assigned by hand (Kafka's {@code assign}), or {@code null}
 *     for the partitions kafko assigns (every partition of the topic for an anonymous consumer, a share of them
 *     for a group member); see {@link #withPartitions(Set)}. Kept sorted, unmodifiable
 */
public record ConsumerOptions(int maxPollRecords, @Nullable OffsetResetPolicy offsetReset,
                              ConsumerRebalanceListener rebalanceListener, @Nullable Set<Integer> partitions) {

    /** Everything from the instance defaults, no rebalance listener, the partitions kafko assigns. */
    public static final ConsumerOptions DEFAULTS = new ConsumerOptions(0, null, ConsumerRebalanceListener.NOOP);

    /**
     * @throws InvalidConfigException when {@code partitions} is empty
     * @throws InvalidPartitionException when one of {@code partitions} is negative
     */
    public ConsumerOptions {
        Objects.requireNonNull(rebalanceListener, "rebalanceListener");
        if (maxPollRecords < 0) {
            throw new InvalidConfigException("maxPollRecords must be at least 1 (or 0 for the default), was " + maxPollRecords);
        }
        if (partitions != null) {
            partitions = Collections.unmodifiableSortedSet(checked(partitions));
        }
    }

    /** Options with the partitions kafko assigns. */
    public ConsumerOptions(int maxPollRecords, @Nullable OffsetResetPolicy offsetReset,
                           ConsumerRebalanceListener rebalanceListener) {
        this(maxPollRecords, offsetReset, rebalanceListener, null);
    }

    private static TreeSet<Integer> checked(Set<Integer> partitions) {
        TreeSet<Integer> sorted = new TreeSet<>();
        for (Integer p : partitions) {
            Objects.requireNonNull(p, "partitions: a null partition");
            if (p < 0) {
                throw new InvalidPartitionException("partitions: partition " + p + " is negative");
            }
            sorted.add(p);
        }
        if (sorted.isEmpty()) {
            throw new InvalidConfigException("partitions must name at least one partition (or be null for the"
                    + " partitions kafko assigns), was empty");
        }
        return sorted;
    }

    public ConsumerOptions withMaxPollRecords(int maxPollRecords) {
        return new ConsumerOptions(maxPollRecords, offsetReset, rebalanceListener, partitions);
    }

    public ConsumerOptions withOffsetReset(@Nullable OffsetResetPolicy offsetReset) {
        return new ConsumerOptions(maxPollRecords, offsetReset, rebalanceListener, partitions);
    }

    public ConsumerOptions withRebalanceListener(ConsumerRebalanceListener rebalanceListener) {
        return new ConsumerOptions(maxPollRecords, offsetReset, rebalanceListener, partitions);
    }

    /**
     * These options with a fixed assignment, as Kafka's {@code consumer.assign(...)}: the consumer reads exactly
     * these partitions of its topic, for as long as it lives, and no others (none added to the topic later).
     * With {@link Kafko#consumer(String, ConsumerOptions)} it is anonymous and starts each at offset 0. With
     * {@link Kafko#groupConsumer(String, String, ConsumerOptions)} it is <em>not</em> a member of the group: it
     * joins nothing, takes no partition from the members (two consumers may then read one partition), gets no
     * rebalance callbacks, and counts in no {@link GroupInfo#members()}; it starts each partition at the group's
     * committed offset (else where the reset policy says, as a member does), and its commits write the group's
     * offsets, refused with {@link CommitFailedException} while the group has live members (as Kafka refuses a
     * commit from a consumer outside the group's generation).
     *
     * @param partitions the partitions, at least one; {@code null} for the partitions kafko assigns
     * @throws InvalidConfigException when {@code partitions} is empty
     * @throws InvalidPartitionException when one is negative; one the topic does not have is refused when the
     *     consumer is made
     */
    public ConsumerOptions withPartitions(@Nullable Set<Integer> partitions) {
        return new ConsumerOptions(maxPollRecords, offsetReset, rebalanceListener, partitions);
    }
}
