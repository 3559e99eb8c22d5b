package dev.kafko.spring.listener;

/**
 * When a listener container commits offsets. In the {@code RECORD}, {@code BATCH}, {@code COUNT},
 * {@code TIME} and {@code COUNT_TIME} modes a record's offset is committed only after the listener method
 * returned for it (or the error handler recovered it): at-least-once. In the manual modes the listener decides:
 * under {@code MANUAL_IMMEDIATE} an acknowledgment made inside the method commits at once, before it returns.
 * Whatever the mode, a member commits what it processed before it pauses, seeks, gives up a partition or stops.
 * Before its error handler retries a failed record, a member commits what the poll processed before it as at the end
 * of a poll (under {@code COUNT} and {@code TIME} if due), and nothing from the failed record on.
 */
public enum AckMode {
    /** Commit after each record (each batch, for a batch listener). Fewest duplicates, most commits. */
    RECORD,
    /** Commit once the records of a poll are processed. The default. */
    BATCH,
    /** Commit what the listener {@link dev.kafko.spring.support.Acknowledgment acknowledged}, once the records of a poll are processed. */
    MANUAL,
    /** Commit at once when the listener acknowledges. */
    MANUAL_IMMEDIATE,
    /**
     * Commit once the records of a poll are processed and at least {@code ackCount} records
     * ({@code kafko.listener.ack-count}) were processed since the last commit.
     */
    COUNT,
    /**
     * Commit once the records of a poll are processed and at least {@code ackTime} ({@code kafko.listener.ack-time})
     * passed since the last commit; a member with nothing to poll looks again at each poll timeout.
     */
    TIME,
    /** {@link #COUNT} or {@link #TIME}, whichever comes first. */
    COUNT_TIME;

    /** Whether the listener method decides what is committed. */
    public boolean isManual() {
        return this == MANUAL || this == MANUAL_IMMEDIATE;
    }

    /** Whether the container commits after a number of records ({@link #COUNT}, {@link #COUNT_TIME}). */
    boolean counts() {
        return this == COUNT || this == COUNT_TIME;
    }

    /** Whether the container commits after a time ({@link #TIME}, {@link #COUNT_TIME}). */
    boolean times() {
        return this == TIME || this == COUNT_TIME;
    }
}
