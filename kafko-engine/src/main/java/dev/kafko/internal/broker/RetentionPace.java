package dev.kafko.internal.broker;

/**
 * Internal: how many segments a partition's next retention run may delete, and whether more are due after the
 * last one. Deleting a segment is three unlinks, 50 us on some file systems and 4-5 ms on one mounted with
 * {@code discard}, and a run that deleted 2,000 segments held the partition's sends back for 8 s. A run deletes as
 * many segments as the partition's measured cost per segment fits in {@link #RUN_NANOS}, and at least
 * {@link #SEGMENTS_MIN} (so that retention keeps up with a producer that rolls small segments fast); while runs
 * leave segments due, the scheduler runs retention again, as a task of its own behind the sends queued meanwhile
 * and its other work. Written by the partition's owner; {@link #unfinished} read by the scheduler.
 */
final class RetentionPace {

    /** About how long one retention run deletes segments while the partition's sends wait. */
    static final long RUN_NANOS = 10_000_000;
    /** The fewest segments a retention run may delete, whatever they cost. */
    static final int SEGMENTS_MIN = 64;

    /** What deleting one segment cost, about (halfway between the last estimate and the last run). */
    private long nanosPerSegment = RUN_NANOS / SEGMENTS_MIN;
    private int max;
    private long startedNanos;
    private volatile boolean unfinished;

    /** A retention command begins: nothing is due unless its run says so. Returns the most segments it may delete. */
    int begin() {
        unfinished = false;
        max = (int) Math.max(SEGMENTS_MIN, Math.min(Integer.MAX_VALUE, RUN_NANOS / nanosPerSegment));
        startedNanos = System.nanoTime();
        return max;
    }

    /** The run of the command begun last deleted {@code deleted} segments. */
    void ran(int deleted) {
        if (deleted > 0) {
            long each = Math.max(1, (System.nanoTime() - startedNanos) / deleted);
            nanosPerSegment = Math.max(1, (nanosPerSegment + each) / 2);
        }
        unfinished = deleted == max;
    }

    /**
     * Whether the last retention command deleted as many segments as its run could, so that more may be due; false
     * after a command that found the partition closed, failed or deleted (it ran nothing).
     */
    boolean unfinished() {
        return unfinished;
    }
}
