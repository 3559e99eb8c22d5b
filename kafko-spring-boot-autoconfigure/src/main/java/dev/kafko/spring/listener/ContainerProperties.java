package dev.kafko.spring.listener;

import java.time.Duration;
import java.util.Objects;

/**
 * The settings of one listener container.
 *
 * @param ackMode when offsets are committed
 * @param concurrency how many members share each topic's partitions (one thread each)
 * @param pollTimeout how long one poll waits for records
 * @param maxPollRecords the most records one poll returns
 * @param shutdownTimeout how long {@code stop()} waits for a member to finish its record in hand
 */
public record ContainerProperties(AckMode ackMode, int concurrency, Duration pollTimeout, int maxPollRecords,
                                  Duration shutdownTimeout) {

    /** BATCH, 1 member, 1 s poll, 500 records, 10 s to stop. */
    public static final ContainerProperties DEFAULTS = new ContainerProperties(AckMode.BATCH, 1,
            Duration.ofSeconds(1), 500, Duration.ofSeconds(10));

    public ContainerProperties {
        Objects.requireNonNull(ackMode, "ackMode");
        Objects.requireNonNull(pollTimeout, "pollTimeout");
        Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be at least 1, was " + concurrency);
        }
        if (maxPollRecords < 1) {
            throw new IllegalArgumentException("maxPollRecords must be at least 1, was " + maxPollRecords);
        }
        if (shutdownTimeout.isNegative()) {
            throw new IllegalArgumentException("shutdownTimeout must not be negative, was " + shutdownTimeout);
        }
        if (pollTimeout.isNegative() || pollTimeout.isZero()) {
            throw new IllegalArgumentException("pollTimeout must be positive, was " + pollTimeout);
        }
    }

    public ContainerProperties withAckMode(AckMode ackMode) {
        return new ContainerProperties(ackMode, concurrency, pollTimeout, maxPollRecords, shutdownTimeout);
    }

    public ContainerProperties withConcurrency(int concurrency) {
        return new ContainerProperties(ackMode, concurrency, pollTimeout, maxPollRecords, shutdownTimeout);
    }
}
