package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.TopicConfig;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A command's caller that owns another partition (a KafkoObserver callback) hands its drain to
 * kafko-scheduler. When that caller is kafko-scheduler itself (onFsync of an interval flush), nothing ran the
 * command: deleteTopic of another topic hung for ever with the admin lock held (so close() hung too), and the
 * scheduler's queue grew by about 100 tasks a second. Such a caller now takes the partition itself.
 */
class SchedulerObserverAdminTest {

    @TempDir
    Path tmp;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void deleteTopicOfAnotherTopicFromAnObserverOnTheSchedulerThreadReturns() throws Exception {
        AtomicReference<Kafko> ref = new AtomicReference<>();
        AtomicBoolean armed = new AtomicBoolean();
        AtomicReference<String> thread = new AtomicReference<>();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicInteger elsewhere = new AtomicInteger();
        CountDownLatch called = new CountDownLatch(1);
        CountDownLatch returned = new CountDownLatch(1);
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onFsync(String topic, int partition, long nanos) {
                if (!topic.equals("a")) {
                    return;
                }
                if (!Thread.currentThread().getName().equals("kafko-scheduler")) {
                    // the interval flush came due while a sender still owned the partition: the sender ran it
                    elsewhere.incrementAndGet();
                    return;
                }
                if (armed.compareAndSet(true, false)) {
                    thread.set(Thread.currentThread().getName());
                    called.countDown();
                    try {
                        ref.get().deleteTopic("b");
                    } catch (Throwable t) {
                        thrown.set(t);
                    }
                    returned.countDown();
                }
            }
        };
        Kafko k = Kafko.open(tmp, KafkoOptions.builder().observer(observer).build());
        ref.set(k);
        k.createTopic("a", TopicConfig.builder().fsync(FsyncPolicy.interval(Duration.ofMillis(20))).build());
        k.createTopic("b");
        armed.set(true);
        // the first append schedules the interval flush on kafko-scheduler, which submits it to the partition: a
        // thread that owns the partition then (this one, paused 20 ms inside its own send on a busy machine) runs
        // it, and kafko-scheduler calls no observer. Another send schedules the next flush
        boolean onScheduler = false;
        for (int attempt = 0; attempt < 100 && !onScheduler; attempt++) {
            int before = elsewhere.get();
            k.producer("a").send(null, new byte[8]).join();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!(onScheduler = called.await(10, TimeUnit.MILLISECONDS)) && elsewhere.get() == before
                    && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            if (!onScheduler && elsewhere.get() == before) {
                break; // no flush at all
            }
        }
        assertThat(onScheduler).as("onFsync called on kafko-scheduler (%d flushes ran on the sender)", elsewhere.get())
                .isTrue();
        boolean done = returned.await(30, TimeUnit.SECONDS);
        int queued = schedulerQueue(k);
        Thread closer = new Thread(k::close, "closer");
        closer.setDaemon(true);
        closer.start();
        closer.join(30_000);
        assertThat(done).as("deleteTopic(\"b\") from onFsync on thread %s returned (it threw %s); the scheduler's"
                + " queue holds %d tasks after 30 s; close() from another thread still running after 30 s: %s",
                thread.get(), thrown.get(), queued, closer.isAlive()).isTrue();
        assertThat(closer.isAlive()).as("close() afterwards").isFalse();
        assertThat(thread.get()).as("the observer's thread (deleteTopic threw %s)", thrown.get()).isEqualTo("kafko-scheduler");
    }

    static int schedulerQueue(Kafko k) throws Exception {
        Object ctx = field(k, "ctx");
        Object scheduler = field(ctx, "scheduler");
        ScheduledThreadPoolExecutor ex = (ScheduledThreadPoolExecutor) field(scheduler, "executor");
        return ex.getQueue().size();
    }

    static Object field(Object o, String name) throws Exception {
        Field f = o.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(o);
    }
}
