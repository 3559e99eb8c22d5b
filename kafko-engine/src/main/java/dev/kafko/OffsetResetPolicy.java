package dev.kafko;

/**
 * What a consumer does when its position is outside the log: below the log start offset (records
 * were deleted by retention) or above the end offset (for example a committed offset from a log
 * that was since cut back by recovery).
 */
public enum OffsetResetPolicy {
    /** Move to the log start offset (below) or the end offset (above). The default. */
    EARLIEST,
    /** Move to the end offset: skip to new records. */
    LATEST,
    /** Throw {@link OffsetOutOfRangeException} from {@code poll}. */
    FAIL
}
