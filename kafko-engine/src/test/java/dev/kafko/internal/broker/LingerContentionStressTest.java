package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.Headers;
import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lingering sends ({@link LingerChain}) under contention: four threads pipeline bursts into one partition and,
 * between bursts, block on one of their sends, flush, send a batch, send interrupted, pause past the stream gap or
 * send from a callback; an observer sends from the owner's thread; two consumers poll with pauses between polls,
 * so that sends linger while nobody parks.
 * With a linger of 1 ms and of an hour (then only the triggers write: a blocked thread, a flush, a parking
 * consumer, a full frame), every future completes without anybody blocking on it, each record is in the log
 * exactly once at the offset its future gave, the futures of one thread's sends and batches are in the order
 * of its calls, a flush returns only once the sends before it are complete, and both consumers read the whole
 * log in order. Fixed seeds; {@code -DlingerStress.rounds=N} runs more rounds (default 4, a few seconds).
 */
class LingerContentionStressTest {

    private static final int ROUNDS = Integer.getInteger("lingerStress.rounds", 4);
    private static final int SENDERS = 4;
    private static final int PER_SENDER = 4_000;
    /** Sender ids of the records sent from callbacks and from the observer, whose order is not the test's. */
    private static final int FROM_CALLBACK = 100;
    private static final int FROM_OBSERVER = 200;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void everyQueuedSendIsWrittenOnceInOrderAndCompletesWithoutAnyoneWaiting() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            runRound(round, round % 2 == 0 ? Duration.ofMillis(1) : Duration.ofHours(1));
        }
    }

    private void runRound(int round, Duration linger) throws Exception {
        AtomicReference<Producer> observerProducer = new AtomicReference<>();
        AtomicInteger appends = new AtomicInteger();
        AtomicInteger observerSeq = new AtomicInteger();
        Pending pending = new Pending();
        ConcurrentLinkedQueue<Sent> others = new ConcurrentLinkedQueue<>();
        AtomicBoolean sendersDone = new AtomicBoolean();
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
                Producer p = observerProducer.get();
                // on the owner's thread (ThreadMarks.OWNING): queued, never waiting, never draining here
                if (p != null && !sendersDone.get() && appends.incrementAndGet() % 64 == 0 && observerSeq.get() < 100) {
                    pending.add();
                    int seq = observerSeq.getAndIncrement();
                    CompletableFuture<RecordPosition> f = p.send(record(FROM_OBSERVER, seq, 8));
                    others.add(new Sent(FROM_OBSERVER, seq, f, 1));
                    f.whenComplete((r, e) -> pending.done());
                }
            }
        };
        Path d = dir.resolve("r" + round);
        try (Kafko k = Kafko.open(d, KafkoOptions.builder().linger(linger).observer(observer).build())) {
            k.createTopic("t");
            observerProducer.set(k.producer("t"));
            AtomicReference<Throwable> failed = new AtomicReference<>();
            AtomicBoolean stopReading = new AtomicBoolean();
            List<List<KafkoRecord>> read = new ArrayList<>();
            List<Thread> readers = new ArrayList<>();
            for (int c = 0; c < 2; c++) {
                List<KafkoRecord> mine = new ArrayList<>();
                read.add(mine);
                Random random = new Random(1_000L * round + c);
                readers.add(new Thread(() -> {
                    try (Consumer consumer = k.consumer("t")) {
                        while (!stopReading.get()) {
                            mine.addAll(consumer.poll(Duration.ofMillis(20)));
                            if (random.nextInt(4) == 0) {
                                // busy elsewhere, not parked: sends may linger and queue meanwhile
                                LockSupport.parkNanos(random.nextInt(2_000_000));
                            }
                        }
                        // what is left: the log is complete by now
                        for (List<KafkoRecord> more; !(more = consumer.poll(Duration.ofMillis(50))).isEmpty(); ) {
                            mine.addAll(more);
                        }
                    } catch (Throwable t) {
                        failed.compareAndSet(null, t);
                    }
                }, "reader-" + c));
            }
            AtomicInteger callbackSeq = new AtomicInteger();
            List<List<Sent>> sentBy = new ArrayList<>();
            List<Thread> senders = new ArrayList<>();
            for (int s = 0; s < SENDERS; s++) {
                int id = s;
                List<Sent> sent = new ArrayList<>();
                sentBy.add(sent);
                Random random = new Random(31L * round + s);
                senders.add(new Thread(() -> {
                    try {
                        Producer p = k.producer("t");
                        for (int seq = 0; seq < PER_SENDER; ) {
                            int burst = 1 + random.nextInt(64);
                            for (int b = 0; b < burst && seq < PER_SENDER; b++, seq++) {
                                pending.add();
                                CompletableFuture<RecordPosition> f = p.send(record(id, seq, random.nextInt(600)));
                                sent.add(new Sent(id, seq, f, 1));
                                f.whenComplete((r, e) -> pending.done());
                            }
                            int action = random.nextInt(20);
                            if (action < 2) {
                                // blocks on one of its sends: AWAITED, or the mailbox drained by this thread
                                sent.get(random.nextInt(sent.size())).future.get(10, TimeUnit.SECONDS);
                            } else if (action < 3) {
                                int before = sent.size();
                                p.flush();
                                for (int i = 0; i < before; i++) {
                                    assertThat(sent.get(i).future).as("a send before a flush that returned").isDone();
                                }
                            } else if (action < 5) {
                                int n = 1 + random.nextInt(3);
                                List<OutgoingRecord> batch = new ArrayList<>();
                                for (int i = 0; i < n && seq < PER_SENDER; i++) {
                                    batch.add(record(id, seq + i, random.nextInt(300)));
                                }
                                if (!batch.isEmpty()) {
                                    pending.add();
                                    CompletableFuture<List<RecordPosition>> f = p.sendBatch(batch);
                                    sent.add(new Sent(id, seq, f, batch.size()));
                                    f.whenComplete((r, e) -> pending.done());
                                    seq += batch.size();
                                }
                            } else if (action < 6 && seq < PER_SENDER) {
                                Thread.currentThread().interrupt();
                                pending.add();
                                CompletableFuture<RecordPosition> f = p.send(record(id, seq, 16));
                                assertThat(Thread.interrupted()).as("the interrupt kept").isTrue();
                                sent.add(new Sent(id, seq, f, 1));
                                f.whenComplete((r, e) -> pending.done());
                                seq++;
                            } else if (action < 7) {
                                LockSupport.parkNanos(random.nextInt(300_000)); // past the stream gap, or not
                            } else if (action < 9) {
                                // a send from a callback: on whichever thread completes this one
                                pending.add();
                                sent.get(sent.size() - 1).future.whenComplete((r, e) -> {
                                    int cs = callbackSeq.getAndIncrement();
                                    CompletableFuture<RecordPosition> f = p.send(record(FROM_CALLBACK, cs, 32));
                                    others.add(new Sent(FROM_CALLBACK, cs, f, 1));
                                    f.whenComplete((r2, e2) -> pending.done());
                                });
                            }
                        }
                    } catch (Throwable t) {
                        failed.compareAndSet(null, t);
                    }
                }, "sender-" + s));
            }
            readers.forEach(Thread::start);
            senders.forEach(Thread::start);
            for (Thread t : senders) {
                t.join();
            }
            sendersDone.set(true);
            assertThat(failed.get()).isNull();
            // nobody blocks on a future here: the readers parking, the linger's end or a full frame write them
            assertThat(pending.awaitNone(30_000))
                    .as("round %d (linger %s): futures not completed without anyone blocking on them: %s", round,
                            linger, pending)
                    .isTrue();
            stopReading.set(true);
            for (Thread t : readers) {
                t.join();
            }
            assertThat(failed.get()).isNull();

            long end = k.topic("t").orElseThrow().partitions().get(0).endOffset();
            Map<Long, Sent> byOffset = new HashMap<>();
            for (List<Sent> sent : sentBy) {
                long previous = -1;
                for (Sent x : sent) {
                    for (int i = 0; i < x.count; i++) {
                        long offset = x.offset(i);
                        assertThat(offset).as("sender %d seq %d after its earlier sends", x.id, x.seq + i)
                                .isGreaterThan(previous);
                        previous = offset;
                        assertThat(byOffset.put(offset, x)).as("two futures with offset %d", offset).isNull();
                    }
                }
            }
            for (Sent x : others) {
                assertThat(byOffset.put(x.offset(0), x)).as("two futures with offset %d", x.offset(0)).isNull();
            }
            assertThat((long) byOffset.size()).as("offsets given out").isEqualTo(end);
            for (List<KafkoRecord> mine : read) {
                assertThat(mine).hasSize((int) end);
                for (int i = 0; i < mine.size(); i++) {
                    KafkoRecord r = mine.get(i);
                    assertThat(r.offset()).isEqualTo(i);
                    Sent x = byOffset.get(r.offset());
                    ByteBuffer v = ByteBuffer.wrap(r.value());
                    int id = v.getInt();
                    int seq = v.getInt();
                    assertThat(id).as("the sender of offset %d", i).isEqualTo(x.id);
                    assertThat(seq).as("the record of offset %d", i)
                            .isEqualTo(x.seq + (int) (r.offset() - x.offset(0)));
                }
            }
        }
    }

    private static OutgoingRecord record(int id, int seq, int padding) {
        byte[] value = new byte[8 + padding];
        ByteBuffer.wrap(value).putInt(id).putInt(seq);
        return new OutgoingRecord(null, value, Headers.empty(), OutgoingRecord.NO_TIMESTAMP);
    }

    /** One send or batch of a sender: records {@code seq} to {@code seq + count - 1}. */
    private record Sent(int id, int seq, CompletableFuture<?> future, int count) {

        /** The offset of its {@code i}th record; the future is complete. */
        long offset(int i) {
            Object v = future.getNow(null);
            if (v instanceof RecordPosition p) {
                return p.offset();
            }
            @SuppressWarnings("unchecked")
            List<RecordPosition> batch = (List<RecordPosition>) v;
            return batch.get(i).offset();
        }
    }

    /** Futures not yet complete, counted without blocking on any of them (which would ask for the write). */
    private static final class Pending {
        private int count;

        synchronized void add() {
            count++;
        }

        synchronized void done() {
            if (--count == 0) {
                notifyAll();
            }
        }

        synchronized boolean awaitNone(long millis) throws InterruptedException {
            long deadline = System.currentTimeMillis() + millis;
            for (long left = millis; count > 0 && left > 0; left = deadline - System.currentTimeMillis()) {
                wait(left);
            }
            return count == 0;
        }

        @Override
        public synchronized String toString() {
            return Integer.toString(count);
        }
    }
}
