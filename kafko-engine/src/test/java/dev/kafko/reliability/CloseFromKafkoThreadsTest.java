package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Fixtures;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Close from and beside kafko's own threads: a send's callback that closes the instance, or makes an admin
 * call while another thread closes it, on the scheduler and on the close helpers; no thread left behind.
 */
class CloseFromKafkoThreadsTest {

    static final byte[] VALUE = "v".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path tmp;

    static String stacks() {
        StringBuilder b = new StringBuilder();
        Thread.getAllStackTraces().forEach((t, st) -> {
            if (t.getName().startsWith("kafko-") || t.getName().startsWith("test-task")) {
                b.append("\n  ").append(t.getName()).append(' ').append(t.getState());
                for (int i = 0; i < Math.min(st.length, 14); i++) {
                    b.append("\n      at ").append(st[i]);
                }
            }
        });
        return b.toString();
    }

    static List<String> kafkoThreads() {
        List<String> out = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith("kafko-")) {
                out.add(t.getName() + "/" + t.getState());
            }
        }
        return out;
    }

    /** close() joins the scheduler's thread, not only its executor's termination. */
    @Test
    void noKafkoThreadIsAliveRightAfterCloseReturns() throws Exception {
        int rounds = 300;
        int leftAlive = 0;
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            Kafko k = Kafko.open(tmp.resolve("d" + i));
            Thread.sleep(2); // the retention task at open has run
            List<Thread> before = new ArrayList<>();
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().startsWith("kafko-")) {
                    before.add(t);
                }
            }
            k.close();
            List<String> alive = new ArrayList<>();
            for (Thread t : before) {
                if (t.isAlive()) {
                    alive.add(t.getName() + "/" + t.getState());
                }
            }
            if (!alive.isEmpty()) {
                leftAlive++;
                if (seen.size() < 5) {
                    seen.add(alive.toString());
                }
                // let it go before the next round
                Thread.sleep(20);
            }
        }
        assertThat(leftAlive).as("closes after which a kafko- thread was still alive, e.g. %s", seen).isZero();
    }

    /**
     * A send's callback may run on kafko-scheduler (the scheduler ends lingers and completes the lingered
     * futures); a close from there must not wait for the scheduler, that is, for itself.
     */
    @Test
    void closeFromACallbackThatRunsOnTheSchedulerReturns() throws Exception {
        Kafko k = Kafko.open(tmp.resolve("d"), KafkoOptions.builder().linger(Duration.ofMillis(300)).build());
        k.createTopic("t");
        Producer p = k.producer("t");
        AtomicReference<String> thread = new AtomicReference<>();
        CountDownLatch closed = new CountDownLatch(1);
        Thread test = Thread.currentThread();
        // a linger that ended before the callback was added runs it on this thread at once: again
        for (int attempt = 0; attempt < 100; attempt++) {
            thread.set(null);
            Fixtures.lingeringSend(p, VALUE).whenComplete((pos, e) -> {
                thread.set(Thread.currentThread().getName());
                if (Thread.currentThread() != test) {
                    k.close(); // e.g. "stop on the first failed/acknowledged record"
                    closed.countDown();
                }
            });
            if (!test.getName().equals(thread.get())) {
                break; // the callback was added in time: it runs on the thread that ends the linger
            }
        }
        boolean returned = closed.await(10, TimeUnit.SECONDS);
        assertThat(thread.get()).isEqualTo("kafko-scheduler");
        assertThat(returned).as("close() called in a callback on kafko-scheduler returned within 10 s: %s", stacks())
                .isTrue();
        // and the instance is closed: its lock released, its threads gone
        Kafko.open(tmp.resolve("d")).close();
        awaitNoKafkoThread();
    }

    /**
     * A close waits for the scheduler's running task; a callback on kafko-scheduler that calls createTopic
     * at that moment must find the instance closed, not wait for a lock the close holds.
     */
    @Test
    void closeRacingAnAdminCallFromASchedulerCallbackReturns() throws Exception {
        Kafko k = Kafko.open(tmp.resolve("d"), KafkoOptions.builder().linger(Duration.ofMillis(300)).build());
        k.createTopic("t");
        Producer p = k.producer("t");
        CountDownLatch inCallback = new CountDownLatch(1);
        CountDownLatch closeStarted = new CountDownLatch(1);
        AtomicReference<Object> adminResult = new AtomicReference<>();
        AtomicReference<String> ranOn = new AtomicReference<>();
        Thread test = Thread.currentThread();
        // a linger that ended before the callback was added runs it on this thread at once: again
        for (int attempt = 0; attempt < 100; attempt++) {
            ranOn.set(null);
            Fixtures.lingeringSend(p, VALUE).whenComplete((pos, e) -> {
                ranOn.set(Thread.currentThread().getName());
                if (Thread.currentThread() != test) {
                    schedulerCallback(k, inCallback, closeStarted, adminResult);
                }
            });
            if (!test.getName().equals(ranOn.get())) {
                break; // the callback was added in time: it runs on the thread that ends the linger
            }
        }
        assertThat(inCallback.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> closing = Fixtures.onNewThread(() -> {
            closeStarted.countDown();
            k.close();
        });
        boolean returned;
        try {
            closing.get(10, TimeUnit.SECONDS);
            returned = true;
        } catch (java.util.concurrent.TimeoutException e) {
            returned = false;
        }
        assertThat(ranOn.get()).isEqualTo("kafko-scheduler");
        assertThat(returned).as("close() returned while a scheduler callback called createTopic: %s", stacks())
                .isTrue();
        awaitUntilSet(adminResult);
        assertThat(adminResult.get()).isInstanceOf(dev.kafko.KafkoClosedException.class);
    }

    /** The callback of {@link #closeRacingAnAdminCallFromASchedulerCallbackReturns} on kafko-scheduler. */
    private static void schedulerCallback(Kafko k, CountDownLatch inCallback, CountDownLatch closeStarted,
                                          AtomicReference<Object> adminResult) {
        inCallback.countDown();
        try {
            closeStarted.await(10, TimeUnit.SECONDS);
            Thread.sleep(200); // close() is now inside, holding its lock and waiting for this thread
            adminResult.set(k.createTopic("dead-letters"));
        } catch (Throwable t) {
            adminResult.set(t);
        }
    }

    /**
     * The same on the close helpers: a close of 128+ partitions drains some of them on kafko-close-N
     * threads, which complete the futures of the lingering sends and so run their callbacks; close()
     * joins them. A callback that calls createTopic there must not wait for the close.
     */
    @Test
    void closeOfManyPartitionsRacingAnAdminCallFromACallbackOnACloseHelperReturns() throws Exception {
        Kafko k = Kafko.open(tmp.resolve("d"), KafkoOptions.builder().linger(Duration.ofHours(1)).build());
        k.createTopic("t", dev.kafko.TopicConfig.builder().partitions(256).build());
        Producer p = k.producer("t");
        AtomicReference<String> ranOn = new AtomicReference<>();
        AtomicReference<Object> adminResult = new AtomicReference<>();
        int lingering = 0;
        for (int part = 0; part < 256; part++) {
            CompletableFuture<RecordPosition> f = null;
            for (int i = 0; i < 10_000 && (f == null || f.isDone()); i++) {
                f = p.sendTo(part, null, VALUE);
            }
            if (!f.isDone()) {
                lingering++;
                f.whenComplete((pos, e) -> {
                    String name = Thread.currentThread().getName();
                    if (name.startsWith("kafko-close-") && ranOn.compareAndSet(null, name)) {
                        try {
                            adminResult.set(k.createTopic("after-" + name));
                        } catch (Throwable t) {
                            adminResult.set(t);
                        }
                    }
                });
            }
        }
        CompletableFuture<Void> closing = Fixtures.onNewThread(k::close);
        boolean returned;
        try {
            closing.get(10, TimeUnit.SECONDS);
            returned = true;
        } catch (java.util.concurrent.TimeoutException e) {
            returned = false;
        }
        assertThat(returned).as("close() returned (a callback on %s called createTopic)", ranOn.get()).isTrue();
        if (ranOn.get() != null) { // the helpers may have had nothing left to close
            assertThat(adminResult.get()).isInstanceOf(dev.kafko.KafkoClosedException.class);
        }
    }

    static void awaitUntilSet(AtomicReference<?> ref) throws InterruptedException {
        for (int i = 0; i < 1000 && ref.get() == null; i++) {
            Thread.sleep(10);
        }
    }

    static void awaitNoKafkoThread() throws InterruptedException {
        for (int i = 0; i < 1000 && !kafkoThreads().isEmpty(); i++) {
            Thread.sleep(10);
        }
        assertThat(kafkoThreads()).isEmpty();
    }
}
