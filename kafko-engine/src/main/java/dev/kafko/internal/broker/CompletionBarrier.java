package dev.kafko.internal.broker;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Internal: lets a thread wait until every round of a partition released before some moment has
 * completed its futures. An owner completes its round's futures after releasing the partition, so
 * two rounds may complete at once on different threads, and a later round (a flush) can end while
 * an earlier one is still completing. Rounds count in one of two epochs; the owner {@link #flip}s
 * the epoch at the moment a waiter cares about, and the waiter then waits for the old epoch's count
 * to reach zero. Any thread; the flip by the owner only. Monitor-based waiting: nobody spins.
 *
 * <p>A waiter never waits for rounds it is completing itself (a flush called from a send's callback
 * runs inside the completion of that send's round): each thread keeps the rounds it is completing
 * on a small stack, since completions nest on a thread's own call stack.
 */
final class CompletionBarrier {

    private static final ThreadLocal<Held> HELD = ThreadLocal.withInitial(Held::new);

    private final AtomicInteger[] completing = {new AtomicInteger(), new AtomicInteger()};
    private volatile int epoch;
    private volatile int waiters;

    /**
     * The owner, before it releases a round whose futures it will complete: the ticket for
     * {@link #done}, which the same thread calls once they are.
     */
    int enter() {
        int e = epoch;
        completing[e].incrementAndGet();
        HELD.get().push(this, e);
        return e;
    }

    /** The round of {@code ticket} has completed its futures. */
    void done(int ticket) {
        HELD.get().pop();
        if (completing[ticket].decrementAndGet() >= 0 && waiters > 0) {
            synchronized (this) {
                notifyAll();
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
     * Waits until no round of {@code epoch} is completing (those of a later flip back to it included),
     * except those the calling thread is completing itself.
     */
    void await(int epoch) throws InterruptedException {
        int mine = HELD.get().count(this, epoch);
        if (completing[epoch].get() <= mine) {
            return;
        }
        synchronized (this) {
            waiters++;
            try {
                while (completing[epoch].get() > mine) {
                    wait();
                }
            } finally {
                waiters--;
            }
        }
    }

    /** The rounds one thread is completing, innermost last. */
    private static final class Held {
        private CompletionBarrier[] barriers = new CompletionBarrier[4];
        private int[] epochs = new int[4];
        private int size;

        void push(CompletionBarrier barrier, int epoch) {
            if (size == barriers.length) {
                barriers = Arrays.copyOf(barriers, size * 2);
                epochs = Arrays.copyOf(epochs, size * 2);
            }
            barriers[size] = barrier;
            epochs[size++] = epoch;
        }

        void pop() {
            barriers[--size] = null;
        }

        int count(CompletionBarrier barrier, int epoch) {
            int n = 0;
            for (int i = 0; i < size; i++) {
                if (barriers[i] == barrier && epochs[i] == epoch) {
                    n++;
                }
            }
            return n;
        }
    }
}
