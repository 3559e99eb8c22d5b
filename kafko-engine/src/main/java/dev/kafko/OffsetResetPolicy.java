package dev.kafko;

/**
 * What a consumer does when its position is outside the log: below the log start offset (records
 * were deleted by retention) or above the end offset (a seek past the end, or an offset committed past
 * it). A committed offset found past the end when the instance opens (recovery cut the log back, or the
 * directory was restored from a copy taken while it was written) is moved to the end at open, whatever
 * the policy, so that the records appended after the open are all read. Under {@code EARLIEST} and {@code LATEST} a
 * position above the end is moved to the end when it is set (by {@code seek} or when a group member
 * takes a partition), so that records appended later are all read; under {@code FAIL} it is kept, and
 * the next {@code poll} throws if it is still above the end then. One below the log start is found at
 * the next {@code poll}.
 *
 * <p>A group member that starts on a partition without a committed offset starts at the log start
 * ({@code EARLIEST}, {@code FAIL}) or at its end ({@code LATEST}), as it is when the member takes the
 * partition: under {@code LATEST}, records sent to a partition added by
 * {@link Topic#increasePartitions} before a member's next poll takes it are not read, as in Kafka.
 */
public enum OffsetResetPolicy {
    /**
     * Move to the log start offset (below) or the end offset (above). The default. Unlike Kafka's
     * {@code auto.offset.reset=earliest}, which sends a position above the end back to the log start, the
     * records below the end are not read again.
     */
    EARLIEST,
    /** Move to the end offset: skip to new records. */
    LATEST,
    /**
     * Throw {@link OffsetOutOfRangeException} from {@code poll}. A group member without a committed offset
     * still starts at the log start, where Kafka's {@code auto.offset.reset=none} throws.
     */
    FAIL
}
