package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Headers;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.OutgoingRecord;
import dev.kafko.RecordPosition;
import java.nio.file.Path;
import java.time.Duration;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * B147: a thread already blocked on a send's future when the thread completing its round runs out of stack (B146)
 * waited until somebody else came to the partition (a send, a flush, a close), for ever if nobody did: the
 * stranding thread cannot wake it, and it looked for stranded rounds only as it began to block. A blocked thread now
 * wakes every {@link CompletionBarrier#STRANDED_LOOK_NANOS} to look, on the future itself and on one derived from it.
 *
 * <p>Each case: a drainer thread writes a send whose append's observer queues a round of two (a send whose
 * completion runs out of stack on any thread but the waiter and the test's, then the waiter's send); the append
 * of that round waits until the waiter is blocked on its send; the drainer then strands the round (and strands it
 * again at its drain's end: it is still out of stack there) and ends. Nobody sends, flushes or closes after it.
 */
class StrandedRoundWaitersTest {

    /** How long the waiter may take once the drainer ended: a bound for a thread that would wait for ever. */
    private static final Duration WOKEN_WITHIN = Duration.ofSeconds(10);

    @TempDir
    Path tmp;

    /** How the waiter blocks on its send's future: returns the send's offset. */
    interface Blocker {
        long block(CompletableFuture<RecordPosition> send) throws Exception;
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aThreadBlockedInJoinBeforeItsRoundWasStrandedGetsItsResult() throws Exception {
        blockedBeforeStranding("join", false, f -> f.join().offset());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aThreadBlockedInGetBeforeItsRoundWasStrandedGetsItsResult() throws Exception {
        blockedBeforeStranding("get", false, f -> f.get().offset());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aThreadBlockedInATimedGetBeforeItsRoundWasStrandedGetsItsResult() throws Exception {
        blockedBeforeStranding("timed-get", false, f -> f.get(1, TimeUnit.HOURS).offset());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aThreadBlockedOnADerivedFutureBeforeItsRoundWasStrandedGetsItsResult() throws Exception {
        blockedBeforeStranding("then-apply", false, f -> f.thenApply(RecordPosition::offset).join());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void anInterruptedJoinStillGetsItsResultAndKeepsTheInterrupt() throws Exception {
        blockedBeforeStranding("interrupted-join", false, f -> {
            Thread.currentThread().interrupt();
            long offset = f.join().offset();
            assertThat(Thread.currentThread().isInterrupted()).as("join keeps the interrupt").isTrue();
            return offset;
        });
    }

    /**
     * {@code CompletableFuture.allOf} makes a plain future, which does not say a thread blocks on it, nor looks for
     * stranded rounds as it waits: the instance's scheduler completes them (within
     * {@link CompletionBarrier.Strandings#RESCUE_PERIOD}), its stack being fresh. Here every thread but the
     * scheduler, the waiter and the test's runs out of stack completing the round (before the scheduler's rescue,
     * the waiter waited until somebody came to the partition, for ever in this case).
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aThreadBlockedOnAllOfBeforeItsRoundWasStrandedGetsItsResult() throws Exception {
        blockedBeforeStranding("all-of", true, f -> {
            CompletableFuture.allOf(f).join();
            return f.join().offset();
        });
    }

    /**
     * B147's open end, now on the scheduler (B148): a rescuer took every stranded round at once, so a callback of an
     * earlier round that blocks on a future of a later one waited for itself, the later future being in the rescuer's
     * hands. Here two rounds (a send each, from one thread, which runs out of stack completing both) are stranded
     * while the scheduler is held; the first send's callback joins the second. Without their rounds stranded, the
     * second round completes on its own drainer and the callback gets its offset. Before the fix the scheduler waited
     * in that callback for ever: no retention, interval fsync or linger end of the instance ran again, and a close
     * waited for it for ever.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCallbackTheSchedulerRescuesThatJoinsALaterStrandedRoundGetsItsResult() throws Exception {
        laterRoundJoinedFromACallback("by-scheduler", true);
    }

    /** As above, the rescuer a thread that joins the first send (B147's open end as it was found). */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCallbackAJoinerRescuesThatJoinsALaterStrandedRoundGetsItsResult() throws Exception {
        laterRoundJoinedFromACallback("by-joiner", false);
    }

    /**
     * Two stranded rounds, the first send's callback joining the second send, rescued by the scheduler (released
     * once both are stranded) or by a thread joining the first send (the scheduler held throughout).
     */
    private void laterRoundJoinedFromACallback(String name, boolean byScheduler) throws Exception {
        try (Kafko kafko = Kafko.open(tmp.resolve(name), KafkoOptions.builder().linger(Duration.ZERO).build())) {
            kafko.createTopic("t");
            PartitionActor actor = ((TopicImpl) kafko.topic("t").orElseThrow()).actor(0);
            CompletableFuture<Long> joined = new CompletableFuture<>();
            AtomicReference<OutOfStackBut> earlierHolder = new AtomicReference<>();
            Thread joiner = new Thread(() -> {
                try {
                    joined.complete(earlierHolder.get().join().offset());
                } catch (Throwable e) {
                    joined.completeExceptionally(e);
                }
            }, "joins-the-first-send");
            OutOfStackBut earlier = new OutOfStackBut(byScheduler ? Set.of() : Set.of(joiner), byScheduler);
            OutOfStackBut later = new OutOfStackBut(byScheduler ? Set.of() : Set.of(joiner), byScheduler);
            earlierHolder.set(earlier);
            CompletableFuture<Long> seenByCallback = new CompletableFuture<>();
            earlier.whenComplete((p, e) -> {
                try {
                    seenByCallback.complete(later.join().offset());
                } catch (Throwable t) {
                    seenByCallback.completeExceptionally(t);
                }
            });
            // the scheduler held, so that both rounds are stranded before it looks (or, with a joiner, never looks)
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            ((Broker) kafko).context().scheduler().schedule(() -> {
                held.countDown();
                try {
                    release.await(40, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, Duration.ZERO);
            try {
                assertThat(held.await(10, TimeUnit.SECONDS)).as("the scheduler held").isTrue();
                AtomicReference<Throwable> drainerFailed = new AtomicReference<>();
                Thread drainer = new Thread(() -> {
                    try {
                        actor.submit(earlier);
                        actor.submit(later);
                    } catch (Throwable e) {
                        drainerFailed.set(e);
                    }
                }, "out-of-stack-drainer");
                drainer.start();
                drainer.join(TimeUnit.SECONDS.toMillis(30));
                assertThat(drainer.isAlive()).as("the drainer ended").isFalse();
                assertThat(drainerFailed.get()).isNull();
                assertThat(earlier.failures).as("the first round was stranded").hasPositiveValue();
                assertThat(later.failures).as("the second round was stranded").hasPositiveValue();
                assertThat(earlier).isNotDone();
                assertThat(later).isNotDone();
                String rescuer;
                if (byScheduler) {
                    release.countDown();
                    rescuer = Scheduler.THREAD_NAME;
                } else {
                    joiner.start();
                    rescuer = joiner.getName();
                }
                assertThat(seenByCallback).as("the first send's callback, joining the second send")
                        .succeedsWithin(WOKEN_WITHIN).isEqualTo(1L);
                assertThat(earlier.join().offset()).isZero();
                assertThat(earlier.completedOn).containsExactly(rescuer);
                assertThat(later.completedOn).containsExactly(rescuer);
            } finally {
                if (!later.isDone()) {
                    later.complete(new RecordPosition(0, -1)); // lets the rescuer go, so that the close ends
                }
                release.countDown();
            }
            if (!byScheduler) {
                assertThat(joined).succeedsWithin(WOKEN_WITHIN);
            }
        }
    }

    /**
     * What held: senders on four threads (every fifth send's completion runs out of stack once or twice, on whatever
     * thread completes it; every seventh is joined), so that rounds strand on several threads at once, and rescuers
     * (drainers, joiners) complete them while others strand more. Then a flush from this thread: every future is
     * completed once, with its own offset, every offset once; no ticket left held or released twice.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void roundsStrandedOnSeveralThreadsAtOnceAreEachCompletedOnce() throws Exception {
        long seed = Long.getLong("kafko.stranded.seed", 0x5EED_0147L);
        System.out.println("seed " + seed);
        int threads = 4;
        int perThread = 400;
        try (Kafko kafko = Kafko.open(tmp.resolve("several"), KafkoOptions.builder().linger(Duration.ZERO).build())) {
            kafko.createTopic("t");
            PartitionActor actor = ((TopicImpl) kafko.topic("t").orElseThrow()).actor(0);
            List<List<Request<RecordPosition>>> sent = new ArrayList<>();
            List<AtomicInteger> completions = new ArrayList<>();
            List<Thread> senders = new ArrayList<>();
            List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
            CountDownLatch start = new CountDownLatch(1);
            for (int t = 0; t < threads; t++) {
                Random random = new Random(seed + t);
                List<Request<RecordPosition>> mine = new ArrayList<>();
                for (int i = 0; i < perThread; i++) {
                    mine.add(i % 5 == 4 ? new OutOfStackTimes(1 + random.nextInt(2)) : send(i));
                }
                sent.add(mine);
                for (int i = 0; i < perThread; i++) {
                    completions.add(new AtomicInteger());
                }
                int base = t * perThread;
                Thread sender = new Thread(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < perThread; i++) {
                            Request<RecordPosition> r = mine.get(i);
                            actor.submit(r);
                            AtomicInteger c = completions.get(base + i);
                            r.whenComplete((p, e) -> c.incrementAndGet());
                            if (i % 7 == 6) {
                                r.join();
                            }
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }, "sender-" + t);
                senders.add(sender);
                sender.start();
            }
            start.countDown();
            for (Thread sender : senders) {
                sender.join(TimeUnit.SECONDS.toMillis(60));
                assertThat(sender.isAlive()).as("%s ended", sender.getName()).isFalse();
            }
            assertThat(failures).isEmpty();
            kafko.producer("t").flush();
            Set<Long> offsets = new HashSet<>();
            int stranded = 0;
            for (int t = 0; t < threads; t++) {
                for (int i = 0; i < perThread; i++) {
                    Request<RecordPosition> r = sent.get(t).get(i);
                    assertThat(r).as("send %d of thread %d", i, t).isCompleted();
                    assertThat(offsets.add(r.join().offset())).as("offset %d once", r.join().offset()).isTrue();
                    assertThat(completions.get(t * perThread + i)).as("callbacks of send %d of thread %d", i, t)
                            .hasValue(1);
                    if (r instanceof OutOfStackTimes o && o.failed > 0) {
                        stranded++;
                    }
                }
            }
            assertThat(stranded).as("sends whose completion ran out of stack").isPositive();
            assertThat(offsets).hasSize(threads * perThread);
            assertThat(actor.log().endOffset()).isEqualTo(threads * perThread);
            assertBarrierSettled(actor);
        }
    }

    /** No round left counted, stranded or below zero in the partition's barrier. */
    private static void assertBarrierSettled(PartitionActor actor) throws Exception {
        Field barrier = PartitionActor.class.getDeclaredField("completions");
        barrier.setAccessible(true);
        CompletionBarrier b = (CompletionBarrier) barrier.get(actor);
        Field epochField = CompletionBarrier.class.getDeclaredField("epoch");
        epochField.setAccessible(true);
        Field completing = CompletionBarrier.Epoch.class.getDeclaredField("completing");
        completing.setAccessible(true);
        Field before = CompletionBarrier.Epoch.class.getDeclaredField("before");
        before.setAccessible(true);
        Field inHand = CompletionBarrier.class.getDeclaredField("inHand");
        inHand.setAccessible(true);
        synchronized (b) {
            assertThat(b.stranded).isNull();
            assertThat(b.anyStranded).isFalse();
            assertThat(inHand.getInt(b)).as("stranded rounds taken and not completed").isZero();
        }
        for (Object e = epochField.get(b); e != null; e = before.get(e)) {
            assertThat(((AtomicInteger) completing.get(e)).get()).as("rounds counted completing").isZero();
            assertThat(((CompletionBarrier.Epoch) e).strandedRounds).isZero();
        }
    }

    /** A send whose completion runs out of stack its first {@code times} times, on whichever thread completes it. */
    static final class OutOfStackTimes extends OneRecordRequest {
        private final AtomicInteger left;
        volatile int failed;

        OutOfStackTimes(int times) {
            this.left = new AtomicInteger(times);
        }

        @Override
        RecordPosition result(int partition) {
            if (left.getAndDecrement() > 0) {
                failed++;
                throw new StackOverflowError("injected: completing the round");
            }
            return new RecordPosition(partition, firstOffset);
        }
    }

    /**
     * The case above, {@code blocker} blocking the waiter; with {@code schedulerHasStack} the instance's scheduler
     * completes the round, once stranded, without running out of stack (otherwise it does, like every thread but the waiter's and the
     * test's, so that only the waiter's own looks can complete it).
     */
    private void blockedBeforeStranding(String name, boolean schedulerHasStack, Blocker blocker) throws Exception {
        OnNextAppend observer = new OnNextAppend();
        AtomicReference<Runnable> onAppend = observer.next;
        KafkoOptions options = KafkoOptions.builder().linger(Duration.ZERO).observer(observer).build();
        try (Kafko kafko = Kafko.open(tmp.resolve(name), options)) {
            kafko.createTopic("t");
            PartitionActor actor = ((TopicImpl) kafko.topic("t").orElseThrow()).actor(0);
            CompletableFuture<Long> outcome = new CompletableFuture<>();
            SendRequest awaited = send(2);
            CountDownLatch queued = new CountDownLatch(1);
            Thread waiter = new Thread(() -> {
                try {
                    queued.await();
                    outcome.complete(blocker.block(awaited));
                } catch (Throwable e) {
                    outcome.completeExceptionally(e);
                }
            }, "blocked-on-its-send");
            OutOfStackBut first = new OutOfStackBut(Set.of(waiter, Thread.currentThread()), schedulerHasStack);
            AtomicReference<Throwable> drainerFailed = new AtomicReference<>();
            Thread drainer = new Thread(() -> {
                try {
                    actor.submit(send(0));
                } catch (Throwable e) {
                    drainerFailed.set(e);
                }
            }, "out-of-stack-drainer");
            onAppend.set(() -> {
                // the append of send(0), partition owned: these two make one round, appended next
                actor.submit(first);
                actor.submit(awaited);
                onAppend.set(() -> {
                    // the round's append, partition owned by the drainer: the waiter blocks before it completes. Let
                    // go any earlier, it could find the partition idle between the two rounds (the drainer
                    // completing send(0)) and write the round itself, with stack, and nothing would be stranded
                    queued.countDown();
                    awaitBlocked(waiter);
                });
            });
            waiter.start();
            drainer.start();
            drainer.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(drainer.isAlive()).as("the drainer ended").isFalse();
            assertThat(drainerFailed.get()).isNull();
            // the scheduler may have taken the round (B160: the drainer's submit hands it a drain, and it can find the
            // partition idle for an instant): then the drainer ends while the scheduler is still in the round's
            // append, waiting for the waiter to block, and strands the round only after that
            long until = System.nanoTime() + WOKEN_WITHIN.toNanos();
            while (first.failures.get() == 0 && System.nanoTime() - until < 0) {
                Thread.sleep(1);
            }
            assertThat(first.failures).as("the round was stranded").hasPositiveValue();
            assertThat(outcome).as("the waiter, blocked on its send before the round was stranded")
                    .succeedsWithin(WOKEN_WITHIN).isEqualTo(2L);
            assertThat(first).isCompleted();
            assertThat(first.join().offset()).isEqualTo(1L);
            if (schedulerHasStack) {
                assertThat(first.completedOn).as("completed by the scheduler's rescue")
                        .containsExactly(Scheduler.THREAD_NAME);
            }
            waiter.join();
        }
    }

    /** Waits (bounded) until {@code waiter} is blocked on a future. */
    private static void awaitBlocked(Thread waiter) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() - deadline < 0) {
            Thread.State s = waiter.getState();
            if (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING) {
                for (StackTraceElement f : waiter.getStackTrace()) {
                    if (f.getClassName().equals(CompletableFuture.class.getName())
                            && (f.getMethodName().equals("waitingGet") || f.getMethodName().equals("timedGet"))) {
                        return;
                    }
                }
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        throw new AssertionError("the waiter did not block on its send: " + waiter.getState() + " "
                + List.of(waiter.getStackTrace()));
    }

    private static SendRequest send(int value) {
        return new SendRequest(new OutgoingRecord(null, new byte[] {(byte) value}, Headers.empty(),
                OutgoingRecord.NO_TIMESTAMP), 16);
    }

    /**
     * A send whose completion, and its exceptional completion, run out of stack on any thread but {@code withStack}
     * (and the instance's scheduler once the send was stranded, with {@code schedulerHasStack}).
     */
    static final class OutOfStackBut extends OneRecordRequest {
        final AtomicInteger failures = new AtomicInteger();
        /** The threads that completed it (its result given), for the test to say who. */
        final Set<String> completedOn = java.util.concurrent.ConcurrentHashMap.newKeySet();
        private final Set<Thread> withStack;
        private final boolean schedulerHasStack;

        OutOfStackBut(Set<Thread> withStack, boolean schedulerHasStack) {
            this.withStack = withStack;
            this.schedulerHasStack = schedulerHasStack;
        }

        private boolean hasStack() {
            Thread t = Thread.currentThread();
            // the scheduler only once the round was stranded: the drainer's submit of this send, the partition owned,
            // hands a drain to the scheduler, which may find the partition idle for an instant and take the round
            return withStack.contains(t)
                    || schedulerHasStack && failures.get() > 0 && t.getName().equals(Scheduler.THREAD_NAME);
        }

        @Override
        RecordPosition result(int partition) {
            if (!hasStack()) {
                failures.incrementAndGet();
                throw new StackOverflowError("injected: completing the round");
            }
            completedOn.add(Thread.currentThread().getName());
            return new RecordPosition(partition, firstOffset);
        }

        @Override
        public boolean completeExceptionally(Throwable ex) {
            if (!hasStack()) {
                failures.incrementAndGet();
                throw new StackOverflowError("injected: completing it exceptionally");
            }
            return super.completeExceptionally(ex);
        }
    }
}
