package dev.kafko.spring.listener;

import dev.kafko.OffsetResetPolicy;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The settings of one listener container.
 *
 * @param ackMode when offsets are committed
 * @param concurrency how many members share each topic's partitions (one thread each)
 * @param pollTimeout how long one poll waits for records
 * @param maxPollRecords the most records one poll returns
 * @param shutdownTimeout how long {@code stop()} waits for a member to finish its record in hand
 * @param ackCount the records processed between two commits under {@link AckMode#COUNT} and
 *                 {@link AckMode#COUNT_TIME}
 * @param ackTime the time between two commits under {@link AckMode#TIME} and {@link AckMode#COUNT_TIME}
 * @param idleEventInterval how long a member goes without records before it publishes a
 *     {@link dev.kafko.spring.event.ListenerContainerIdleEvent} (again after each further interval without
 *     records), and calls {@link ConsumerSeekAware#onIdleContainer}; {@code null}: never
 * @param idlePartitionEventInterval how long a partition a member reads goes without records before the member
 *     publishes a {@link dev.kafko.spring.event.ListenerContainerPartitionIdleEvent} for it (again after each
 *     further interval without records of it); {@code null}: never
 * @param offsetReset where the container's group starts on a partition it has no commit for (and what its consumers do
 *     with a position outside the log); {@code null}: the instance's {@code kafko.offset-reset}
 * @param clientId what names the container's members, {@code <clientId>-0}, {@code <clientId>-1}, ... (their threads
 *     and log lines), as spring-kafka's client id; {@code null}: the listener id
 */
public record ContainerProperties(AckMode ackMode, int concurrency, Duration pollTimeout, int maxPollRecords,
                                  Duration shutdownTimeout, int ackCount, Duration ackTime,
                                  @Nullable Duration idleEventInterval, @Nullable Duration idlePartitionEventInterval,
                                  @Nullable OffsetResetPolicy offsetReset, @Nullable String clientId) {

    /** The records between two commits under the count ack modes unless set: 1, as spring-kafka's. */
    public static final int DEFAULT_ACK_COUNT = 1;
    /** The time between two commits under the time ack modes unless set: 5 s, as spring-kafka's. */
    public static final Duration DEFAULT_ACK_TIME = Duration.ofSeconds(5);

    /** BATCH, 1 member, 1 s poll, 500 records, 10 s to stop. */
    public static final ContainerProperties DEFAULTS = new ContainerProperties(AckMode.BATCH, 1,
            Duration.ofSeconds(1), 500, Duration.ofSeconds(10));

    /** Settings with the default {@code ackCount} and {@code ackTime}. */
    public ContainerProperties(AckMode ackMode, int concurrency, Duration pollTimeout, int maxPollRecords,
                               Duration shutdownTimeout) {
        this(ackMode, concurrency, pollTimeout, maxPollRecords, shutdownTimeout, DEFAULT_ACK_COUNT, DEFAULT_ACK_TIME);
    }

    /** Settings without idle events. */
    public ContainerProperties(AckMode ackMode, int concurrency, Duration pollTimeout, int maxPollRecords,
                               Duration shutdownTimeout, int ackCount, Duration ackTime) {
        this(ackMode, concurrency, pollTimeout, maxPollRecords, shutdownTimeout, ackCount, ackTime, null);
    }

    /** Settings without partition idle events. */
    public ContainerProperties(AckMode ackMode, int concurrency, Duration pollTimeout, int maxPollRecords,
                               Duration shutdownTimeout, int ackCount, Duration ackTime,
                               @Nullable Duration idleEventInterval) {
        this(ackMode, concurrency, pollTimeout, maxPollRecords, shutdownTimeout, ackCount, ackTime, idleEventInterval,
                null);
    }

    /** Settings with the instance's offset reset. */
    public ContainerProperties(AckMode ackMode, int concurrency, Duration pollTimeout, int maxPollRecords,
                               Duration shutdownTimeout, int ackCount, Duration ackTime,
                               @Nullable Duration idleEventInterval, @Nullable Duration idlePartitionEventInterval) {
        this(ackMode, concurrency, pollTimeout, maxPollRecords, shutdownTimeout, ackCount, ackTime, idleEventInterval,
                idlePartitionEventInterval, null);
    }

    /** Settings whose members are named after the listener id. */
    public ContainerProperties(AckMode ackMode, int concurrency, Duration pollTimeout, int maxPollRecords,
                               Duration shutdownTimeout, int ackCount, Duration ackTime,
                               @Nullable Duration idleEventInterval, @Nullable Duration idlePartitionEventInterval,
                               @Nullable OffsetResetPolicy offsetReset) {
        this(ackMode, concurrency, pollTimeout, maxPollRecords, shutdownTimeout, ackCount, ackTime, idleEventInterval,
                idlePartitionEventInterval, offsetReset, null);
    }

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
        Objects.requireNonNull(ackTime, "ackTime");
        if (ackCount < 1) {
            throw new IllegalArgumentException("ackCount must be at least 1, was " + ackCount);
        }
        if (ackTime.isNegative() || ackTime.isZero()) {
            throw new IllegalArgumentException("ackTime must be positive, was " + ackTime);
        }
        if (idleEventInterval != null && (idleEventInterval.isNegative() || idleEventInterval.isZero())) {
            throw new IllegalArgumentException("idleEventInterval must be positive (or null: no idle events), was "
                    + idleEventInterval);
        }
        if (idlePartitionEventInterval != null
                && (idlePartitionEventInterval.isNegative() || idlePartitionEventInterval.isZero())) {
            throw new IllegalArgumentException("idlePartitionEventInterval must be positive (or null: no partition"
                    + " idle events), was " + idlePartitionEventInterval);
        }
        if (clientId != null && clientId.isBlank()) {
            throw new IllegalArgumentException("clientId must not be blank (or null: the listener id)");
        }
    }

    /** These settings with polls of at most {@code maxPollRecords} records. */
    public ContainerProperties withMaxPollRecords(int maxPollRecords) {
        return new ContainerProperties(ackMode, concurrency, pollTimeout, maxPollRecords, shutdownTimeout, ackCount,
                ackTime, idleEventInterval, idlePartitionEventInterval, offsetReset, clientId);
    }

    /** These settings with the group starting where {@code offsetReset} says ({@code null}: the instance's policy). */
    public ContainerProperties withOffsetReset(@Nullable OffsetResetPolicy offsetReset) {
        return new ContainerProperties(ackMode, concurrency, pollTimeout, maxPollRecords, shutdownTimeout, ackCount,
                ackTime, idleEventInterval, idlePartitionEventInterval, offsetReset, clientId);
    }

    public ContainerProperties withAckMode(AckMode ackMode) {
        return new ContainerProperties(ackMode, concurrency, pollTimeout, maxPollRecords, shutdownTimeout, ackCount,
                ackTime, idleEventInterval, idlePartitionEventInterval, offsetReset, clientId);
    }

    public ContainerProperties withConcurrency(int concurrency) {
        return new ContainerProperties(ackMode, concurrency, pollTimeout, maxPollRecords, shutdownTimeout, ackCount,
                ackTime, idleEventInterval, idlePartitionEventInterval, offsetReset, clientId);
    }

    public ContainerProperties withAckCount(int ackCount) {
        return new ContainerProperties(ackMode, concurrency, pollTimeout, maxPollRecords, shutdownTimeout, ackCount,
                ackTime, idleEventInterval, idlePartitionEventInterval, offsetReset, clientId);
    }

    public ContainerProperties withAckTime(Duration ackTime) {
        return new ContainerProperties(ackMode, concurrency, pollTimeout, maxPollRecords, shutdownTimeout, ackCount,
                ackTime, idleEventInterval, idlePartitionEventInterval, offsetReset, clientId);
    }

    /** These settings with idle events after {@code idleEventInterval} without records ({@code null}: none). */
    public ContainerProperties withIdleEventInterval(@Nullable Duration idleEventInterval) {
        return new ContainerProperties(ackMode, concurrency, pollTimeout, maxPollRecords, shutdownTimeout, ackCount,
                ackTime, idleEventInterval, idlePartitionEventInterval, offsetReset, clientId);
    }

    /**
     * These settings with partition idle events after {@code idlePartitionEventInterval} without records of a
     * partition ({@code null}: none).
     */
    public ContainerProperties withIdlePartitionEventInterval(@Nullable Duration idlePartitionEventInterval) {
        return new ContainerProperties(ackMode, concurrency, pollTimeout, maxPollRecords, shutdownTimeout, ackCount,
                ackTime, idleEventInterval, idlePartitionEventInterval, offsetReset, clientId);
    }

    /** These settings with the members named {@code <clientId>-0}, ... ({@code null}: after the listener id). */
    public ContainerProperties withClientId(@Nullable String clientId) {
        return new ContainerProperties(ackMode, concurrency, pollTimeout, maxPollRecords, shutdownTimeout, ackCount,
                ackTime, idleEventInterval, idlePartitionEventInterval, offsetReset, clientId);
    }
}
