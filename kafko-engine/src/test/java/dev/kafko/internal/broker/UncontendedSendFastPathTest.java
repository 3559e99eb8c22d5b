package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Consumer;
import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoException;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.PartitionState;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FaultyFileIo;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The uncontended send (9ba2e8e): a sender that finds its partition idle and nothing queued takes the partition and
 * writes its own request as the round, without the mailbox, and completes it before it releases the partition. These
 * tests mix that path with the queued one (many senders on two partitions, pipelining, awaited, batches, flushes,
 * callbacks that send and wait) and check what the queued path promised: every future completes once, each thread's
 * sends to a partition get increasing offsets, a flush returns only once every send that returned before it is
 * complete with its callbacks run (B10), a close racing the senders completes every accepted send and loses no
 * acknowledged record, a partition failed by an fsync error fails or acknowledges every send, and a send out of
 * stack anywhere leaves the partition neither owned nor refusing the next writer. Fixed seeds, bounded, no timing
 * assertions.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class UncontendedSendFastPathTest {

    private static final long SEED = 0x9BA2E8EL;

    @TempDir
    Path dir;

    /** A record's value: the sending thread and its sequence number. */
    private static byte[] value(int thread, int seq) {
        return ByteBuffer.allocate(8).putInt(thread).putInt(seq).array();
    }

    /** One send (or one record of a batch) as its thread made it. */
    private record Sent(int thread, int seq, int partition, CompletableFuture<?> future, int index,
                        AtomicInteger callbacks, AtomicReference<Object> seen) {

        long offset() {
            Object v = future.join();
            return v instanceof RecordPosition r ? r.offset() : ((RecordPosition) ((List<?>) v).get(index)).offset();
        }
    }

    enum Mix {
        /** Lingering off: every idle send takes the fast path. */
        NO_LINGER,
        /** The default linger: pipelined sends linger, and an awaited one follows them. */
        DEFAULT_LINGER,
        /** EVERY_BATCH with 16 threads: group commit. */
        EVERY_BATCH_16
    }

    @ParameterizedTest
    @EnumSource(Mix.class)
    void manySendersMixingTheFastAndTheQueuedPathGetIncreasingOffsetsAndEveryFutureOnce(Mix mix) throws Exception {
        int threads = mix == Mix.EVERY_BATCH_16 ? 16 : 8;
        int sends = mix == Mix.EVERY_BATCH_16 ? 400 : 4_000;
        KafkoOptions options = mix == Mix.NO_LINGER ? KafkoOptions.builder().linger(Duration.ZERO).build()
                : KafkoOptions.builder().build();
        FsyncPolicy fsync = mix == Mix.EVERY_BATCH_16 ? FsyncPolicy.EVERY_BATCH : FsyncPolicy.NEVER;
        try (Kafko k = BrokerBridge.open(dir, options, new FaultyFileIo().syncs(false))) {
            k.createTopic("t", TopicConfig.builder().partitions(2).fsync(fsync).build());
            Producer p = k.producer("t");
            List<List<Sent>> byThread = new ArrayList<>();
            Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                List<Sent> mine = new ArrayList<>();
                byThread.add(mine);
                int id = t;
                Thread w = new Thread(() -> {
                    Random rnd = new Random(SEED + id);
                    try {
                        start.await();
                        int seq = 0;
                        while (seq < sends) {
                            int partition = rnd.nextInt(2);
                            int mode = rnd.nextInt(10);
                            List<Sent> made = new ArrayList<>();
                            if (mode == 8) {
                                int n = 1 + rnd.nextInt(3);
                                List<OutgoingRecord> batch = new ArrayList<>();
                                for (int i = 0; i < n; i++) {
                                    batch.add(OutgoingRecord.of(null, value(id, seq + i)));
                                }
                                CompletableFuture<List<RecordPosition>> f = p.sendBatchTo(partition, batch);
                                for (int i = 0; i < n; i++) {
                                    made.add(new Sent(id, seq + i, partition, f, i, new AtomicInteger(),
                                            new AtomicReference<>()));
                                }
                                seq += n;
                            } else {
                                CompletableFuture<RecordPosition> f = p.sendTo(partition, null, value(id, seq));
                                made.add(new Sent(id, seq, partition, f, 0, new AtomicInteger(), new AtomicReference<>()));
                                seq++;
                            }
                            Sent s = made.get(0);
                            // a callback added after send returned: inline when the send took the fast path
                            s.future.whenComplete((v, e) -> {
                                s.callbacks.incrementAndGet();
                                s.seen.set(e != null ? e : v);
                            });
                            mine.addAll(made);
                            if (mode < 5) {
                                s.future.join(); // awaited: the next send finds the partition idle
                            } else if (mode == 9) {
                                p.flush();
                                for (Sent earlier : mine) {
                                    if (!earlier.future.isDone()) {
                                        errors.add(new AssertionError("thread " + id + ": send " + earlier.seq
                                                + " not complete after a flush of the same thread"));
                                    }
                                }
                            }
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                }, "sender-" + t);
                w.start();
                workers.add(w);
            }
            start.countDown();
            joinAll(workers, 120);
            assertThat(errors).isEmpty();
            Map<Integer, Map<Long, Sent>> atOffset = new HashMap<>();
            long total = 0;
            for (List<Sent> mine : byThread) {
                long[] last = {-1, -1};
                for (Sent s : mine) {
                    Object v = s.future.get(30, TimeUnit.SECONDS);
                    if (s.index == 0 && s.callbacks.get() != 0) {
                        assertThat(s.callbacks.get()).as("callbacks of one future").isEqualTo(1);
                        assertThat(s.seen.get()).isSameAs(v);
                    }
                    long offset = s.offset();
                    assertThat(offset).as("thread %d send %d to partition %d after offset %d", s.thread, s.seq,
                            s.partition, last[s.partition]).isGreaterThan(last[s.partition]);
                    last[s.partition] = offset;
                    assertThat(atOffset.computeIfAbsent(s.partition, x -> new HashMap<>()).put(offset, s))
                            .as("two sends at offset %d of partition %d", offset, s.partition).isNull();
                    total++;
                }
                for (Sent s : mine) {
                    if (s.index == 0) {
                        assertThat(s.callbacks.get()).as("thread %d send %d: callbacks run", s.thread, s.seq)
                                .isEqualTo(1);
                    }
                }
            }
            assertThat(total).isGreaterThanOrEqualTo((long) threads * sends);
            assertReadsBack(k, atOffset, total);
        }
    }

    /** Every record of the topic is the one whose future told its offset, and there are no others. */
    private static void assertReadsBack(Kafko k, Map<Integer, Map<Long, Sent>> atOffset, long expected) {
        long read = 0;
        try (Consumer c = k.consumer("t")) {
            for (List<KafkoRecord> b = c.poll(Duration.ZERO); !b.isEmpty(); b = c.poll(Duration.ZERO)) {
                for (KafkoRecord r : b) {
                    Sent s = atOffset.getOrDefault(r.partition(), Map.of()).get(r.offset());
                    assertThat(s).as("a record nobody was told of at %d-%d", r.partition(), r.offset()).isNotNull();
                    assertThat(r.value()).isEqualTo(value(s.thread, s.seq));
                    read++;
                }
            }
        }
        assertThat(read).isEqualTo(expected);
    }

    /**
     * B10 across threads: a flush returns only once every send that returned (on any thread) before the flush was
     * called is complete, and the callback its sender added right after the send has run.
     */
    @Test
    void aFlushIsABarrierForTheSendsOfEveryThreadThatReturnedBeforeIt() throws Exception {
        int threads = 6;
        int sends = 60_000;
        try (Kafko k = BrokerBridge.open(dir, KafkoOptions.builder().build(), new FaultyFileIo().syncs(false))) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            Producer p = k.producer("t");
            List<AtomicReferenceArray<CompletableFuture<RecordPosition>>> futures = new ArrayList<>();
            List<AtomicReferenceArray<Boolean>> ran = new ArrayList<>();
            List<AtomicInteger> returned = new ArrayList<>();
            Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
            AtomicBoolean done = new AtomicBoolean();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                AtomicReferenceArray<CompletableFuture<RecordPosition>> mine = new AtomicReferenceArray<>(sends);
                AtomicReferenceArray<Boolean> mineRan = new AtomicReferenceArray<>(sends);
                AtomicInteger count = new AtomicInteger();
                futures.add(mine);
                ran.add(mineRan);
                returned.add(count);
                int id = t;
                Thread w = new Thread(() -> {
                    Random rnd = new Random(SEED * 31 + id);
                    try {
                        for (int i = 0; i < sends && !done.get(); i++) {
                            CompletableFuture<RecordPosition> f = p.sendTo(rnd.nextInt(2), null, value(id, i));
                            int slot = i;
                            f.whenComplete((v, e) -> mineRan.set(slot, Boolean.TRUE));
                            mine.set(i, f);
                            if (rnd.nextInt(3) == 0) {
                                // before publishing: a join helps run the future's callbacks (CompletableFuture's
                                // waitingGet ends with postComplete), so this thread may run the callback itself
                                // after the round's thread completed it, which no flush can wait for
                                f.join();
                            }
                            count.set(i + 1); // published: this send returned before any flush that reads it
                            if ((i & 31) == 0) {
                                Thread.yield(); // the flushing thread gets a CPU too (two on the test machine)
                            }
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                }, "sender-" + t);
                w.start();
                workers.add(w);
            }
            int[] checked = new int[threads];
            int flushes = 0;
            try {
                while (workers.stream().anyMatch(Thread::isAlive)
                        && (flushes < 200 || returned.stream().mapToInt(AtomicInteger::get).sum() < 150_000)) {
                    int[] before = new int[threads];
                    for (int t = 0; t < threads; t++) {
                        before[t] = returned.get(t).get();
                    }
                    p.flush();
                    flushes++;
                    for (int t = 0; t < threads; t++) {
                        for (int i = checked[t]; i < before[t]; i++) {
                            assertThat(futures.get(t).get(i)).as("flush %d: thread %d send %d", flushes, t, i).isDone();
                            assertThat(ran.get(t).get(i)).as("flush %d: thread %d send %d callback", flushes, t, i)
                                    .isEqualTo(Boolean.TRUE);
                        }
                        checked[t] = before[t];
                    }
                }
            } finally {
                done.set(true);
                for (Thread w : workers) {
                    w.join(TimeUnit.SECONDS.toMillis(60));
                }
            }
            assertThat(errors).isEmpty();
            assertThat(flushes).isPositive();
            System.out.println("UncontendedSendFastPathTest: " + flushes + " flushes checked against "
                    + returned.stream().mapToInt(AtomicInteger::get).sum() + " sends");
        }
    }

    /**
     * {@code close()} racing senders that mostly take the fast path, under each fsync policy: every send accepted
     * (its future returned) completes by the time the close returned, and each acknowledged record is in the
     * reopened log at its offset.
     */
    @ParameterizedTest
    @EnumSource(value = Policy.class)
    void aCloseRacingFastPathSendersCompletesEveryAcceptedSendAndLosesNoAcknowledgedOne(Policy policy)
            throws Exception {
        for (int run = 0; run < 8; run++) {
            Path data = dir.resolve(policy + "-" + run);
            KafkoOptions options = run % 2 == 0 ? KafkoOptions.builder().linger(Duration.ZERO).build()
                    : KafkoOptions.builder().build();
            Kafko k = Kafko.open(data, options);
            k.createTopic("t", TopicConfig.builder().partitions(2).fsync(policy.fsync).build());
            Producer p = k.producer("t");
            int threads = 4;
            List<Queue<Sent>> byThread = new ArrayList<>();
            Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
            AtomicInteger accepted = new AtomicInteger();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Queue<Sent> mine = new ConcurrentLinkedQueue<>();
                byThread.add(mine);
                int id = t;
                long seed = SEED + 1000L * run + id;
                Thread w = new Thread(() -> {
                    Random rnd = new Random(seed);
                    for (int seq = 0; ; seq++) {
                        CompletableFuture<RecordPosition> f;
                        int partition = rnd.nextInt(2);
                        try {
                            f = p.sendTo(partition, null, value(id, seq));
                        } catch (KafkoClosedException e) {
                            return; // refused before anything was queued
                        } catch (Throwable e) {
                            errors.add(e);
                            return;
                        }
                        mine.add(new Sent(id, seq, partition, f, 0, new AtomicInteger(), new AtomicReference<>()));
                        accepted.incrementAndGet();
                        if (rnd.nextInt(4) != 0) {
                            try {
                                f.join();
                            } catch (RuntimeException e) {
                                if (!(e.getCause() instanceof KafkoException)) {
                                    errors.add(e);
                                }
                                return;
                            }
                        }
                    }
                }, "sender-" + t);
                w.start();
                workers.add(w);
            }
            int goal = 500 + 250 * run;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (accepted.get() < goal && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            k.close();
            joinAll(workers, 30);
            assertThat(errors).isEmpty();
            List<Sent> acknowledged = new ArrayList<>();
            for (Queue<Sent> mine : byThread) {
                long[] last = {-1, -1};
                for (Sent s : mine) {
                    assertThat(s.future).as("run %d: thread %d send %d done once close returned", run, s.thread, s.seq)
                            .isDone();
                    if (!s.future.isCompletedExceptionally()) {
                        long offset = s.offset();
                        assertThat(offset).isGreaterThan(last[s.partition]);
                        last[s.partition] = offset;
                        acknowledged.add(s);
                    }
                }
            }
            Map<Integer, Map<Long, Sent>> atOffset = new HashMap<>();
            for (Sent s : acknowledged) {
                atOffset.computeIfAbsent(s.partition, x -> new HashMap<>()).put(s.offset(), s);
            }
            try (Kafko again = Kafko.open(data, options)) {
                try (Consumer c = again.consumer("t")) {
                    int found = 0;
                    for (List<KafkoRecord> b = c.poll(Duration.ZERO); !b.isEmpty(); b = c.poll(Duration.ZERO)) {
                        for (KafkoRecord r : b) {
                            Sent s = atOffset.getOrDefault(r.partition(), Map.of()).get(r.offset());
                            if (s != null) {
                                assertThat(r.value()).isEqualTo(value(s.thread, s.seq));
                                found++;
                            }
                        }
                    }
                    assertThat(found).as("run %d: acknowledged records in the reopened log", run)
                            .isEqualTo(acknowledged.size());
                }
            }
        }
    }

    enum Policy {
        NEVER(FsyncPolicy.NEVER),
        EVERY_BATCH(FsyncPolicy.EVERY_BATCH),
        INTERVAL(FsyncPolicy.interval(Duration.ofMillis(5)));

        final FsyncPolicy fsync;

        Policy(FsyncPolicy fsync) {
            this.fsync = fsync;
        }
    }

    /**
     * Callbacks (added before and after completion) that send to the same partition and wait for that send, or for a
     * send another thread made before theirs, on four threads at once: nothing hangs, every future completes, each
     * thread's own sends keep their order. A wait for the other thread's send is bounded (100 ms) and counted, not
     * asserted: rounds complete on several threads at once, and a callback's wait can close a cycle with another
     * round's callback (0-7 such timeouts per run of this class, on 9ba2e8e and on the commit before it alike).
     */
    @Test
    void callbacksThatSendAndWaitOnTheSamePartitionFromManyThreadsAllComplete() throws Exception {
        try (Kafko k = BrokerBridge.open(dir, KafkoOptions.builder().build(), new FaultyFileIo().syncs(false))) {
            k.createTopic("t", TopicConfig.builder().partitions(1).build());
            Producer p = k.producer("t");
            AtomicReference<CompletableFuture<RecordPosition>> plainLatest =
                    new AtomicReference<>(CompletableFuture.completedFuture(null));
            AtomicBoolean stop = new AtomicBoolean();
            Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
            Thread plain = new Thread(() -> {
                for (int i = 0; !stop.get(); i++) {
                    CompletableFuture<RecordPosition> f = p.send(null, value(99, i));
                    plainLatest.set(f);
                    if (i % 8 == 0) {
                        f.join();
                    }
                }
            }, "plain");
            plain.start();
            List<Thread> workers = new ArrayList<>();
            AtomicInteger inner = new AtomicInteger();
            AtomicInteger timeouts = new AtomicInteger();
            List<List<CompletableFuture<RecordPosition>>> byThread = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                List<CompletableFuture<RecordPosition>> mine = new ArrayList<>();
                byThread.add(mine);
                int id = t;
                Thread w = new Thread(() -> {
                    Random rnd = new Random(SEED * 7 + id);
                    try {
                        for (int i = 0; i < 1_500; i++) {
                            CompletableFuture<RecordPosition> earlier = plainLatest.get(); // returned before f
                            CompletableFuture<RecordPosition> f = p.send(null, value(id, i));
                            mine.add(f);
                            boolean waitPlain = rnd.nextBoolean();
                            int seq = i;
                            f.whenComplete((v, e) -> {
                                try {
                                    p.send(null, value(100 + id, seq)).join();
                                    if (waitPlain) {
                                        try {
                                            earlier.get(100, TimeUnit.MILLISECONDS);
                                        } catch (java.util.concurrent.TimeoutException cycle) {
                                            // the round holding that send completes on a thread whose earlier
                                            // callback waits in turn (a cycle of the user's waits, as before the
                                            // fast path): bounded here, counted
                                            timeouts.incrementAndGet();
                                        }
                                    }
                                    inner.incrementAndGet();
                                } catch (Throwable x) {
                                    errors.add(x);
                                }
                            });
                            if (rnd.nextInt(3) == 0) {
                                f.join();
                            }
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                }, "sender-" + t);
                w.start();
                workers.add(w);
            }
            joinAll(workers, 120);
            stop.set(true);
            plain.join(TimeUnit.SECONDS.toMillis(30));
            p.flush();
            assertThat(errors).isEmpty();
            assertThat(inner.get()).isEqualTo(4 * 1_500);
            System.out.println("UncontendedSendFastPathTest: callbacks' waits for another thread's send that timed out: "
                    + timeouts);
            for (List<CompletableFuture<RecordPosition>> mine : byThread) {
                long last = -1;
                for (CompletableFuture<RecordPosition> f : mine) {
                    long offset = f.get(10, TimeUnit.SECONDS).offset();
                    assertThat(offset).isGreaterThan(last);
                    last = offset;
                }
            }
        }
    }

    /**
     * A partition whose fsync fails (EVERY_BATCH, 16 senders, most on the fast path): it fails, every send completes,
     * normally (written and fsynced before the failure) or with a typed exception, and every acknowledged record is in
     * the reopened log; a close afterwards returns.
     */
    @Test
    void aPartitionFailedUnderFastPathSendsCompletesEverySendAndKeepsEveryAcknowledgedOne() throws Exception {
        for (int run = 0; run < 4; run++) {
            Path data = dir.resolve("failed-" + run);
            FaultyFileIo io = new FaultyFileIo().syncs(false);
            List<Sent> all = new ArrayList<>();
            Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
            try (Kafko k = BrokerBridge.open(data, KafkoOptions.DEFAULTS, io)) {
                k.createTopic("t", TopicConfig.builder().partitions(1).fsync(FsyncPolicy.EVERY_BATCH).build());
                Producer p = k.producer("t");
                io.failNthForce(40 + 37L * run);
                List<Thread> workers = new ArrayList<>();
                List<List<Sent>> byThread = new ArrayList<>();
                for (int t = 0; t < 16; t++) {
                    List<Sent> mine = new ArrayList<>();
                    byThread.add(mine);
                    int id = t;
                    Thread w = new Thread(() -> {
                        try {
                            for (int i = 0; i < 60; i++) {
                                CompletableFuture<RecordPosition> f = p.send(null, value(id, i));
                                mine.add(new Sent(id, i, 0, f, 0, new AtomicInteger(), new AtomicReference<>()));
                                try {
                                    f.get(30, TimeUnit.SECONDS);
                                } catch (java.util.concurrent.ExecutionException e) {
                                    if (!(e.getCause() instanceof KafkoException)) {
                                        errors.add(e);
                                    }
                                }
                            }
                        } catch (Throwable e) {
                            errors.add(e);
                        }
                    }, "sender-" + t);
                    w.start();
                    workers.add(w);
                }
                joinAll(workers, 60);
                byThread.forEach(all::addAll);
                assertThat(k.topic("t").orElseThrow().partition(0).state()).isEqualTo(PartitionState.FAILED);
            }
            assertThat(errors).isEmpty();
            Map<Integer, Map<Long, Sent>> atOffset = new HashMap<>();
            int failed = 0;
            for (Sent s : all) {
                assertThat(s.future).isDone();
                if (s.future.isCompletedExceptionally()) {
                    failed++;
                } else {
                    assertThat(atOffset.computeIfAbsent(0, x -> new HashMap<>()).put(s.offset(), s)).isNull();
                }
            }
            assertThat(failed).isPositive();
            try (Kafko again = Kafko.open(data)) {
                try (Consumer c = again.consumer("t")) {
                    int found = 0;
                    for (List<KafkoRecord> b = c.poll(Duration.ZERO); !b.isEmpty(); b = c.poll(Duration.ZERO)) {
                        for (KafkoRecord r : b) {
                            Sent s = atOffset.getOrDefault(0, Map.of()).get(r.offset());
                            if (s != null) {
                                assertThat(r.value()).isEqualTo(value(s.thread, s.seq));
                                found++;
                            }
                        }
                    }
                    assertThat(found).isEqualTo(atOffset.getOrDefault(0, Map.of()).size());
                }
            }
        }
    }

    /**
     * A send made at every depth near the end of a 256 KiB stack, so that it runs out of stack somewhere between its
     * take of the partition and its release (or before, or after): whatever the deep send did (returned a future,
     * or threw), a send from a normal thread afterwards is written at the next offset: the partition is neither left
     * owned nor its log refusing the next writer as one still inside; and a deep send that returned has its future
     * complete then, with the offset before it (out of stack as it completed it, it left it to the partition: B146).
     */
    @Test
    void aSendOutOfStackLeavesThePartitionFreeAndItsLogWritable() throws Exception {
        KafkoOptions options = KafkoOptions.builder().linger(Duration.ZERO).build();
        Kafko k = BrokerBridge.open(dir.resolve("deep"), options, new FaultyFileIo().syncs(false));
        int reopened = 0;
        int threw = 0;
        int completed = 0;
        int stranded = 0;
        try {
            k.createTopic("t", TopicConfig.builder().partitions(1).build());
            for (int back = 0; back < 400; back++) {
                Producer p = k.producer("t");
                AtomicReference<CompletableFuture<RecordPosition>> deepFuture = new AtomicReference<>();
                AtomicReference<Throwable> deepFailure = new AtomicReference<>();
                int offset = back;
                Thread deep = new Thread(null, () -> {
                    int[] reached = new int[1];
                    try {
                        DeepStackCloseTest.dive(reached, 0, Integer.MAX_VALUE, () -> { });
                    } catch (StackOverflowError e) {
                        // reached[0]: the deepest frame this thread holds
                    }
                    int limit = reached[0];
                    try {
                        DeepStackCloseTest.dive(reached, 0, limit - offset,
                                () -> deepFuture.set(p.send(null, value(1, offset))));
                    } catch (Throwable e) {
                        deepFailure.set(e);
                    }
                }, "deep-" + back, 256 * 1024);
                deep.start();
                deep.join(TimeUnit.SECONDS.toMillis(10));
                assertThat(deep.isAlive()).as("the deep send at %d returned", back).isFalse();
                CompletableFuture<RecordPosition> f = deepFuture.get();
                if (f != null) {
                    if (!f.isDone()) {
                        stranded++; // out of stack as it completed its future: left to the partition (B146)
                    }
                    completed++;
                } else {
                    threw++;
                    assertThat(deepFailure.get()).as("back %d", back).isInstanceOf(StackOverflowError.class);
                }
                CompletableFuture<RecordPosition> next = p.send(null, value(2, back));
                RecordPosition r;
                try {
                    r = next.get(10, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    // a stack that ran out inside a publish fails the partition (B35): reopen and go on
                    assertThat(e.getCause()).as("back %d: %s", back, e.getCause())
                            .isInstanceOf(dev.kafko.PartitionFailedException.class);
                    assertThat(e.getCause()).hasMessageNotContaining("single-writer");
                    k.close();
                    k = BrokerBridge.open(dir.resolve("deep"), options, new FaultyFileIo().syncs(false));
                    reopened++;
                    continue;
                }
                assertThat(r.offset()).as("back %d", back)
                        .isEqualTo(k.topic("t").orElseThrow().partition(0).endOffset() - 1);
                if (f != null) {
                    // the next sender completed the deep send's future if the deep thread could not: with the offset
                    // before the next one's, or with the failure of an append that ran out of stack, written nowhere
                    assertThat(f).as("the future of the deep send at %d, after the next send", back).isDone();
                    if (f.isCompletedExceptionally()) {
                        assertThatThrownBy(f::join).as("back %d", back).hasRootCauseInstanceOf(StackOverflowError.class);
                    } else {
                        assertThat(f.join().offset()).as("back %d", back).isEqualTo(r.offset() - 1);
                    }
                }
            }
        } finally {
            k.close();
        }
        System.out.println("UncontendedSendFastPathTest: deep sends returned " + completed + " (" + stranded
                + " of them with their future left to the partition), threw " + threw
                + ", partition failed and reopened " + reopened + " times");
        assertThat(threw).as("deep sends that ran out of stack (the sweep reached the limit)").isPositive();
    }

    /** Waits for every worker, up to {@code seconds} each, and fails naming one that did not finish. */
    private static void joinAll(List<Thread> workers, int seconds) throws InterruptedException {
        for (Thread w : workers) {
            w.join(TimeUnit.SECONDS.toMillis(seconds));
            assertThat(w.isAlive()).as("%s finished", w.getName()).isFalse();
        }
    }
}
