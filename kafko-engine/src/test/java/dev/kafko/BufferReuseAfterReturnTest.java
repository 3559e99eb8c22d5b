package dev.kafko;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link BufferReuseTest}, path by path: a send written in its call is encoded from the caller's arrays, one that
 * waits is copied first (Request#detach). Each test makes one send wait on a deterministic interleaving (another
 * thread holds the partition in {@code onAppend}, a send made by an owner or a callback), overwrites the caller's
 * arrays as soon as the call returns, and reads back what was written.
 */
class BufferReuseAfterReturnTest {

    /** What the caller's arrays are overwritten with after the call. */
    static final byte JUNK = (byte) 0x5A;

    @TempDir
    Path dir;

    /** The partition whose next append {@code onAppend} holds, or -1; see {@link #hold}. */
    private volatile int holdPartition = -1;
    private volatile CountDownLatch entered = new CountDownLatch(1);
    private volatile CountDownLatch release = new CountDownLatch(1);
    /** Run once by the next append's {@code onAppend} on partition 0 (the thread owns it). */
    private final AtomicReference<Runnable> onAppendOfPartition0 = new AtomicReference<>();

    private KafkoOptions options() {
        return KafkoOptions.builder().linger(Duration.ZERO).observer(new KafkoObserver() {
            @Override
            public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
                if (partition == holdPartition) {
                    holdPartition = -1;
                    entered.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                if (partition == 0) {
                    Runnable r = onAppendOfPartition0.getAndSet(null);
                    if (r != null) {
                        r.run();
                    }
                }
            }
        }).build();
    }

    /** Another thread takes {@code partition} and stays in its append until {@link #release}. */
    private CompletableFuture<RecordPosition> hold(Producer p, int partition) throws InterruptedException {
        holdPartition = partition;
        CompletableFuture<RecordPosition> holder =
                Fixtures.onNewThread(() -> p.sendTo(partition, null, bytes("holder")).join());
        entered.await();
        return holder;
    }

    @Test
    void aBatchSplitOverPartitionsWhosePartWaitsKeepsItsBytesWithEveryCodecAndFsync() throws Exception {
        for (Compression codec : Compression.values()) {
            for (FsyncPolicy fsync : List.of(FsyncPolicy.NEVER, FsyncPolicy.EVERY_BATCH)) {
                Path d = dir.resolve(codec.name() + "-" + fsync);
                try (Kafko k = Kafko.open(d, options())) {
                    k.createTopic("t", TopicConfig.builder().partitions(2).compression(codec).fsync(fsync).build());
                    Producer p = k.producer("t");
                    byte[] key0 = keyFor(p, 0);
                    byte[] key1 = keyFor(p, 1);
                    CompletableFuture<RecordPosition> holder = hold(p, 1);

                    // the part for partition 0 is written in the call, the one for partition 1 waits behind the holder
                    byte[] v0 = bytes("zero");
                    byte[] v1 = bytes("one");
                    byte[] h1 = bytes("header-one");
                    byte[] k0 = key0.clone();
                    byte[] k1 = key1.clone();
                    CompletableFuture<List<RecordPosition>> f = p.sendBatch(List.of(
                            OutgoingRecord.of(k0, v0, Headers.of("h", bytes("header-zero"))),
                            OutgoingRecord.of(k1, v1, Headers.of("h", h1))));
                    assertThat(f).as("%s %s: the part for partition 1 waits", codec, fsync).isNotDone();
                    junk(v0, v1, h1, k0, k1);
                    release.countDown();
                    holder.join();
                    f.join();

                    Map<String, KafkoRecord> read = readAll(k, 3);
                    assertThat(read).as("%s %s", codec, fsync).containsKeys("holder", "zero", "one");
                    assertThat(read.get("one").key()).isEqualTo(key1);
                    assertThat(read.get("one").headers().lastHeader("h").value()).isEqualTo(bytes("header-one"));
                    assertThat(read.get("zero").key()).isEqualTo(key0);
                }
                reset();
            }
        }
    }

    @Test
    void aSendAndABatchQueuedBehindAnotherThreadsAppendKeepTheirBytes() throws Exception {
        try (Kafko k = Kafko.open(dir, options())) {
            k.createTopic("t", TopicConfig.builder().partitions(1).fsync(FsyncPolicy.EVERY_BATCH).build());
            Producer p = k.producer("t");
            CompletableFuture<RecordPosition> holder = hold(p, 0);

            byte[] key = bytes("k-send");
            byte[] value = bytes("send");
            byte[] header = bytes("h-send");
            CompletableFuture<RecordPosition> sent = p.send(key, value, Headers.of("h", header));
            assertThat(sent).isNotDone();
            junk(key, value, header);
            byte[] bValue = bytes("batch");
            byte[] bHeader = bytes("h-batch");
            List<OutgoingRecord> batch = new ArrayList<>(List.of(OutgoingRecord.of(null, bValue, Headers.of("h", bHeader))));
            CompletableFuture<List<RecordPosition>> batched = p.sendBatchTo(0, batch);
            assertThat(batched).isNotDone();
            junk(bValue, bHeader);
            batch.set(0, OutgoingRecord.of(null, bytes("replaced"))); // the list itself is the caller's too
            release.countDown();
            holder.join();
            sent.join();
            batched.join();

            Map<String, KafkoRecord> read = readAll(k, 3);
            assertThat(read).containsOnlyKeys("holder", "send", "batch");
            assertThat(read.get("send").key()).isEqualTo(bytes("k-send"));
            assertThat(read.get("send").headers().lastHeader("h").value()).isEqualTo(bytes("h-send"));
            assertThat(read.get("batch").headers().lastHeader("h").value()).isEqualTo(bytes("h-batch"));
        }
    }

    @Test
    void aSendMadeByTheOwnerOfAnotherPartitionKeepsItsBytes() throws Exception {
        try (Kafko k = Kafko.open(dir, options())) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            Producer p = k.producer("t");
            // partition 1 held too, so that the owner's send is still queued when its arrays are overwritten
            // (otherwise the scheduler may write it first, and the test would prove nothing)
            CompletableFuture<RecordPosition> holder = hold(p, 1);
            CompletableFuture<CompletableFuture<RecordPosition>> inner = new CompletableFuture<>();
            onAppendOfPartition0.set(() -> {
                // this thread owns partition 0: its send to partition 1 is only queued (ThreadMarks.OWNING)
                byte[] value = bytes("from-owner");
                byte[] header = bytes("h-owner");
                CompletableFuture<RecordPosition> f = p.sendTo(1, OutgoingRecord.of(null, value, Headers.of("h", header)));
                junk(value, header);
                inner.complete(f);
            });
            p.sendTo(0, null, bytes("outer")).join();
            assertThat(inner.join()).isNotDone();
            release.countDown();
            holder.join();
            inner.join().join();

            Map<String, KafkoRecord> read = readAll(k, 3);
            assertThat(read).containsOnlyKeys("holder", "outer", "from-owner");
            assertThat(read.get("from-owner").headers().lastHeader("h").value()).isEqualTo(bytes("h-owner"));
        }
    }

    @Test
    void sendsMadeFromCallbacksDeepAndShallowKeepTheirBytes() {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().build())) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            Producer p = k.producer("t");
            int depth = 200; // past DeferredSends' depth: the deeper sends are queued, not written in their call
            List<CompletableFuture<?>> all = new ArrayList<>();
            CompletableFuture<Void> done = new CompletableFuture<>();
            chain(p, 0, depth, all, done);
            done.join();
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();

            Map<String, KafkoRecord> read = readAll(k, depth);
            for (int i = 0; i < depth; i++) {
                assertThat(read).as("record %d", i).containsKey("chained-" + i);
                assertThat(read.get("chained-" + i).headers().lastHeader("h").value()).isEqualTo(bytes("h-" + i));
            }
        }
    }

    /** Sends record {@code i} and, from its callback, record {@code i + 1}; junks each one's arrays after its call. */
    private static void chain(Producer p, int i, int depth, List<CompletableFuture<?>> all, CompletableFuture<Void> done) {
        if (i == depth) {
            done.complete(null);
            return;
        }
        byte[] value = bytes("chained-" + i);
        byte[] header = bytes("h-" + i);
        CompletableFuture<RecordPosition> f = p.sendTo(i % 2, OutgoingRecord.of(null, value, Headers.of("h", header)));
        junk(value, header);
        synchronized (all) {
            all.add(f);
        }
        f.whenComplete((pos, e) -> chain(p, i + 1, depth, all, done));
    }

    @Test
    void aSendThatWaitedForRoomInAFullMailboxKeepsItsBytes() throws Exception {
        KafkoOptions o = options().toBuilder().maxQueuedBytes(1).maxBlock(Duration.ofSeconds(30)).build();
        try (Kafko k = Kafko.open(dir, o)) {
            k.createTopic("t", TopicConfig.builder().partitions(1).build());
            Producer p = k.producer("t");
            CompletableFuture<RecordPosition> holder = hold(p, 0);
            byte[] first = bytes("queued-first");
            CompletableFuture<RecordPosition> queued = p.send(null, first); // fills the mailbox
            junk(first);
            CountDownLatch sending = new CountDownLatch(1);
            CompletableFuture<CompletableFuture<RecordPosition>> waiter = Fixtures.onNewThread(() -> {
                byte[] value = bytes("waited-for-room");
                sending.countDown();
                CompletableFuture<RecordPosition> f = p.send(null, value); // waits for room, then is queued
                junk(value);
                return f;
            });
            sending.await();
            release.countDown();
            holder.join();
            queued.join();
            waiter.join().join();

            assertThat(readAll(k, 3)).containsOnlyKeys("holder", "queued-first", "waited-for-room");
        }
    }

    @Test
    void uncontendedSendsAndBatchesWithEveryCodecAreWrittenBeforeTheCallReturns() {
        for (Compression codec : Compression.values()) {
            try (Kafko k = Kafko.open(dir.resolve(codec.name()), KafkoOptions.builder().linger(Duration.ZERO).build())) {
                k.createTopic("t", TopicConfig.builder().partitions(1).compression(codec).build());
                Producer p = k.producer("t");
                byte[] value = bytes("single");
                CompletableFuture<RecordPosition> f = p.send(null, value);
                assertThat(f).as("%s: written in its call", codec).isDone();
                junk(value);
                byte[] b = bytes("in-batch");
                CompletableFuture<List<RecordPosition>> g = p.sendBatch(List.of(OutgoingRecord.of(null, b)));
                assertThat(g).as("%s: written in its call", codec).isDone();
                junk(b);
                assertThat(readAll(k, 2)).as("%s", codec).containsOnlyKeys("single", "in-batch");
            }
        }
    }

    /** Fresh latches, for a loop that holds a partition again. */
    private void reset() {
        entered = new CountDownLatch(1);
        release = new CountDownLatch(1);
    }

    /** A key that routes to {@code partition}. */
    private static byte[] keyFor(Producer p, int partition) {
        for (int i = 0; ; i++) {
            byte[] key = bytes("key-" + i);
            if (p.partitionFor(key) == partition) {
                return key;
            }
        }
    }

    /** The records of every partition by value (as text); the values are distinct. */
    private static Map<String, KafkoRecord> readAll(Kafko k, int count) {
        Map<String, KafkoRecord> out = new HashMap<>();
        try (Consumer c = k.consumer("t")) {
            for (KafkoRecord r : Fixtures.pollUntil(c, count)) {
                assertThat(out.put(new String(r.value(), StandardCharsets.UTF_8), r)).isNull();
            }
        }
        assertThat(out).hasSize(count);
        return out;
    }

    private static void junk(byte[]... arrays) {
        for (byte[] a : arrays) {
            Arrays.fill(a, JUNK);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
