package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.PartitionState;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.internal.broker.BrokerBridge;
import dev.kafko.internal.io.FaultyFileIo;
import java.util.concurrent.CompletableFuture;
import dev.kafko.TopicConfig;
import dev.kafko.internal.log.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Broker.applyRetention loops {@code do runCommand(RETENTION) while (retentionUnfinished && !closed)}. A RETENTION
 * command that reaches a partition no longer RUNNING (deleted, closed, failed) is a no-op that leaves
 * retentionUnfinished as the previous run set it (true): the kafko-scheduler thread then spins for ever, and
 * nothing else it runs (interval fsyncs, linger ends, other topics' retention) runs again until close().
 */
class RetentionLoopAfterDeleteTest {

    @TempDir
    Path dir;

    @Test
    void aTopicDeletedBetweenTwoRetentionRunsDoesNotHoldTheSchedulerForEver() throws Exception {
        MutableClock clock = new MutableClock(1_700_000_000_000L);
        AtomicReference<Kafko> kafkoRef = new AtomicReference<>();
        AtomicReference<Thread> deleter = new AtomicReference<>();
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch fsynced = new CountDownLatch(1);
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onRetention(String topic, int partition, int segments, long bytes) {
                // a deleteTopic from another thread while the first run is being reported: its DELETE command is
                // queued behind this run, before the scheduler posts the next RETENTION
                deleteOnFirstRun(topic, runs, kafkoRef, deleter);
            }

            @Override
            public void onFsync(String topic, int partition, long nanos) {
                if (topic.equals("f")) {
                    fsynced.countDown();
                }
            }
        };
        KafkoOptions options = KafkoOptions.builder().clock(clock).retentionCheckInterval(Duration.ofMillis(20))
                .observer(observer).build();
        try (Kafko kafko = Kafko.open(dir, options)) {
            kafkoRef.set(kafko);
            kafko.createTopic("f", TopicConfig.builder().fsync(FsyncPolicy.interval(Duration.ofMillis(20))).build());
            kafko.createTopic("r", TopicConfig.builder().segmentBytes(TopicConfig.MIN_SEGMENT_BYTES)
                    .retention(Duration.ofHours(1)).build());
            Producer r = kafko.producer("r");
            for (int i = 0; i < 12; i++) {
                r.send(null, new byte[900]).join();
            }
            clock.advance(Duration.ofHours(2)); // every segment expired: 3 runs of 4 are due

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (deleter.get() == null && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(deleter.get()).as("a first retention run happened").isNotNull();
            deleter.get().join(10_000);
            assertThat(deleter.get().isAlive()).as("deleteTopic returned").isFalse();

            // the scheduler should now be free for the other topic's interval fsync
            assertSchedulerFree(kafko, fsynced);
        }
    }

    @Test
    void aPartitionFailedBetweenTwoRetentionRunsDoesNotHoldTheSchedulerForEver() throws Exception {
        MutableClock clock = new MutableClock(1_700_000_000_000L);
        FaultyFileIo io = new FaultyFileIo().syncs(false);
        AtomicReference<Producer> producer = new AtomicReference<>();
        AtomicReference<CompletableFuture<RecordPosition>> failing = new AtomicReference<>();
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch fsynced = new CountDownLatch(1);
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onRetention(String topic, int partition, int segments, long bytes) {
                if (topic.equals("r") && runs.getAndIncrement() == 0) {
                    // a send queued behind this run, on a full disk: it fails the partition before the next run
                    io.diskFull(true);
                    Thread t = new Thread(() -> failing.set(producer.get().send(null, new byte[900])));
                    t.start();
                    try {
                        t.join();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }

            @Override
            public void onFsync(String topic, int partition, long nanos) {
                if (topic.equals("f")) {
                    fsynced.countDown();
                }
            }
        };
        KafkoOptions options = KafkoOptions.builder().clock(clock).retentionCheckInterval(Duration.ofMillis(20))
                .observer(observer).build();
        try (Kafko kafko = BrokerBridge.open(dir, options, io)) {
            kafko.createTopic("f", TopicConfig.builder().fsync(FsyncPolicy.interval(Duration.ofMillis(20))).build());
            kafko.createTopic("r", TopicConfig.builder().segmentBytes(TopicConfig.MIN_SEGMENT_BYTES)
                    .retention(Duration.ofHours(1)).build());
            producer.set(kafko.producer("r"));
            for (int i = 0; i < 12; i++) {
                producer.get().send(null, new byte[900]).join();
            }
            clock.advance(Duration.ofHours(2));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (failing.get() == null && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(failing.get()).isNotNull();
            assertThat(failing.get()).failsWithin(Duration.ofSeconds(10));
            assertThat(kafko.topic("r").orElseThrow().partition(0).state()).isEqualTo(PartitionState.FAILED);
            io.diskFull(false);

            assertSchedulerFree(kafko, fsynced);
        }
    }

    @Test
    void aSendHandedToTheSchedulerIsNeverWrittenOnceTheRetentionLoopSpins() throws Exception {
        MutableClock clock = new MutableClock(1_700_000_000_000L);
        AtomicReference<Kafko> kafkoRef = new AtomicReference<>();
        AtomicReference<Thread> deleter = new AtomicReference<>();
        AtomicReference<Producer> toH = new AtomicReference<>();
        AtomicReference<CompletableFuture<RecordPosition>> fromObserver = new AtomicReference<>();
        AtomicInteger runs = new AtomicInteger();
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onRetention(String topic, int partition, int segments, long bytes) {
                // a deleteTopic from another thread while the first run is being reported: its DELETE command is
                // queued behind this run, before the scheduler posts the next RETENTION
                deleteOnFirstRun(topic, runs, kafkoRef, deleter);
            }

            @Override
            public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
                if (topic.equals("g") && toH.get() != null && fromObserver.get() == null) {
                    // a send from the owner of g's partition: h's partition is drained by kafko-scheduler
                    fromObserver.set(toH.get().send(null, new byte[] {2}));
                }
            }
        };
        KafkoOptions options = KafkoOptions.builder().clock(clock).retentionCheckInterval(Duration.ofMillis(20))
                .observer(observer).build();
        try (Kafko kafko = Kafko.open(dir, options)) {
            kafkoRef.set(kafko);
            kafko.createTopic("g", TopicConfig.DEFAULTS);
            kafko.createTopic("h", TopicConfig.DEFAULTS);
            kafko.createTopic("r", TopicConfig.builder().segmentBytes(TopicConfig.MIN_SEGMENT_BYTES)
                    .retention(Duration.ofHours(1)).build());
            Producer r = kafko.producer("r");
            for (int i = 0; i < 12; i++) {
                r.send(null, new byte[900]).join();
            }
            clock.advance(Duration.ofHours(2));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (deleter.get() == null && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            deleter.get().join(10_000);
            assertThat(deleter.get().isAlive()).isFalse();

            toH.set(kafko.producer("h"));
            kafko.producer("g").send(null, new byte[] {1}).join();
            CompletableFuture<RecordPosition> f = fromObserver.get();
            assertThat(f).isNotNull();
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!f.isDone() && System.nanoTime() < deadline) {
                Thread.sleep(5); // not joined: a join would drain h itself
            }
            assertThat(f.isDone()).as("the send to h made from g's observer was written within 30 s; h holds "
                    + kafko.topic("h").orElseThrow().partition(0) + "; kafko-scheduler is at " + schedulerStack())
                    .isTrue();
        }
    }

    static String schedulerStack() {
        for (var e : Thread.getAllStackTraces().entrySet()) {
            if (e.getKey().getName().equals("kafko-scheduler")) {
                return e.getKey().getState() + " " + Arrays.toString(Arrays.copyOf(e.getValue(),
                        Math.min(8, e.getValue().length)));
            }
        }
        return "(no scheduler thread)";
    }

    /** On topic r's first retention run: deletes r from another thread, and gives it time to queue its command. */
    private static void deleteOnFirstRun(String topic, AtomicInteger runs, AtomicReference<Kafko> kafko,
                                         AtomicReference<Thread> deleter) {
        if (topic.equals("r") && runs.getAndIncrement() == 0) {
            Thread t = new Thread(() -> kafko.get().deleteTopic("r"), "tryout-deleter");
            deleter.set(t);
            t.start();
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A send to topic f, whose interval fsync the scheduler runs within 30 s unless something holds it. */
    private static void assertSchedulerFree(Kafko kafko, CountDownLatch fsynced) throws InterruptedException {
        kafko.producer("f").send(null, new byte[] {1}).join();
        assertThat(fsynced.await(30, TimeUnit.SECONDS)).as("the interval fsync of topic f ran within 30 s;"
                + " kafko-scheduler is at " + schedulerStack()).isTrue();
    }
}
