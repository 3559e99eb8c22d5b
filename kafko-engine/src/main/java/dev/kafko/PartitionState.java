package dev.kafko;

/** The life state of a partition. */
public enum PartitionState {
    /** Accepting appends and reads. */
    RUNNING,
    /** An I/O error stopped it; see {@link PartitionInfo#failure()}. */
    FAILED,
    /** Its topic was deleted or its {@link Kafko} closed. */
    CLOSED
}
