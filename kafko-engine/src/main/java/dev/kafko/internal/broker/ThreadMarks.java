package dev.kafko.internal.broker;

import java.util.ArrayDeque;
import java.util.function.Supplier;

/**
 * Internal: what the calling thread is doing for partitions, as counters that nest on its call
 * stack: {@link #OWNING} partitions (running a drain: the engine's own work, and the user code it
 * calls, an observer or a logger) and {@link #COMPLETING} rounds (completing a round's futures after
 * releasing its partition: the user's callbacks), and {@link #OBSERVING} (inside the user's observer). A
 * thread owning a partition must never wait for
 * another thread's work, nor run another partition's callbacks; a thread completing a round must
 * never wait for the rounds of others. One array per thread, fetched once per drain.
 *
 * <p>{@link #NESTED} counts the callbacks this thread runs inside the call that added them to a future
 * already complete ({@code send(...).whenComplete(...)} on a send written before it returned): a chain of
 * sends each made from the previous one's callback nests one such call per link. A send made
 * {@link DeferredSends#DEPTH} deep is only queued, its partition kept in {@link #deferred()}
 * ({@link #DEFERRED} of them), and the outermost of those calls, or the drain that began the chain, runs
 * it once the stack unwound ({@link #RUNNING_DEFERRED} while it does): the chain goes on as a loop.
 */
final class ThreadMarks {

    /** How many partitions this thread owns at this moment. */
    static final int OWNING = 0;
    /** How many released rounds (of any partition) this thread is completing. */
    static final int COMPLETING = 1;
    /** How many calls into the user's {@code KafkoObserver} this thread is in (some hold a partition or a group). */
    static final int OBSERVING = 2;
    /** How many callbacks this thread runs inside the calls that added them to futures already complete. */
    static final int NESTED = 3;
    /** How many partitions {@link #deferred()} holds. */
    static final int DEFERRED = 4;
    /** 1 while the thread drains its deferred partitions (the drains it runs then leave them to that loop). */
    static final int RUNNING_DEFERRED = 5;

    private static final ThreadLocal<int[]> MARKS = ThreadLocal.withInitial(new Supplier<>() {
        @Override
        public int[] get() {
            return new int[6];
        }
    });
    private static final ThreadLocal<ArrayDeque<PartitionActor>> DEFERRED_PARTITIONS =
            ThreadLocal.withInitial(new Supplier<>() {
                @Override
                public ArrayDeque<PartitionActor> get() {
                    return new ArrayDeque<>();
                }
            });

    private ThreadMarks() {
    }

    /** The calling thread's counters, indexed by {@link #OWNING}, {@link #COMPLETING} and the others. */
    static int[] get() {
        return MARKS.get();
    }

    /** The partitions the calling thread queued sends to without draining them (see the class comment). */
    static ArrayDeque<PartitionActor> deferred() {
        return DEFERRED_PARTITIONS.get();
    }
}
