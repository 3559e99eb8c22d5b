package dev.kafko.internal.broker;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Internal: lets a thread wait until every round of a partition released before some moment has
 * completed its futures. An owner completes its round's futures after releasing the partition, so
 * two rounds may complete at once on different threads, and a later round (a flush) can end while
 * an earlier one is still completing. Rounds count in one of two epochs; the owner {@link #flip}s
 * the epoch at the moment a waiter cares about, and the waiter then waits for the old epoch's count
 * to reach zero. Any thread; the flip by the owner only. A waiter parks on a lock's condition, never in a
 * monitor (which would pin a virtual thread to its carrier on Java 21 to 23): nobody spins.
 *
 * <p>A thread that is itself completing a round (of any partition: a flush called from a send's
 * callback) never waits: it could wait for a round whose thread waits for its own, on this partition
 * or another. Such a flush returns once the sends are written and the rounds it drained completed.
 */
final class CompletionBarrier {

    private final AtomicInteger[] completing = {new AtomicInteger(), new AtomicInteger()};
    private volatile int epoch;
    private volatile int waiters;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition drained = lock.newCondition();

    /**
     * The owner, before it releases a round whose futures it will complete: the ticket for
     * {@link #done}, which the same thread calls once they are. {@code marks} are the thread's
     * {@link ThreadMarks}.
     */
    int enter(int[] marks) {
        int e = epoch;
        completing[e].incrementAndGet();
        marks[ThreadMarks.COMPLETING]++;
        return e;
    }

    /** The round of {@code ticket} has completed its futures. */
    void done(int ticket, int[] marks) {
        marks[ThreadMarks.COMPLETING]--;
        if (completing[ticket].decrementAndGet() == 0 && waiters > 0) {
            lock.lock();
            try {
                drained.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /** The owner: rounds released from now on count in a new epoch; returns the one to wait for. */
    int flip() {
        int old = epoch;
        epoch = 1 - old;
        return old;
    }

    /**
     * As {@link #await(int)}, for at most {@code nanos}; false when rounds of {@code epoch} were still
     * completing then.
     */
    boolean await(int epoch, long nanos) throws InterruptedException {
        if (completing[epoch].get() == 0 || ThreadMarks.get()[ThreadMarks.COMPLETING] > 0) {
            return true;
        }
        long left = nanos;
        lock.lock();
        try {
            waiters++;
            while (completing[epoch].get() != 0) {
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
     * Waits until no round of {@code epoch} is completing (those of a later flip back to it included);
     * returns at once on a thread that is completing a round itself.
     */
    void await(int epoch) throws InterruptedException {
        if (completing[epoch].get() == 0 || ThreadMarks.get()[ThreadMarks.COMPLETING] > 0) {
            return;
        }
        lock.lock();
        try {
            waiters++;
            while (completing[epoch].get() != 0) {
                drained.await();
            }
        } finally {
            waiters--;
            lock.unlock();
        }
    }
}
