package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.TopicExistsException;
import dev.kafko.UnknownTopicException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * deleteTopic completes the futures of sends queued before its deletion, so their callbacks may run on the
 * deleting thread. The deletion holds the admin lock only to take the topic out and to end: an admin call
 * from such a callback finds the topic gone (a delete of it: UnknownTopicException; a create of its name:
 * refused while the deletion goes on), and a close from it returns at once and finishes after the deletion.
 * When the lock was held throughout, such a call re-entered the deletion half way (4 of 4 runs each: a
 * deletion reported as failed, a topic re-created by the callback deleted with an acknowledged record, the
 * directory released while the deletion still deleted files). A blocking onAppend makes the interleaving
 * deterministic.
 */
class CallbackOnDeletingThreadTest {

    static final byte[] V = "v".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path tmp;


    final AtomicReference<AppendGate> gate = new AtomicReference<>();
    final List<String> deletedEvents = new CopyOnWriteArrayList<>();

    KafkoOptions options() {
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
                if (topic.equals("doomed")) {
                    AppendGate.stopAt(gate);
                }
            }

            @Override
            public void onTopicDeleted(String topic) {
                deletedEvents.add(topic);
            }
        };
        return KafkoOptions.builder().observer(observer).linger(Duration.ZERO).build();
    }

    /**
     * Leaves one send of "doomed" queued while its partition is idle (its last owner is completing another
     * send's callback, which waits), then deletes the topic on a thread "deleter": that send's callback,
     * {@code callback}, runs on the deleting thread. Returns what deleteTopic threw, or null.
     */
    Throwable deleteWithQueuedSend(Kafko k, BiConsumer<Kafko, Thread> callback) throws Exception {
        Producer p = k.producer("doomed");
        CountDownLatch ownerBlocked = new CountDownLatch(1);
        CountDownLatch releaseOwner = new CountDownLatch(1);
        AppendGate g1 = new AppendGate();
        gate.set(g1);
        Thread owner = new Thread(() -> p.send(null, V), "owner");
        owner.setDaemon(true);
        owner.start();
        assertThat(g1.entered.await(10, TimeUnit.SECONDS)).isTrue();
        // queued while the owner holds the partition; its callback holds the owner afterwards
        p.send(null, V).whenComplete((m, e) -> {
            ownerBlocked.countDown();
            try {
                releaseOwner.await();
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        });
        AppendGate g2 = new AppendGate();
        gate.set(g2);
        g1.release.countDown();
        assertThat(g2.entered.await(10, TimeUnit.SECONDS)).isTrue(); // the owner appends the queued send
        AtomicReference<Thread> deleter = new AtomicReference<>();
        CompletableFuture<?> queued = p.send(null, V); // queued: the owner holds the partition
        queued.whenComplete((m, e) -> callback.accept(k, deleter.get()));
        g2.release.countDown();
        assertThat(ownerBlocked.await(10, TimeUnit.SECONDS)).isTrue(); // released, and completing: stuck
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread d = new Thread(() -> {
            try {
                k.deleteTopic("doomed");
            } catch (Throwable t) {
                thrown.set(t);
            }
        }, "deleter");
        deleter.set(d);
        d.setDaemon(true);
        d.start();
        d.join(20_000);
        assertThat(d.isAlive()).as("deleteTopic returns").isFalse();
        releaseOwner.countDown();
        owner.join(10_000);
        return thrown.get();
    }

    /**
     * A send callback that deletes the topic the deletion is deleting: it should find it gone (UnknownTopic),
     * or wait; instead it deletes it again, nested, and the outer deleteTopic then fails with a storage error
     * for a deletion that happened, and onTopicDeleted is told twice.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCallbackOnTheDeletingThreadThatDeletesTheSameTopicDoesNotBreakTheDeletion() throws Exception {
        AtomicReference<String> where = new AtomicReference<>();
        AtomicReference<Throwable> inner = new AtomicReference<>();
        try (Kafko k = Kafko.open(tmp, options())) {
            k.createTopic("doomed");
            Throwable outer = deleteWithQueuedSend(k, (kk, deleter) -> {
                where.set(Thread.currentThread() == deleter ? "deleter" : Thread.currentThread().getName());
                try {
                    kk.deleteTopic("doomed");
                } catch (Throwable t) {
                    inner.set(t);
                }
            });
            assertThat(where.get()).as("the callback ran on").isEqualTo("deleter");
            assertThat(outer).as("what the outer deleteTopic threw (inner threw %s)", inner.get()).isNull();
            assertThat(deletedEvents).as("onTopicDeleted events").containsExactly("doomed");
        }
    }

    /**
     * A send callback that deletes and re-creates the topic, and sends to the new one: the outer deletion
     * then removes the NEW topic from the instance and deletes its files, with an acknowledged record in it.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aTopicReCreatedByACallbackOnTheDeletingThreadKeepsItsAcknowledgedRecord() throws Exception {
        AtomicReference<String> where = new AtomicReference<>();
        AtomicReference<RecordPosition> acked = new AtomicReference<>();
        AtomicReference<Throwable> outer = new AtomicReference<>();
        try (Kafko k = Kafko.open(tmp, options())) {
            k.createTopic("doomed");
            outer.set(deleteWithQueuedSend(k, (kk, deleter) -> {
                where.set(Thread.currentThread() == deleter ? "deleter" : Thread.currentThread().getName());
                try {
                    kk.deleteTopic("doomed");
                } catch (UnknownTopicException e) {
                    // the deletion in progress: fine
                }
                try {
                    kk.createTopic("doomed");
                    acked.set(kk.producer("doomed").send(null, "keep".getBytes(StandardCharsets.UTF_8)).join());
                } catch (TopicExistsException | UnknownTopicException e) {
                    // refused while the old one is being deleted: fine
                }
            }));
            assertThat(where.get()).as("the callback ran on").isEqualTo("deleter");
            if (acked.get() == null) {
                return; // the callback was refused: nothing to lose
            }
            assertThat(k.topic("doomed")).as("the topic the callback created after the deletion, its record acked at"
                    + " %s (outer threw %s; its directory exists: %s)", acked.get(), outer.get(),
                    Files.exists(tmp.resolve("doomed"))).isPresent();
        }
        try (Kafko k = Kafko.open(tmp)) {
            assertThat(k.topics()).as("topics after a reopen").contains("doomed");
            assertThat(readAll(k, "doomed")).as("acknowledged record").containsExactly("keep");
        }
    }

    /**
     * close() from a send callback on the deleting thread returns at once and the instance closes once the
     * deletion ended: the directory stays locked meanwhile (no second instance can open it while the deletion
     * still deletes files), and the deletion is whole once the close finished.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCloseFromACallbackOnTheDeletingThreadKeepsTheDirectoryLockedUntilTheDeletionEnded() throws Exception {
        AtomicReference<String> where = new AtomicReference<>();
        AtomicReference<Throwable> secondOpen = new AtomicReference<>();
        Kafko k = Kafko.open(tmp, options());
        k.createTopic("doomed");
        k.createTopic("kept");
        k.producer("kept").send(null, V).join();
        Throwable outer = deleteWithQueuedSend(k, (kk, deleter) -> {
            where.set(Thread.currentThread() == deleter ? "deleter" : Thread.currentThread().getName());
            kk.close(); // returns: the close goes on on a thread of its own, after the deletion
            try {
                Kafko.open(tmp).close();
            } catch (Throwable t) {
                secondOpen.set(t);
            }
        });
        assertThat(where.get()).as("the callback ran on").isEqualTo("deleter");
        assertThat(outer).as("what deleteTopic threw").isNull();
        assertThat(secondOpen.get()).as("a second open while the deletion went on")
                .isInstanceOf(dev.kafko.AlreadyOpenException.class);
        Kafko again = null;
        for (int i = 0; i < 500 && again == null; i++) {
            try {
                again = Kafko.open(tmp);
            } catch (dev.kafko.AlreadyOpenException e) {
                Thread.sleep(20);
            }
        }
        assertThat(again).as("the directory opened once the close finished").isNotNull();
        try (Kafko k3 = again) {
            assertThat(k3.topics()).containsExactly("kept");
            assertThat(readAll(k3, "kept")).hasSize(1);
        }
        assertThat(Files.exists(tmp.resolve("doomed"))).isFalse();
    }

    static List<String> readAll(Kafko k, String topic) {
        List<String> out = new ArrayList<>();
        if (k.topic(topic).isEmpty()) {
            return out;
        }
        try (Consumer c = k.consumer(topic)) {
            for (int i = 0; i < 5; i++) {
                for (KafkaRecordView r : view(c.poll(Duration.ofMillis(200)))) {
                    out.add(r.value);
                }
            }
        }
        return out;
    }

    record KafkaRecordView(String value) {
    }

    static List<KafkaRecordView> view(Iterable<KafkoRecord> records) {
        List<KafkaRecordView> out = new ArrayList<>();
        for (KafkoRecord r : records) {
            out.add(new KafkaRecordView(new String(r.value(), StandardCharsets.UTF_8)));
        }
        return out;
    }
}
