package dev.kafko.internal.broker;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Internal: lets a thread wait until every round of a partition released before some moment has
 * completed its futures. An owner completes its round's futures after releasing the partition, so
 * two rounds may complete at once on different threads, and a later round (a flush) can end while
 * an earlier one is still completing. Rounds count in an {@link Epoch}; the owner {@link #flip}s
 * to a new epoch at the moment a waiter cares about, and the waiter then waits for the old epoch's count,
 * and those of the epochs before it, to reach zero (two epochs used in turn were not enough: a third flip
 * went back to the epoch of rounds released before the second, and its waiter missed the rounds still
 * completing in the other one). Any thread; the flip by the owner only. A waiter parks on a lock's
 * condition, never in a monitor (which would pin a virtual thread to its carrier on Java 21 to 23):
 * nobody spins.
 *
 * <p>A thread that is itself completing a round (of any partition: a flush called from a send's
 * callback) never waits: it could wait for a round whose thread waits for its own, on this partition
 * or another. Such a flush returns once the sends are written and the rounds it drained completed.
 */
final class CompletionBarrier {

    /**
     * The rounds released between two flips, and the epoch before it whose rounds may still be completing. An
     * epoch that is not the current one gets no more rounds: once its count is zero it stays zero, and the owner
     * unlinks it from the chain at a flip (a waiter still holding it reads on through its own link, to older
     * epochs only).
     */
    static final class Epoch {

        private final AtomicInteger completing = new AtomicInteger();
        /** The previous epoch still completing rounds, or null; unlinked by the owner at a flip. */
        private volatile @Nullable Epoch before;

        private Epoch(@Nullable Epoch before) {
            this.before = before;
        }
    }

    private volatile Epoch epoch = new Epoch(null);
    private volatile int waiters;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition drained = lock.newCondition();

    /**
     * The owner, before it releases a round whose futures it will complete: the ticket for
     * {@link #done}, which the same thread calls once they are. {@code marks} are the thread's
     * {@link ThreadMarks}.
     */
    Epoch enter(int[] marks) {
        Epoch e = epoch;
        e.completing.incrementAndGet();
        marks[ThreadMarks.COMPLETING]++;
        return e;
    }

    /** The round of {@code ticket} has completed its futures. */
    void done(Epoch ticket, int[] marks) {
        marks[ThreadMarks.COMPLETING]--;
        if (ticket.completing.decrementAndGet() == 0 && waiters > 0) {
            lock.lock();
            try {
                drained.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * The owner: rounds released from now on count in a new epoch; returns the one to wait for (with those
     * before it).
     */
    Epoch flip() {
        Epoch old = epoch;
        // unlink the epochs before it that have completed (they never count a round again)
        Epoch kept = old;
        for (Epoch b = old.before; b != null; b = b.before) {
            if (b.completing.get() == 0) {
                kept.before = b.before;
            } else {
                kept = b;
            }
        }
        epoch = new Epoch(old);
        return old;
    }

    /** Whether no round of {@code epoch}, nor of an epoch before it, is completing. */
    private static boolean completed(@Nullable Epoch epoch) {
        for (Epoch e = epoch; e != null; e = e.before) {
            if (e.completing.get() != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * As {@link #await(Epoch)}, for at most {@code nanos}; false when rounds of {@code epoch} (or before it) were
     * still completing then.
     */
    boolean await(@Nullable Epoch epoch, long nanos) throws InterruptedException {
        if (completed(epoch) || ThreadMarks.get()[ThreadMarks.COMPLETING] > 0) {
            return true;
        }
        long left = nanos;
        lock.lock();
        try {
            waiters++;
            while (!completed(epoch)) {
                if (left <= 0) {
                    return false;
                }
                left = drained.awaitNanos(left);
            }
            return true;
        } finally {
            waiters--;
            lock.unlock();
        }
    }

    /**
     * Waits until no round of {@code epoch}, nor of an epoch before it, is completing; returns at once on a thread
     * that is completing a round itself (and for no epoch: a command that failed before it was executed).
     */
    void await(@Nullable Epoch epoch) throws InterruptedException {
        if (completed(epoch) || ThreadMarks.get()[ThreadMarks.COMPLETING] > 0) {
            return;
        }
        lock.lock();
        try {
            waiters++;
            while (!completed(epoch)) {
                drained.await();
            }
        } finally {
            waiters--;
            lock.unlock();
        }
    }
}
