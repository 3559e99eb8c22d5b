package dev.kafko;

import static dev.kafko.Fixtures.bytes;
import static dev.kafko.Fixtures.onNewThread;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Topic#alterConfig} beside a partition's own work: refused from a partition's observer before anything
 * changes, never holding an observer's admin call while it waits for the partitions, and a shorter fsync interval
 * in force from the next append.
 */
class AlterTopicConfigConcurrencyTest {

    @TempDir
    Path dir;

    /** Run once by the next {@code onAppend}, on the thread that appends. */
    private final AtomicReference<Runnable> inAppend = new AtomicReference<>();
    private final Semaphore fsynced = new Semaphore(0);
    private final KafkoObserver observer = new KafkoObserver() {
        @Override
        public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
            Runnable r = inAppend.getAndSet(null);
            if (r != null) {
                r.run();
            }
        }

        @Override
        public void onFsync(String topic, int partition, long nanos) {
            fsynced.release();
        }
    };

    private Kafko open() {
        return Kafko.open(dir, KafkoOptions.builder().observer(observer).build());
    }

    @Test
    void aChangeFromAPartitionsOwnObserverIsRefusedBeforeAnythingChanges() {
        TopicConfig two = TopicConfig.builder().partitions(2).build();
        TopicConfig changed = two.toBuilder().fsync(FsyncPolicy.EVERY_BATCH).build();
        AtomicReference<Throwable> refused = new AtomicReference<>();
        try (Kafko kafko = open()) {
            Topic topic = kafko.createTopic("t", two);
            inAppend.set(() -> {
                try {
                    topic.alterConfig(changed);
                } catch (RuntimeException e) {
                    refused.set(e);
                }
            });
            kafko.producer("t").sendTo(1, null, bytes("v")).join();

            assertThat(refused.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("partition t-1");
            // neither published nor stored: partition 0 would write by the new policy and partition 1 by the old
            assertThat(topic.config()).isEqualTo(two);
        }
        try (Kafko kafko = open()) {
            assertThat(kafko.topic("t").orElseThrow().config()).isEqualTo(two);
        }
    }

    @Test
    void anObserversAdminCallDoesNotWaitForAChangeThatWaitsForItsPartition() throws Exception {
        Kafko kafko = open();
        TopicConfig config = TopicConfig.builder().build();
        TopicConfig changed = config.toBuilder().retentionBytes(1 << 20).build();
        Topic topic = kafko.createTopic("t", config);
        Producer producer = kafko.producer("t");
        CountDownLatch inObserver = new CountDownLatch(1);
        AtomicReference<Throwable> observerFailure = new AtomicReference<>();
        inAppend.set(() -> {
            inObserver.countDown();
            try {
                // the change is stored and published: it waits for this partition, which this thread holds
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!topic.config().equals(changed) && System.nanoTime() - deadline < 0) {
                    Thread.yield();
                }
                kafko.createTopic("other");
            } catch (RuntimeException e) {
                observerFailure.set(e);
            }
        });
        CompletableFuture<Void> sent = onNewThread(() -> {
            producer.sendTo(0, null, bytes("v")).join();
        });
        assertThat(inObserver.await(10, TimeUnit.SECONDS)).isTrue();

        CompletableFuture<Void> altered = onNewThread(() -> topic.alterConfig(changed));

        // both waited for each other for ever when the change held the admin lock while it told the partitions
        altered.get(10, TimeUnit.SECONDS);
        sent.get(10, TimeUnit.SECONDS);
        assertThat(observerFailure.get()).isNull();
        assertThat(kafko.topics()).contains("t", "other");
        assertThat(topic.config()).isEqualTo(changed);
        kafko.close();
    }

    @Test
    void aShorterFsyncIntervalForcesTheNextAppendWithinItsPeriod() throws InterruptedException {
        TopicConfig hourly = TopicConfig.builder().fsync(FsyncPolicy.interval(Duration.ofHours(1))).build();
        try (Kafko kafko = open()) {
            Topic topic = kafko.createTopic("t", hourly);
            Producer producer = kafko.producer("t");
            producer.send(null, bytes("a")).join(); // schedules the hourly fsync

            topic.alterConfig(hourly.toBuilder().fsync(FsyncPolicy.interval(Duration.ofMillis(20))).build());
            assertThat(fsynced.tryAcquire()).as("what the partition held, forced by the change").isTrue();
            producer.send(null, bytes("b")).join();

            // it waited for the hourly fsync scheduled before the change
            assertThat(fsynced.tryAcquire(10, TimeUnit.SECONDS)).as("the append forced within the new period").isTrue();
        }
    }
}
