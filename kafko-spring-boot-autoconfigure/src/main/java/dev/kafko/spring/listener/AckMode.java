package dev.kafko.spring.listener;

/**
 * When a listener container commits offsets. In the {@code RECORD} and {@code BATCH} modes a
 * record's offset is committed only after the listener method returned for it (or the error
 * handler recovered it): at-least-once. In the manual modes the listener decides: under
 * {@code MANUAL_IMMEDIATE} an acknowledgment made inside the method commits at once, before it returns.
 */
public enum AckMode {
    /** Commit after each record (each batch, for a batch listener). Fewest duplicates, most commits. */
    RECORD,
    /** Commit once the records of a poll are processed. The default. */
    BATCH,
    /** Commit what the listener {@link dev.kafko.spring.support.Acknowledgment acknowledged}, once the records of a poll are processed. */
    MANUAL,
    /** Commit at once when the listener acknowledges. */
    MANUAL_IMMEDIATE;

    /** Whether the listener method decides what is committed. */
    public boolean isManual() {
        return this == MANUAL || this == MANUAL_IMMEDIATE;
    }
}
