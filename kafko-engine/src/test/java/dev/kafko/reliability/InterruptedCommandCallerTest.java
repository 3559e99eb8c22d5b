package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.InterruptException;
import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A command's caller interrupted while it waits finishes the command (a deletion, a close) and keeps its
 * interrupt; a flush still waits for the sends before it.
 */
class InterruptedCommandCallerTest {

    @TempDir
    Path tmp;


    final AtomicReference<AppendGate> gate = new AtomicReference<>();

    KafkoOptions options() {
        return KafkoOptions.builder().linger(Duration.ZERO).observer(new KafkoObserver() {
            @Override
            public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
                AppendGate.stopAt(gate);
            }
        }).build();
    }

    /** Holds the partition of "t" in thread "owner" until the returned gate is released. */
    AppendGate hold(Producer p) throws Exception {
        AppendGate g = new AppendGate();
        gate.set(g);
        Thread owner = new Thread(() -> p.send(null, new byte[8]), "owner");
        owner.setDaemon(true);
        owner.start();
        assertThat(g.entered.await(10, TimeUnit.SECONDS)).isTrue();
        return g;
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void anInterruptedDeleteFinishesAndKeepsTheInterrupt() throws Exception {
        try (Kafko k = Kafko.open(tmp, options())) {
            k.createTopic("t");
            AppendGate g = hold(k.producer("t"));
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            AtomicReference<Boolean> interruptedAfter = new AtomicReference<>();
            Thread d = new Thread(() -> {
                try {
                    k.deleteTopic("t");
                } catch (Throwable t) {
                    thrown.set(t);
                }
                interruptedAfter.set(Thread.currentThread().isInterrupted());
            }, "deleter");
            d.start();
            for (int i = 0; i < 10; i++) {
                Thread.sleep(15);
                d.interrupt();
            }
            g.release.countDown();
            d.join(10_000);
            assertThat(d.isAlive()).isFalse();
            assertThat(thrown.get()).isNull();
            assertThat(interruptedAfter.get()).isTrue();
            assertThat(Files.exists(tmp.resolve("t"))).isFalse();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void anInterruptedCloseFinishesAndKeepsTheInterrupt() throws Exception {
        Kafko k = Kafko.open(tmp, options());
        k.createTopic("t");
        AppendGate g = hold(k.producer("t"));
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Boolean> interruptedAfter = new AtomicReference<>();
        Thread c = new Thread(() -> {
            try {
                k.close();
            } catch (Throwable t) {
                thrown.set(t);
            }
            interruptedAfter.set(Thread.currentThread().isInterrupted());
        }, "closer");
        c.start();
        for (int i = 0; i < 10; i++) {
            Thread.sleep(15);
            c.interrupt();
        }
        g.release.countDown();
        c.join(10_000);
        assertThat(c.isAlive()).isFalse();
        assertThat(thrown.get()).isNull();
        assertThat(interruptedAfter.get()).isTrue();
        assertThat(Files.exists(tmp.resolve("t").resolve("0").resolve(".kafko_clean_shutdown"))
                || Files.list(tmp.resolve("t").resolve("0")).anyMatch(f -> f.getFileName().toString().contains("clean")))
                .as("clean-shutdown marker").isTrue();
        try (Kafko again = Kafko.open(tmp)) {
            assertThat(again.topics()).contains("t");
        }
    }

    /** Flush queued behind a round whose first callback is slow: it still returns only after the round's sends. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aFlushQueuedBehindASlowCompletionWaitsForItsSends() throws Exception {
        try (Kafko k = Kafko.open(tmp, options())) {
            k.createTopic("t");
            Producer p = k.producer("t");
            AppendGate g1 = hold(p);
            CompletableFuture<RecordPosition> s1 = p.send(null, new byte[8]);
            CompletableFuture<RecordPosition> s2 = p.send(null, new byte[8]);
            s1.whenComplete((m, e) -> {
                try {
                    Thread.sleep(500);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                }
            });
            AppendGate g2 = new AppendGate();
            gate.set(g2);
            g1.release.countDown();
            assertThat(g2.entered.await(10, TimeUnit.SECONDS)).isTrue();
            AtomicReference<Boolean> done = new AtomicReference<>();
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread f = new Thread(() -> {
                try {
                    p.flush();
                } catch (InterruptException e) {
                    thrown.set(e);
                }
                done.set(s2.isDone());
            }, "flusher");
            f.start();
            Thread.sleep(200);
            g2.release.countDown();
            f.join(10_000);
            assertThat(thrown.get()).isNull();
            assertThat(done.get()).as("the send before the flush, completed when flush() returned").isTrue();
        }
    }
}
