package dev.kafko.internal.broker;

import java.time.Duration;
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
 * condition, never in a monitor (which would pin a virtual thread to its carrier on Java 21 to 23),
 * and wakes every {@link #STRANDED_LOOK_NANOS} to look for stranded rounds (below): nobody spins.
 *
 * <p>A thread that is itself completing a round (of any partition: a flush called from a send's
 * callback) never waits: it could wait for a round whose thread waits for its own, on this partition
 * or another. Such a flush returns once the sends are written and the rounds it drained completed.
 *
 * <p><b>Stranded rounds.</b> A thread that runs out of stack while it completes a round (a chain of sends made
 * from callbacks nests on one stack) cannot go on at that depth: it leaves the round's futures not yet completed
 * in {@link #stranded}, and its ticket held (counted in {@link Epoch#strandedRounds}), under this barrier's
 * monitor and with no call (monitors are taken and let go without a Java frame), and goes on. Somebody with
 * stack completes them, a round at a time ({@link #completeStranded}): the partition's next drainer, a thread that blocks on one of
 * their futures, and a close or a flush waiting here, which looks every {@link #STRANDED_LOOK_NANOS} while it
 * waits (the stranding thread could not signal it); and, for the threads that block on a plain future made from
 * kafko's (a {@code CompletableFuture.allOf}, which does not look), the instance's scheduler, told by
 * {@link Strandings} and looking every {@link Strandings#RESCUE_PERIOD}. Each ticket is released once, after the
 * futures left with it are completed.
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
        /** Rounds of this epoch stranded with their ticket held; under the barrier's monitor. */
        int strandedRounds;
        /** The previous epoch still completing rounds, or null; unlinked by the owner at a flip. */
        private volatile @Nullable Epoch before;

        private Epoch(@Nullable Epoch before) {
            this.before = before;
        }
    }

    /**
     * Whether any partition of an instance has stranded rounds: raised by the stranding thread with no call (a field
     * written under the barrier's monitor), lowered by the instance's scheduler, which then has every partition
     * complete its stranded rounds on its own thread, whose stack is fresh ({@code Broker}). The last resort: a
     * thread that blocks on a plain future made from kafko's futures is not told otherwise.
     */
    static final class Strandings {

        /** How often the scheduler looks at {@link #raised}: one volatile read each time. */
        static final Duration RESCUE_PERIOD = Duration.ofMillis(100);

        volatile boolean raised;
    }

    /** How often a thread waiting here looks for stranded rounds to complete itself. */
    static final long STRANDED_LOOK_NANOS = 10_000_000L;
    private static final Epoch[] NO_TICKETS = new Epoch[0];

    private volatile Epoch epoch = new Epoch(null);
    private volatile int waiters;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition drained = lock.newCondition();
    private final int partition;
    /**
     * The futures of stranded rounds not completed yet, one chain through {@link Request#next}, each round's first
     * marked ({@link Request#strandedFirst}); under this barrier's monitor, written by a thread out of stack without
     * a call (see the class comment).
     */
    @Nullable Request<?> stranded;
    /** Whether rounds are stranded (or a stranding thread could not signal the waiters): read on every drain. */
    volatile boolean anyStranded;

    /** Told of the rounds stranded here, for the instance's scheduler (a field: a stranding thread makes no call). */
    final Strandings strandings;
    /** Stranded rounds taken by {@link #completeStranded} and not completed yet; under this barrier's monitor. */
    private int inHand;

    /**
     * The barrier of partition {@code partition} (the number its futures complete with), which raises
     * {@code strandings} when it strands a round.
     */
    CompletionBarrier(int partition, Strandings strandings) {
        this.partition = partition;
        this.strandings = strandings;
    }

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

    /**
     * The round of {@code ticket} has completed its futures: true when the waiters are to be {@link #signal}led.
     * Either the ticket is released or (a thread out of stack as it calls this) it is not, never half.
     */
    boolean leave(Epoch ticket) {
        return ticket.completing.decrementAndGet() == 0 && waiters > 0;
    }

    /** Wakes the waiters: a round they may wait for has completed. */
    void signal() {
        lock.lock();
        try {
            drained.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Completes the futures of {@code round}, then ends its {@code ticket} (if it has one). A thread that runs out of
     * stack here (the completion of a future runs its callbacks, and a chain of sends made from callbacks nests on
     * one stack) does not go on at that depth: it leaves the futures not yet completed, and the ticket if it is not
     * released yet, to this barrier (stranded rounds), with no call but taking this
     * barrier's monitor, and returns. Nothing here throws but a failure to enter it.
     */
    void complete(@Nullable Request<?> round, @Nullable Epoch ticket, int[] marks) {
        Request<?> r = round;
        Request<?> next = null;
        boolean released = ticket == null;
        try {
            for (; r != null; r = next) {
                next = r.next;
                r.next = null;
                try {
                    r.finish(partition);
                } catch (StackOverflowError e) {
                    throw e; // to the catch below, with no call: a thread with stack completes it
                } catch (RuntimeException | Error e) {
                    // the completion itself failed (not a callback: CompletableFuture keeps what they throw)
                    r.completeExceptionally(e);
                }
            }
            if (ticket != null) {
                boolean wake = leave(ticket);
                released = true;
                if (wake) {
                    signal();
                }
            }
        } catch (RuntimeException | Error e) {
            // out of stack: no call here but the monitor. A failed signal leaves only the flag: waiters look
            if (r != null) {
                r.next = next;
            }
            synchronized (this) {
                if (r != null) {
                    r.strandedFirst = true;
                    Request<?> t = stranded;
                    if (t == null) {
                        stranded = r;
                    } else {
                        while (t.next != null) {
                            t = t.next;
                        }
                        t.next = r;
                    }
                }
                if (!released) {
                    ticket.strandedRounds++;
                }
                anyStranded = true;
                strandings.raised = true;
            }
        }
        if (ticket != null) {
            marks[ThreadMarks.COMPLETING]--;
        }
    }

    /**
     * Completes the futures of the stranded rounds (see the class comment), a round at a time and each in the order
     * its futures were left, each with its result (or its failure); the last thread to complete one, when none is
     * left, releases their tickets and wakes the waiters. A round at a time, so that a callback of one that blocks on
     * a future of a later round (on this thread, or on one that this callback waits for) finds it still stranded and
     * completes it: taken with the earlier one, it waited for its own thread (B147's open end; on the scheduler, B148,
     * the instance's background work stopped for good). With {@code orError}, a future whose completion fails on
     * this thread too is completed with that failure instead (a close: nobody else may come); otherwise what this
     * thread could not complete is stranded again, ahead of the rounds stranded since.
     * True when nothing is left stranded by this call. Any thread but a partition's owner.
     */
    boolean completeStranded(int[] marks, boolean orError) {
        // one method, with no call between taking a round (or the tickets) and the try that gives it back: a thread
        // out of stack at the entry of a call there would lose what it took
        marks[ThreadMarks.COMPLETING]++;
        try {
            for (;;) {
                Request<?> r;
                Epoch[] tickets = NO_TICKETS;
                boolean inHandCounted = false;
                synchronized (this) {
                    r = stranded;
                    if (r == null) {
                        if (inHand > 0) {
                            anyStranded = false;
                            return true; // its taker releases the tickets once it completed it
                        }
                        int n = 0;
                        for (Epoch e = epoch; e != null; e = e.before) {
                            n += e.strandedRounds;
                        }
                        if (n > 0) {
                            tickets = new Epoch[n]; // before anything is taken: out of heap takes nothing
                            n = 0;
                            for (Epoch e = epoch; e != null; e = e.before) {
                                for (; e.strandedRounds > 0; e.strandedRounds--) {
                                    tickets[n++] = e;
                                }
                            }
                        }
                        anyStranded = false;
                    } else {
                        // the first round: up to the next round's first future
                        Request<?> last = r;
                        while (last.next != null && !last.next.strandedFirst) {
                            last = last.next;
                        }
                        stranded = last.next;
                        last.next = null;
                        r.strandedFirst = false;
                        inHand++;
                        inHandCounted = true;
                        anyStranded = stranded != null;
                    }
                }
                Request<?> next = null;
                int released = 0;
                try {
                    if (!inHandCounted) {
                        // nothing stranded, nor in anybody's hands: the tickets of the rounds completed go
                        for (; released < tickets.length; released++) {
                            tickets[released].completing.decrementAndGet();
                        }
                        if (waiters > 0) {
                            signal();
                        }
                        return true;
                    }
                    for (; r != null; r = next) {
                        next = r.next;
                        r.next = null;
                        try {
                            r.finish(partition);
                        } catch (StackOverflowError e) {
                            if (!orError) {
                                throw e; // to the catch below, with no call: stranded again
                            }
                            r.completeExceptionally(e);
                        } catch (RuntimeException | Error e) {
                            r.completeExceptionally(e);
                        }
                    }
                    synchronized (this) {
                        inHand--;
                        inHandCounted = false;
                    }
                } catch (RuntimeException | Error e) {
                    // out of stack here too: no call but the monitor; what is left is stranded again, ahead of the
                    // rounds stranded since, and the tickets not released are counted again
                    if (r != null) {
                        r.next = next;
                    }
                    synchronized (this) {
                        if (inHandCounted) {
                            inHand--;
                            if (r != null) {
                                r.strandedFirst = true;
                                Request<?> t = r;
                                while (t.next != null) {
                                    t = t.next;
                                }
                                t.next = stranded;
                                stranded = r;
                            }
                        }
                        for (int i = released; i < tickets.length; i++) {
                            tickets[i].strandedRounds++;
                        }
                        anyStranded = true;
                        strandings.raised = true;
                    }
                    return false;
                }
            }
        } finally {
            marks[ThreadMarks.COMPLETING]--;
        }
    }

    /**
     * {@link #completeStranded}, by a partition's drainer or a thread about to block on one of its futures, if this
     * thread has the stack for it (otherwise they stay for the next drainer, a thread that blocks on one of them, or a
     * close). Not on a thread owning a partition: it would run this one's callbacks, which may wait for the one it
     * holds. Nor does this hand them to the scheduler: a thread that may be this short of stack must not call into
     * the scheduler's queue, which a {@code StackOverflowError} half-way through an insertion corrupts for good
     * (seen: its thread never ended, and every later schedule threw a {@code NullPointerException}).
     */
    void completeStrandedUnlessOwning(int[] marks) {
        if (marks[ThreadMarks.OWNING] == 0) {
            completeStranded(marks, false);
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
     * still completing then. Stranded rounds this thread finds are completed here, with their failure if they
     * cannot be otherwise (a close: nobody else may come).
     */
    boolean await(@Nullable Epoch epoch, long nanos) throws InterruptedException {
        int[] marks = ThreadMarks.get();
        if (completed(epoch) || marks[ThreadMarks.COMPLETING] > 0) {
            return true;
        }
        long deadline = System.nanoTime() + nanos;
        for (;;) {
            if (anyStranded) {
                completeStranded(marks, true);
            }
            long left = deadline - System.nanoTime();
            if (!awaitSome(epoch, left)) {
                return true;
            }
            if (left <= 0) {
                return false;
            }
        }
    }

    /**
     * Waits until no round of {@code epoch}, nor of an epoch before it, is completing; returns at once on a thread
     * that is completing a round itself (and for no epoch: a command that failed before it was executed). Stranded
     * rounds this thread finds are completed here (or stranded again, for a thread with more stack).
     */
    void await(@Nullable Epoch epoch) throws InterruptedException {
        int[] marks = ThreadMarks.get();
        if (completed(epoch) || marks[ThreadMarks.COMPLETING] > 0) {
            return;
        }
        for (;;) {
            if (anyStranded) {
                completeStranded(marks, false);
            }
            if (!awaitSome(epoch, STRANDED_LOOK_NANOS)) {
                return;
            }
        }
    }

    /**
     * Waits for {@code epoch} at most {@code nanos}, and no longer than {@link #STRANDED_LOOK_NANOS}: a stranding
     * thread cannot signal. False once it completed.
     */
    private boolean awaitSome(@Nullable Epoch epoch, long nanos) throws InterruptedException {
        lock.lock();
        try {
            waiters++;
            if (completed(epoch)) {
                return false;
            }
            if (nanos > 0) {
                drained.awaitNanos(Math.min(nanos, STRANDED_LOOK_NANOS));
            }
            return !completed(epoch);
        } finally {
            waiters--;
            lock.unlock();
        }
    }
}
