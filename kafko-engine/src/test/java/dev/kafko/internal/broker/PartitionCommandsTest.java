package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.InterruptException;
import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.TopicConfig;
import dev.kafko.internal.log.CapturedWarnings;
import dev.kafko.internal.log.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PartitionCommands}: what a mutation pass found no test could see. A flush from an observer on the thread that
 * owns the partition is refused, not left waiting for itself; a close returns only once the callbacks of the sends
 * completed before it have returned (on another thread), whether the caller closes or, from an observer, the
 * {@code kafko-close} thread does; a callback that never returns holds a close only its bound, and is named in a
 * warning; a flush or a close interrupted in that wait keeps the interrupt; outside a JVM shutdown a close never gives
 * a held partition up; retention runs back to back while segments are due, tells the bytes it freed, and stops.
 *
 * <p>Each case holds a partition's first round in an observer (its owner thread, "owner"), queues a send behind it
 * and registers a callback on it, so that the send's round is completed, and its callback run, on "owner" once let
 * go. The callback then waits for the test, which lets it go once the close's wait for it has begun (a thread parked
 * in the barrier), or at once if no such wait begins.
 */
class PartitionCommandsTest {

    /** How long a wait that must end is given. */
    private static final long BOUND_SECONDS = 30;

    @TempDir
    Path tmp;

    /** Runs its action, set by the test, in the next append of topic "t" (on the thread that owns the partition). */
    static final class OnAppendOfT implements KafkoObserver {
        final AtomicReference<Runnable> next = new AtomicReference<>();
        final AtomicReference<Runnable> nextOfB = new AtomicReference<>();

        @Override
        public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
            Runnable r = (topic.equals("t") ? next : nextOfB).getAndSet(null);
            if (r != null) {
                r.run();
            }
        }
    }

    /** A send of topic "t" whose callback runs on "owner" and waits for {@link #letGo}. */
    static final class HeldCallback {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch letGo = new CountDownLatch(1);
        final AtomicBoolean ended = new AtomicBoolean();
        CompletableFuture<RecordPosition> send;
    }

    /**
     * Holds "t"'s partition on "owner" (in the append of a first send), queues a send behind it with a callback that
     * waits, lets "owner" go: it writes the send, releases the partition and runs the callback, which waits.
     */
    private static HeldCallback callbackHeldOnOwner(Producer p, OnAppendOfT observer) throws Exception {
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch letOwnerGo = new CountDownLatch(1);
        observer.next.set(() -> {
            holding.countDown();
            awaitQuietly(letOwnerGo);
        });
        Thread owner = new Thread(() -> p.send(null, new byte[] {0}), "owner");
        owner.setDaemon(true);
        owner.start();
        assertThat(holding.await(BOUND_SECONDS, TimeUnit.SECONDS)).as("owner holds the partition").isTrue();
        HeldCallback h = new HeldCallback();
        h.send = p.send(null, new byte[] {1}); // queued behind the held round: written by "owner"
        h.send.whenComplete((r, e) -> {
            h.entered.countDown();
            awaitQuietly(h.letGo);
            h.ended.set(true);
        });
        letOwnerGo.countDown();
        assertThat(h.entered.await(BOUND_SECONDS, TimeUnit.SECONDS)).as("the callback runs on owner").isTrue();
        assertThat(h.send.join().offset()).isEqualTo(1);
        return h;
    }

    private static void awaitQuietly(CountDownLatch l) {
        try {
            l.await(2 * BOUND_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Waits (bounded) until a thread {@code which} accepts is parked in the completion barrier's wait, or until
     * {@code done}; returns whether one was seen parked.
     */
    private static boolean awaitParkedInBarrier(Predicate<Thread> which, CompletableFuture<?> done) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() - deadline < 0 && !done.isDone()) {
            for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
                Thread.State s = e.getKey().getState();
                if (which.test(e.getKey()) && (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING)) {
                    for (StackTraceElement f : e.getValue()) {
                        if (f.getClassName().equals(CompletionBarrier.class.getName())
                                && f.getMethodName().equals("awaitSome")) {
                            return true;
                        }
                    }
                }
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        return false;
    }

    /** Runs {@code close} on a thread of its own; the future says whether the callback had ended when it returned. */
    private static CompletableFuture<Boolean> closeOnAThread(String name, Runnable close, HeldCallback h) {
        CompletableFuture<Boolean> endedAtReturn = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                close.run();
                endedAtReturn.complete(h.ended.get());
            } catch (Throwable e) {
                endedAtReturn.completeExceptionally(e);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return endedAtReturn;
    }

    /**
     * A flush from an observer on the thread that owns the partition would wait for that very thread: it is refused
     * with a message that names the partition and the flush, and the partition goes on.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aFlushFromAnObserverOnThePartitionsOwnThreadIsRefused() throws Exception {
        OnAppendOfT observer = new OnAppendOfT();
        try (Kafko kafko = Kafko.open(tmp, KafkoOptions.builder().linger(Duration.ZERO).observer(observer).build())) {
            kafko.createTopic("t");
            Producer p = kafko.producer("t");
            CompletableFuture<Throwable> refused = new CompletableFuture<>();
            observer.next.set(() -> {
                try {
                    p.flush();
                    refused.complete(null);
                } catch (Throwable e) {
                    refused.complete(e);
                }
            });
            // on a thread of its own: a flush that waited for itself would hold it for ever
            Thread sender = new Thread(() -> p.send(null, new byte[] {0}), "sender");
            sender.setDaemon(true);
            sender.start();
            assertThat(refused).succeedsWithin(BOUND_SECONDS, TimeUnit.SECONDS)
                    .isInstanceOf(IllegalStateException.class);
            assertThat(refused.join()).hasMessageContaining("t-0").hasMessageContaining("a flush from inside")
                    .hasMessageContaining("KafkoObserver");
            sender.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
            assertThat(sender.isAlive()).isFalse();
            assertThat(p.send(null, new byte[] {1}).join().offset()).isEqualTo(1);
            p.flush();
        }
    }

    /**
     * A close returns only once the callback of a send written before it, running on another thread, has returned:
     * it waits for it (here: until the test sees the wait and lets the callback go), and warns of nothing.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCloseReturnsOnceTheCallbacksOfTheSendsBeforeItReturned() throws Exception {
        OnAppendOfT observer = new OnAppendOfT();
        Kafko kafko = Kafko.open(tmp, KafkoOptions.builder().linger(Duration.ZERO).observer(observer).build());
        try (CapturedWarnings warnings = CapturedWarnings.of(PartitionActor.class.getName())) {
            kafko.createTopic("t");
            HeldCallback h = callbackHeldOnOwner(kafko.producer("t"), observer);
            CompletableFuture<Boolean> closed = closeOnAThread("closer", kafko::close, h);
            boolean seen = awaitParkedInBarrier(t -> t.getName().equals("closer") || t.getName().equals("kafko-close"),
                    closed);
            h.letGo.countDown();
            assertThat(closed).succeedsWithin(BOUND_SECONDS, TimeUnit.SECONDS)
                    .as("the callback had returned when the close returned").isEqualTo(true);
            assertThat(seen).as("the close waited for the callback").isTrue();
            assertThat(warnings.lines()).as("warnings").isEmpty();
        } finally {
            kafko.close();
        }
    }

    /**
     * The same from an observer of another partition: the close runs on the {@code kafko-close} thread, without the
     * caller's part (which waits for the callbacks too); a later close returns once it finished, the callback
     * returned.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCloseFromAnObserverReturnsOnceTheCallbacksOfTheSendsBeforeItReturned() throws Exception {
        OnAppendOfT observer = new OnAppendOfT();
        Kafko kafko = Kafko.open(tmp, KafkoOptions.builder().linger(Duration.ZERO).observer(observer).build());
        try {
            kafko.createTopic("t");
            kafko.createTopic("b");
            HeldCallback h = callbackHeldOnOwner(kafko.producer("t"), observer);
            CompletableFuture<Throwable> fromObserver = new CompletableFuture<>();
            observer.nextOfB.set(() -> {
                try {
                    kafko.close(); // inside b's append: the close goes on on kafko-close
                    fromObserver.complete(null);
                } catch (Throwable e) {
                    fromObserver.complete(e);
                }
            });
            Thread bSender = new Thread(() -> kafko.producer("b").send(null, new byte[] {2}), "b-sender");
            bSender.setDaemon(true);
            bSender.start();
            assertThat(fromObserver).succeedsWithin(BOUND_SECONDS, TimeUnit.SECONDS).isNull();
            CompletableFuture<Boolean> later = closeOnAThread("later-closer", kafko::close, h);
            boolean seen = awaitParkedInBarrier(t -> t.getName().equals("kafko-close"), later);
            h.letGo.countDown();
            assertThat(later).succeedsWithin(BOUND_SECONDS, TimeUnit.SECONDS)
                    .as("the callback had returned when the close finished").isEqualTo(true);
            assertThat(seen).as("kafko-close waited for the callback").isTrue();
        } finally {
            kafko.close();
        }
    }

    /**
     * A callback that waits for the close itself (as one that calls {@code System.exit} waits for the shutdown hook
     * that closes) holds the close its bound, {@link PartitionCommands#CLOSE_COMPLETION_WAIT}, not for ever; the
     * close says so in a warning and goes on.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCallbackThatWaitsForTheCloseHoldsItOnlyItsBoundAndIsWarnedOf() throws Exception {
        OnAppendOfT observer = new OnAppendOfT();
        Kafko kafko = Kafko.open(tmp, KafkoOptions.builder().linger(Duration.ZERO).observer(observer).build());
        HeldCallback h = null;
        try (CapturedWarnings warnings = CapturedWarnings.of(PartitionActor.class.getName())) {
            kafko.createTopic("t");
            h = callbackHeldOnOwner(kafko.producer("t"), observer);
            CompletableFuture<Boolean> closed = closeOnAThread("closer", kafko::close, h);
            assertThat(closed).as("the close, its bound passed").succeedsWithin(60, TimeUnit.SECONDS)
                    .as("the callback was still waiting").isEqualTo(false);
            assertThat(warnings.lines()).as("warnings").isNotEmpty().allSatisfy(w -> assertThat(w)
                    .contains("partition t-0").contains("still completing their futures").contains("the close goes on"));
        } finally {
            if (h != null) {
                h.letGo.countDown();
            }
            kafko.close();
        }
    }

    /**
     * A flush interrupted while it waits for the callback of a send before it throws {@link InterruptException} and
     * keeps the interrupt.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aFlushInterruptedWhileItWaitsForACallbackThrowsAndKeepsTheInterrupt() throws Exception {
        OnAppendOfT observer = new OnAppendOfT();
        try (Kafko kafko = Kafko.open(tmp, KafkoOptions.builder().linger(Duration.ZERO).observer(observer).build())) {
            kafko.createTopic("t");
            Producer p = kafko.producer("t");
            HeldCallback h = callbackHeldOnOwner(p, observer);
            CompletableFuture<Throwable> thrown = new CompletableFuture<>();
            AtomicBoolean interruptedAfter = new AtomicBoolean();
            Thread flusher = new Thread(() -> {
                try {
                    p.flush();
                    thrown.complete(null);
                } catch (Throwable e) {
                    interruptedAfter.set(Thread.currentThread().isInterrupted());
                    thrown.complete(e);
                }
            }, "flusher");
            flusher.setDaemon(true);
            flusher.start();
            try {
                assertThat(awaitParkedInBarrier(t -> t == flusher, thrown)).as("the flush waits for the callback")
                        .isTrue();
                flusher.interrupt();
                assertThat(thrown).succeedsWithin(BOUND_SECONDS, TimeUnit.SECONDS)
                        .isInstanceOf(InterruptException.class);
                assertThat(thrown.join()).hasMessageContaining("t-0");
                assertThat(interruptedAfter).as("the flusher keeps its interrupt").isTrue();
            } finally {
                h.letGo.countDown();
            }
        }
    }

    /**
     * A close interrupted while it waits for the callback of a send before it goes on waiting (the callback had
     * returned when it returned) and keeps the interrupt.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCloseInterruptedWhileItWaitsForACallbackGoesOnWaitingAndKeepsTheInterrupt() throws Exception {
        OnAppendOfT observer = new OnAppendOfT();
        Kafko kafko = Kafko.open(tmp, KafkoOptions.builder().linger(Duration.ZERO).observer(observer).build());
        HeldCallback h = null;
        try {
            kafko.createTopic("t");
            h = callbackHeldOnOwner(kafko.producer("t"), observer);
            HeldCallback held = h;
            AtomicBoolean interruptedAfter = new AtomicBoolean();
            AtomicReference<Thread> closer = new AtomicReference<>();
            CompletableFuture<Boolean> closed = closeOnAThread("closer", () -> {
                closer.set(Thread.currentThread());
                kafko.close();
                interruptedAfter.set(Thread.currentThread().isInterrupted());
            }, h);
            assertThat(awaitParkedInBarrier(t -> t.getName().equals("closer"), closed))
                    .as("the close waits for the callback").isTrue();
            closer.get().interrupt();
            // it waits again: seen parked once more (or, were it cut short, returned with the callback waiting)
            assertThat(awaitParkedInBarrier(t -> t.getName().equals("closer") && !t.isInterrupted(), closed))
                    .as("the close waits again").isTrue();
            held.letGo.countDown();
            assertThat(closed).succeedsWithin(BOUND_SECONDS, TimeUnit.SECONDS)
                    .as("the callback had returned when the close returned").isEqualTo(true);
            assertThat(interruptedAfter).as("the closer keeps its interrupt").isTrue();
        } finally {
            if (h != null) {
                h.letGo.countDown();
            }
            kafko.close();
        }
    }

    /**
     * Outside a JVM shutdown, a close waits for a partition whatever time its owner holds it (here an observer, past
     * twice {@link PartitionCommands#CLOSE_COMPLETION_WAIT}: the bound of the caller's part and of the close's): only a
     * close in a shutdown hook gives a partition up (ExitFromCallbackTest, in a JVM of its own). It returns after the
     * owner let go, the send it held written.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void outsideAShutdownACloseWaitsForAPartitionHeldPastItsBound() throws Exception {
        OnAppendOfT observer = new OnAppendOfT();
        Kafko kafko = Kafko.open(tmp, KafkoOptions.builder().linger(Duration.ZERO).observer(observer).build());
        CountDownLatch letOwnerGo = new CountDownLatch(1);
        try {
            kafko.createTopic("t");
            Producer p = kafko.producer("t");
            CountDownLatch holding = new CountDownLatch(1);
            AtomicBoolean letGo = new AtomicBoolean();
            observer.next.set(() -> {
                holding.countDown();
                awaitQuietly(letOwnerGo);
                letGo.set(true);
            });
            AtomicReference<CompletableFuture<RecordPosition>> held = new AtomicReference<>();
            Thread owner = new Thread(() -> held.set(p.send(null, new byte[] {0})), "owner");
            owner.setDaemon(true);
            owner.start();
            assertThat(holding.await(BOUND_SECONDS, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Boolean> closed = new CompletableFuture<>();
            Thread closer = new Thread(() -> {
                try {
                    kafko.close();
                    closed.complete(letGo.get());
                } catch (Throwable e) {
                    closed.completeExceptionally(e);
                }
            }, "closer");
            closer.setDaemon(true);
            closer.start();
            // a time, not a sequence: the bound of each of the close's two waits for the partition passes meanwhile
            long hold = PartitionCommands.CLOSE_COMPLETION_WAIT.toMillis() * 2 + 2_000;
            assertThat(closed).as("the close returned while the owner held the partition")
                    .failsWithin(hold, TimeUnit.MILLISECONDS);
            letOwnerGo.countDown();
            assertThat(closed).succeedsWithin(BOUND_SECONDS, TimeUnit.SECONDS).isEqualTo(true);
            owner.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
            assertThat(held.get()).succeedsWithin(BOUND_SECONDS, TimeUnit.SECONDS);
        } finally {
            letOwnerGo.countDown();
            kafko.close();
        }
        try (Kafko again = Kafko.open(tmp)) {
            assertThat(again.topic("t").orElseThrow().partition(0).endOffset()).isEqualTo(1);
        }
    }

    /**
     * Retention with more segments due than a run may delete ({@link RetentionPace#SEGMENTS_MIN} at first): the runs
     * follow each other on the scheduler until none is due, not one a {@code retentionCheckInterval} (an hour here);
     * each run tells the observer the bytes it freed; once nothing is due the scheduler goes idle (it does not run
     * retention again and again for nothing).
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void retentionRunsBackToBackUntilNothingIsDueAndTellsTheBytesItFreed() throws Exception {
        MutableClock clock = new MutableClock(1_700_000_000_000L);
        int records = 150;
        long sizeAtClose;
        try (Kafko kafko = Kafko.open(tmp, KafkoOptions.builder().clock(clock).retentionCheckInterval(Duration.ofHours(1))
                .build())) {
            kafko.createTopic("r", TopicConfig.builder().segmentBytes(TopicConfig.MIN_SEGMENT_BYTES)
                    .retention(Duration.ofHours(1)).build());
            Producer p = kafko.producer("r");
            for (int i = 0; i < records; i++) {
                p.send(null, new byte[900]).join();
            }
            assertThat(kafko.topic("r").orElseThrow().partition(0).segmentCount()).isGreaterThan(2 * RetentionPace.SEGMENTS_MIN);
            sizeAtClose = kafko.topic("r").orElseThrow().partition(0).sizeBytes();
        }
        clock.advance(Duration.ofHours(2));
        List<long[]> runs = new CopyOnWriteArrayList<>();
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onRetention(String topic, int partition, int segments, long bytes) {
                runs.add(new long[] {segments, bytes});
            }
        };
        // the open runs retention once at once; the interval would run it again in an hour
        try (Kafko kafko = Kafko.open(tmp, KafkoOptions.builder().clock(clock).retentionCheckInterval(Duration.ofHours(1))
                .observer(observer).build())) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
            while (kafko.topic("r").orElseThrow().partition(0).logStartOffset() < records - 1
                    || runs.stream().mapToLong(r -> r[0]).sum() < records - 1) {
                assertThat(System.nanoTime() - deadline).as("retention deleted every segment due, in runs %s: %s",
                        runs.stream().map(r -> r[0]).toList(), kafko.topic("r").orElseThrow().partition(0)).isNegative();
                Thread.onSpinWait();
                Thread.yield();
            }
            assertThat(runs).as("runs").hasSizeGreaterThan(1);
            long sizeNow = kafko.topic("r").orElseThrow().partition(0).sizeBytes();
            assertThat(runs.stream().mapToLong(r -> r[1]).sum()).as("the bytes the runs freed")
                    .isEqualTo(sizeAtClose - sizeNow);
            assertThat(awaitSchedulerIdle()).as("the scheduler goes idle once nothing is due").isTrue();
        }
    }

    /** Waits (bounded) until the instance's scheduler thread is seen waiting for its next task. */
    private static boolean awaitSchedulerIdle() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() - deadline < 0) {
            for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
                Thread.State s = e.getKey().getState();
                if (e.getKey().getName().equals(Scheduler.THREAD_NAME)
                        && (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING)) {
                    for (StackTraceElement f : e.getValue()) {
                        if (f.getMethodName().equals("getTask")) {
                            return true;
                        }
                    }
                }
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        return false;
    }
}
