package dev.kafko;

/**
 * What a consumer does when its position is outside the log: below the log start offset (records
 * were deleted by retention) or above the end offset (a seek past the end, or a committed offset
 * from a log that was since cut back by recovery). A position above the end is moved when it is
 * set (by {@code seek} or when a group member takes a partition), so that records appended later
 * are all read; one below the log start is found at the next {@code poll}.
 */
public enum OffsetResetPolicy {
    /** Move to the log start offset (below) or the end offset (above). The default. */
    EARLIEST,
    /** Move to the end offset: skip to new records. */
    LATEST,
    /** Throw {@link OffsetOutOfRangeException} from {@code poll}. */
    FAIL
}
