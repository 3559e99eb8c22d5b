package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * close() completes every pending send before it returns: a CLOSE that a closer takes while the round before
 * it still completes its futures (a slow callback on the first of them) waits for that round, as a flush does
 * (it returned with the round's later futures incomplete, 6 of 6 runs, once a command's caller took the
 * partition itself).
 */
class CloseCompletesPendingSendsTest {

    @TempDir
    Path tmp;


    final AtomicReference<AppendGate> gate = new AtomicReference<>();
    final AtomicReference<CompletableFuture<RecordPosition>> second = new AtomicReference<>();
    final AtomicBoolean secondDoneAtDeletedEvent = new AtomicBoolean(true);

    KafkoOptions options() {
        return KafkoOptions.builder().linger(Duration.ZERO).observer(new KafkoObserver() {
            @Override
            public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
                AppendGate.stopAt(gate);
            }

            @Override
            public void onTopicDeleted(String topic) {
                CompletableFuture<RecordPosition> f = second.get();
                secondDoneAtDeletedEvent.set(f != null && f.isDone());
            }
        }).build();
    }

    /**
     * One round [s1, s2] owned by thread "owner" (held in its append while the close queues its CLOSE); s1's
     * callback then takes 1 s. Returns s2, whose state the caller checks right after {@code admin} returned.
     */
    CompletableFuture<RecordPosition> slowRoundThen(Kafko k, Runnable admin, AtomicReference<Boolean> s2DoneOnReturn)
            throws Exception {
        return slowRoundThen(k, admin, s2DoneOnReturn, true);
    }

    /** {@code queued}: the admin call is made while the owner holds [s1, s2]; else once it is completing them. */
    CompletableFuture<RecordPosition> slowRoundThen(Kafko k, Runnable admin, AtomicReference<Boolean> s2DoneOnReturn,
            boolean queued) throws Exception {
        CountDownLatch completing = new CountDownLatch(1);
        Producer p = k.producer("t");
        AppendGate g1 = new AppendGate();
        gate.set(g1);
        Thread owner = new Thread(() -> p.send(null, new byte[8]), "owner"); // held in its append
        owner.setDaemon(true);
        owner.start();
        assertThat(g1.entered.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<RecordPosition> s1 = p.send(null, new byte[8]);
        CompletableFuture<RecordPosition> s2 = p.send(null, new byte[8]);
        second.set(s2);
        s1.whenComplete((m, e) -> {
            completing.countDown();
            sleep(1_000); // a slow callback on the round's first future
        });
        AppendGate g2 = new AppendGate();
        gate.set(g2);
        g1.release.countDown();
        assertThat(g2.entered.await(10, TimeUnit.SECONDS)).isTrue(); // the owner appends [s1, s2] as one round
        Thread adminThread = new Thread(() -> {
            admin.run();
            s2DoneOnReturn.set(s2.isDone());
        }, "admin");
        adminThread.setDaemon(true);
        if (queued) {
            adminThread.start();
            Thread.sleep(200); // the CLOSE / DELETE is queued while the owner holds [s1, s2]
            g2.release.countDown();
        } else {
            g2.release.countDown();
            completing.await();
            adminThread.start();
        }
        adminThread.join(20_000);
        assertThat(adminThread.isAlive()).isFalse();
        owner.join(10_000);
        return s2;
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void closeReturnsOnlyOnceEveryPendingSendIsCompleted() throws Exception {
        AtomicReference<Boolean> doneOnReturn = new AtomicReference<>();
        Kafko k = Kafko.open(tmp, options());
        k.createTopic("t");
        slowRoundThen(k, k::close, doneOnReturn);
        assertThat(doneOnReturn.get()).as("a send written before the close, completed when close() returned").isTrue();
    }

    /** The same, with close() called once the owner released [s1, s2] and is completing them. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void closeDuringASlowCompletionReturnsOnlyOnceEveryPendingSendIsCompleted() throws Exception {
        AtomicReference<Boolean> doneOnReturn = new AtomicReference<>();
        Kafko k = Kafko.open(tmp, options());
        k.createTopic("t");
        slowRoundThen(k, k::close, doneOnReturn, false);
        assertThat(doneOnReturn.get()).as("a send written before the close, completed when close() returned").isTrue();
    }
}
