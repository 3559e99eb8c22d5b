package dev.kafko.internal.broker;

/**
 * Internal: what the calling thread is doing for partitions, as counters that nest on its call
 * stack: {@link #OWNING} partitions (running a drain: the engine's own work, and the user code it
 * calls, an observer or a logger) and {@link #COMPLETING} rounds (completing a round's futures after
 * releasing its partition: the user's callbacks), and {@link #OBSERVING} (inside the user's observer). A
 * thread owning a partition must never wait for
 * another thread's work, nor run another partition's callbacks; a thread completing a round must
 * never wait for the rounds of others. One array per thread, fetched once per drain.
 */
final class ThreadMarks {

    /** How many partitions this thread owns at this moment. */
    static final int OWNING = 0;
    /** How many released rounds (of any partition) this thread is completing. */
    static final int COMPLETING = 1;
    /** How many calls into the user's {@code KafkoObserver} this thread is in (some hold a partition or a group). */
    static final int OBSERVING = 2;

    private static final ThreadLocal<int[]> MARKS = ThreadLocal.withInitial(() -> new int[3]);

    private ThreadMarks() {
    }

    /** The calling thread's counters, indexed by {@link #OWNING}, {@link #COMPLETING} and {@link #OBSERVING}. */
    static int[] get() {
        return MARKS.get();
    }
}
