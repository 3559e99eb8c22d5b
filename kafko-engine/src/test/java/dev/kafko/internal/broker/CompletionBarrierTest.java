package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.RecordPosition;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link CompletionBarrier} on its own, driven as the owner and a waiter drive it, with no partition: the two
 * behaviours a mutation pass (B158) found no test could see. (1) The ticket of a stranded round is released once the
 * round's futures are completed by somebody with stack: a flush or a close after it does not wait for it (kept, a
 * flush waits for ever and a close its whole bound). (2) The timed wait ({@link CompletionBarrier#await(
 * CompletionBarrier.Epoch, long)}, a close's) returns at once, and says so, when nothing it waits for is completing
 * or when its own thread is completing a round; it waits while a round is completing, and says whether the round
 * completed or the time ran out. Nothing here sleeps: a wait that should end is bounded far above what it takes, and
 * the one that should run out is given a short time.
 */
class CompletionBarrierTest {

    /** The time a wait that must end is given: it ends as soon as the round completes, far sooner. */
    private static final long MUST_END_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** The time a wait that must run out is given (a round completing on no thread). */
    private static final long RUNS_OUT_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /** The owner's marks: another array than this thread's own, as the owner is another thread. */
    private final int[] owner = new int[6];

    /** A round's only future, whose completion runs out of stack its first {@code times} times. */
    static final class OutOfStackTimes extends OneRecordRequest {
        private final AtomicInteger left;

        OutOfStackTimes(int times, long offset) {
            this.left = new AtomicInteger(times);
            this.firstOffset = offset;
        }

        @Override
        RecordPosition result(int partition) {
            if (left.getAndDecrement() > 0) {
                throw new StackOverflowError("injected: completing the round");
            }
            return new RecordPosition(partition, firstOffset);
        }
    }

    /** A round (one future) released and completed by the owner, who runs out of stack: it is stranded. */
    private OutOfStackTimes strandOne(CompletionBarrier b, long offset) {
        OutOfStackTimes r = new OutOfStackTimes(1, offset);
        CompletionBarrier.Epoch ticket = b.enter(owner);
        int held = ticket.strandedRounds;
        b.complete(r, ticket, owner);
        assertThat(r).as("the round is stranded, its future not completed").isNotDone();
        assertThat(ticket.strandedRounds).as("its ticket held").isEqualTo(held + 1);
        return r;
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aStrandedRoundsTicketIsReleasedOnceARescuerCompletedItsFutures() throws Exception {
        CompletionBarrier.Strandings strandings = new CompletionBarrier.Strandings();
        CompletionBarrier b = new CompletionBarrier(3, strandings);
        OutOfStackTimes r = strandOne(b, 7);
        assertThat(b.anyStranded).isTrue();
        assertThat(strandings.raised).as("the scheduler is told").isTrue();
        CompletionBarrier.Epoch flushed = b.flip(); // a flush's moment, after the round

        // a thread with stack (the next drainer, the scheduler's rescue) completes it, and with it ends its ticket
        assertThat(b.completeStranded(new int[6], false)).as("nothing left stranded").isTrue();
        assertThat(r).isCompletedWithValue(new RecordPosition(3, 7));
        assertThat(b.anyStranded).isFalse();
        assertThat(owner[ThreadMarks.COMPLETING]).as("the owner counted the round done").isZero();

        // the flush: returns at once (with the ticket kept it waited for ever: the round is completed, nobody leaves)
        assertThat(b.await(flushed, 0)).as("the round of the flush's epoch counts as completed").isTrue();
        awaitReturns(b, flushed);
    }

    /**
     * The waiter itself completes the stranded round as it begins to wait (a close finding it), and the ticket goes
     * with it: its wait ends with the round completed, not at its time's end.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aWaiterThatCompletesAStrandedRoundItselfReleasesItsTicketAndEndsItsWait() throws Exception {
        CompletionBarrier b = new CompletionBarrier(0, new CompletionBarrier.Strandings());
        OutOfStackTimes r = strandOne(b, 4);
        CompletionBarrier.Epoch closed = b.flip();
        // no time to wait: the answer is what the wait's own rescue did
        assertThat(b.await(closed, 0)).as("the round completed by the waiter itself").isTrue();
        assertThat(r).isCompletedWithValue(new RecordPosition(0, 4));
        assertThat(b.anyStranded).isFalse();
        awaitReturns(b, closed);
    }

    /**
     * Rounds stranded in three epochs (a flip between each, as a flush's command makes): one rescue completes them
     * all and releases every ticket, the older epochs' too, which the newest flush also waits for.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void theTicketsOfRoundsStrandedInSeveralEpochsAreAllReleased() throws Exception {
        CompletionBarrier b = new CompletionBarrier(0, new CompletionBarrier.Strandings());
        OutOfStackTimes first = strandOne(b, 0);
        CompletionBarrier.Epoch e0 = b.flip();
        OutOfStackTimes second = strandOne(b, 1);
        OutOfStackTimes third = strandOne(b, 2);
        CompletionBarrier.Epoch e1 = b.flip();
        OutOfStackTimes fourth = strandOne(b, 3);
        CompletionBarrier.Epoch e2 = b.flip();
        assertThat(b.await(e2, 0)).as("the flush's own wait completes the four rounds").isTrue();
        assertThat(first).isCompletedWithValue(new RecordPosition(0, 0));
        assertThat(second).isCompletedWithValue(new RecordPosition(0, 1));
        assertThat(third).isCompletedWithValue(new RecordPosition(0, 2));
        assertThat(fourth).isCompletedWithValue(new RecordPosition(0, 3));
        assertThat(b.await(e0, 0)).isTrue();
        assertThat(b.await(e1, 0)).isTrue();
        awaitReturns(b, e2);
        assertThat(b.anyStranded).isFalse();
    }

    /** Nothing completing: the timed wait says the rounds completed, at once. */
    @Test
    void aTimedWaitForNothingCompletingReturnsTrue() throws Exception {
        CompletionBarrier b = new CompletionBarrier(0, new CompletionBarrier.Strandings());
        CompletionBarrier.Epoch t = b.enter(owner);
        b.complete(new OutOfStackTimes(0, 0), t, owner);
        assertThat(b.await(b.flip(), 0)).isTrue();
        assertThat(b.await(b.flip(), MUST_END_NANOS)).isTrue();
        assertThat(b.await(null, 0)).as("no epoch: a command that failed before it ran").isTrue();
    }

    /** A round completing on no thread: the timed wait runs out and says so (a close then logs it and goes on). */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aTimedWaitForARoundStillCompletingRunsOutAndReturnsFalse() throws Exception {
        CompletionBarrier b = new CompletionBarrier(0, new CompletionBarrier.Strandings());
        b.enter(owner); // released, its futures completing on the owner's thread (which never ends it here)
        CompletionBarrier.Epoch e = b.flip();
        assertThat(b.await(e, 0)).isFalse();
        assertThat(b.await(e, RUNS_OUT_NANOS)).isFalse();
        CompletionBarrier.Epoch later = b.flip(); // a later epoch waits for the earlier one's round too
        assertThat(b.await(later, RUNS_OUT_NANOS)).isFalse();
        // the same wait on another thread: runs out too (the waits above let go of the barrier's lock)
        CompletableFuture<Boolean> other = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                other.complete(b.await(later, RUNS_OUT_NANOS));
            } catch (Throwable x) {
                other.completeExceptionally(x);
            }
        }, "other-waiter");
        t.setDaemon(true);
        t.start();
        assertThat(other).succeedsWithin(30, TimeUnit.SECONDS).isEqualTo(false);
    }

    /**
     * A callback of a stranded round, run by the thread that rescues it, counts as completing a round: a flush it
     * makes returns at once (it would otherwise wait for its own round's ticket, released only once it returns). Once
     * the rescue is over, that thread completes nothing: a wait of its own waits again.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCallbackOfAStrandedRoundRunByItsRescuerDoesNotWaitAndTheRescuerWaitsAfterwards() throws Exception {
        CompletionBarrier b = new CompletionBarrier(0, new CompletionBarrier.Strandings());
        OutOfStackTimes r = strandOne(b, 0);
        CompletionBarrier.Epoch flushed = b.flip();
        AtomicReference<Object> seenByCallback = new AtomicReference<>();
        r.whenComplete((v, e) -> {
            try {
                seenByCallback.set(b.await(flushed, RUNS_OUT_NANOS)); // its own round's epoch
            } catch (Throwable x) {
                seenByCallback.set(x);
            }
        });
        int[] mine = ThreadMarks.get();
        assertThat(b.completeStranded(mine, false)).isTrue();
        assertThat(r).isCompletedWithValue(new RecordPosition(0, 0));
        assertThat(seenByCallback.get()).as("the callback's wait returned at once, not run out").isEqualTo(true);
        // after the rescue: another round completing on the owner; this thread waits for it, and runs out
        b.enter(owner);
        assertThat(b.await(b.flip(), RUNS_OUT_NANOS)).as("the rescuer's own wait afterwards").isFalse();
    }

    /**
     * A thread completing a round (a close or flush from a send's callback) never waits: it could wait for a round
     * whose thread waits for its own. The timed wait returns at once with true although a round is completing.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aTimedWaitOnAThreadCompletingARoundReturnsAtOnce() throws Exception {
        CompletionBarrier b = new CompletionBarrier(0, new CompletionBarrier.Strandings());
        b.enter(owner);
        CompletionBarrier.Epoch e = b.flip();
        int[] mine = ThreadMarks.get();
        mine[ThreadMarks.COMPLETING]++; // as in a callback
        try {
            // would wait the whole time, and then say the round was still completing, were it not returning at once
            assertThat(b.await(e, RUNS_OUT_NANOS)).isTrue();
        } finally {
            mine[ThreadMarks.COMPLETING]--;
        }
    }

    /**
     * A round completing on another thread while the timed wait waits: the wait ends with true once the round's
     * ticket is released (the owner leaves it after the waiter is parked, and wakes it).
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aTimedWaitEndsWithTrueWhenTheRoundCompletesDuringIt() throws Exception {
        CompletionBarrier b = new CompletionBarrier(0, new CompletionBarrier.Strandings());
        CompletionBarrier.Epoch ticket = b.enter(owner);
        CompletionBarrier.Epoch e = b.flip();
        CompletableFuture<Boolean> waited = new CompletableFuture<>();
        CountDownLatch started = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            try {
                started.countDown();
                waited.complete(b.await(e, MUST_END_NANOS));
            } catch (Throwable t) {
                waited.completeExceptionally(t);
            }
        }, "timed-waiter");
        waiter.start();
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        awaitParkedOrDone(waiter, waited);
        assertThat(waited).as("the waiter waits while the round completes").isNotDone();
        // the owner completes the round: its futures (none here), then its ticket, and wakes the waiters
        b.complete(null, ticket, owner);
        assertThat(waited).succeedsWithin(30, TimeUnit.SECONDS).isEqualTo(true);
        waiter.join();
    }

    /** The untimed wait (a flush's) returns: bounded here, as a wait for a kept ticket would not end. */
    private static void awaitReturns(CompletionBarrier b, CompletionBarrier.Epoch e) throws Exception {
        CompletableFuture<Void> returned = new CompletableFuture<>();
        Thread flusher = new Thread(() -> {
            try {
                b.await(e);
                returned.complete(null);
            } catch (Throwable t) {
                returned.completeExceptionally(t);
            }
        }, "flush-wait");
        flusher.setDaemon(true); // a wait that never ends must not hold the JVM
        flusher.start();
        assertThat(returned).as("a flush after the rounds").succeedsWithin(20, TimeUnit.SECONDS);
    }

    /** Waits (bounded) until {@code t} parks in the barrier's condition, or {@code done} (it did not wait at all). */
    private static void awaitParkedOrDone(Thread t, CompletableFuture<?> done) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() - deadline < 0 && !done.isDone()) {
            if (t.getState() == Thread.State.TIMED_WAITING) {
                for (StackTraceElement f : t.getStackTrace()) {
                    if (f.getClassName().equals(CompletionBarrier.class.getName())
                            && f.getMethodName().equals("awaitSome")) {
                        return;
                    }
                }
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }
}
