package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.BrokerBridge;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Close from the user's observer callbacks, and what a second close reports when the first failed. */
class CloseFromObserversTest {

    static final byte[] V = "v".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path tmp;

    static boolean finishes(CompletableFuture<?> f, long seconds) throws Exception {
        try {
            f.get(seconds, TimeUnit.SECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (java.util.concurrent.ExecutionException e) {
            return true;
        }
    }

    static CompletableFuture<Void> daemon(String name, Runnable r) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                r.run();
                f.complete(null);
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return f;
    }

    static void awaitBlocked(Thread t) throws InterruptedException {
        for (int i = 0; i < 500; i++) {
            Thread.State s = t.getState();
            if (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING || s == Thread.State.BLOCKED) {
                Thread.sleep(50);
                return;
            }
            Thread.sleep(10);
        }
    }

    /**
     * A second close() waits for the first, but not from KafkoObserver.onCommit, which runs under the group's
     * commits lock that the first close needs.
     */
    @Test
    void aSecondCloseFromAnObserversOnCommitReturnsAndLetsTheFirstFinish() throws Exception {
        AtomicReference<Kafko> ref = new AtomicReference<>();
        CountDownLatch inOnCommit = new CountDownLatch(1);
        CountDownLatch firstCloseMarked = new CountDownLatch(1);
        AtomicBoolean armed = new AtomicBoolean();
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onCommit(String topic, String group) {
                if (!armed.compareAndSet(true, false)) {
                    return;
                }
                inOnCommit.countDown();
                try {
                    firstCloseMarked.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                ref.get().close(); // e.g. "stop after this commit"; another close is already running
            }
        };
        Kafko k = Kafko.open(tmp.resolve("d"), KafkoOptions.builder().observer(observer).build());
        ref.set(k);
        k.createTopic("t");
        k.producer("t").send(null, V).join();
        Consumer c = k.groupConsumer("t", "g");
        c.poll(Duration.ofSeconds(2));
        armed.set(true);
        CompletableFuture<Void> committing = daemon("committer", c::commit);
        assertThat(inOnCommit.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> closing = daemon("first-closer", k::close);
        // wait until the first close marked the instance closed
        for (int i = 0; i < 500; i++) {
            try {
                k.topics();
                Thread.sleep(5);
            } catch (KafkoClosedException e) {
                break;
            }
        }
        firstCloseMarked.countDown();
        boolean closed = finishes(closing, 10);
        boolean committed = finishes(committing, 1);
        assertThat(closed && committed)
                .as("first close returned: %s; commit (whose observer closed) returned: %s%s", closed, committed,
                        CloseFromKafkoThreadsTest.stacks() + threads("first-closer", "committer"))
                .isTrue();
    }

    static String threads(String... names) {
        StringBuilder b = new StringBuilder();
        Thread.getAllStackTraces().forEach((t, st) -> {
            for (String n : names) {
                if (t.getName().equals(n)) {
                    b.append("\n  ").append(t.getName()).append(' ').append(t.getState());
                    for (int i = 0; i < Math.min(st.length, 12); i++) {
                        b.append("\n      at ").append(st[i]);
                    }
                }
            }
        });
        return b.toString();
    }

    /** A second close, a durability boundary for its caller too, throws what the first one threw. */
    @Test
    void aSecondCloseThrowsWhatTheFirstCloseThrew() throws Exception {
        AtomicBoolean failForce = new AtomicBoolean();
        CountDownLatch forcing = new CountDownLatch(1);
        CountDownLatch secondWaiting = new CountDownLatch(1);
        HookedFileIo io = new HookedFileIo(new HookedFileIo.Hooks() {
            @Override
            public void beforeForce(Path path) throws IOException {
                if (failForce.get() && path.toString().endsWith(".log")) {
                    forcing.countDown();
                    try {
                        secondWaiting.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    throw new IOException("injected: fsync failed (EIO)");
                }
            }
        });
        Kafko k = BrokerBridge.open(tmp.resolve("d"), KafkoOptions.DEFAULTS, io);
        k.createTopic("t");
        k.producer("t").send(null, V).join();
        failForce.set(true);
        CompletableFuture<Void> first = daemon("first-closer", k::close);
        assertThat(forcing.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> second = daemon("second-closer", k::close);
        Thread.sleep(300); // second close is waiting for the first
        secondWaiting.countDown();
        Throwable firstFailure = null;
        try {
            first.get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            firstFailure = e.getCause();
        }
        Throwable secondFailure = null;
        try {
            second.get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            secondFailure = e.getCause();
        }
        assertThat(firstFailure).as("the first close reports the failed fsync").isNotNull();
        assertThat(secondFailure).as("the second close, a durability boundary for its caller too, reports it"
                + " (first close threw %s)", firstFailure).isNotNull();
    }

    /**
     * close() from KafkoObserver.onAppend, on a thread that owns the partition the close needs: it returns at
     * once, and the instance closes on a thread of its own.
     */
    @Test
    void aCloseFromAnObserversOnAppendReturnsAndTheInstanceCloses() throws Exception {
        AtomicReference<Kafko> ref = new AtomicReference<>();
        AtomicBoolean armed = new AtomicBoolean();
        CountDownLatch returned = new CountDownLatch(1);
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
                if (armed.compareAndSet(true, false)) {
                    ref.get().close();
                    returned.countDown();
                }
            }
        };
        Kafko k = Kafko.open(tmp.resolve("d"), KafkoOptions.builder().observer(observer).build());
        ref.set(k);
        k.createTopic("t");
        armed.set(true);
        CompletableFuture<Void> s = daemon("sender-o", () -> k.producer("t").send(null, V));
        boolean ok = returned.await(10, TimeUnit.SECONDS);
        assertThat(ok).as("close() called from onAppend returned%s", threads("sender-o")).isTrue();
        // closed: its lock released, so the directory opens again
        Kafko again = null;
        for (int i = 0; i < 500 && again == null; i++) {
            try {
                again = Kafko.open(tmp.resolve("d"));
            } catch (dev.kafko.AlreadyOpenException e) {
                Thread.sleep(20);
            }
        }
        assertThat(again).as("the directory opened again after the close").isNotNull();
        again.close();
    }
}
