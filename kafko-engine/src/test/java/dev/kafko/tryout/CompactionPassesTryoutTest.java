package dev.kafko.tryout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Compression;
import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.Headers;
import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.OffsetResetPolicy;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compaction in passes (a partition whose keys do not fit {@code compactionBufferBytes}) and the holes it leaves in the
 * frames of the records it keeps, from the public API: against a model of what was sent (fixed seeds), every record
 * read is the one sent at its offset, exactly the records the compaction rules keep are read, the end offset does not
 * move, and positions, committed offsets and lookups by time that fall among removed records go to the next kept one,
 * before and after a reopen, under other codecs and other buffer sizes, while a group tails and a producer sends, and
 * across a close in the middle of background passes. Every record before a pad frame larger than a segment is sealed,
 * so the model knows exactly what a compaction removes: before the pad, all but the latest record of each key, and
 * that one too when it is a tombstone (timestamps are an hour old, {@code deleteRetention} zero).
 */
class CompactionPassesTryoutTest {

    static final Duration WAIT = Duration.ofSeconds(10);
    /** Record timestamps start an hour ago: a tombstone is past a zero deleteRetention once sealed. */
    static final long T0 = System.currentTimeMillis() - 3_600_000L;
    /** Pad keys are longer than any random key, so they never collide with one. */
    static final int MAX_KEY = 48;

    @TempDir
    Path dir;

    final AtomicLong compactionReports = new AtomicLong();
    final AtomicLong timestamps = new AtomicLong(T0);
    final Random padBytes = new Random(99);

    /** What was sent at an offset; value null for a tombstone. */
    record Sent(ByteBuffer key, byte[] value, long timestamp, Headers headers) {
    }

    KafkoOptions options(long bufferBytes, Duration check) {
        return KafkoOptions.builder().compactionBufferBytes(bufferBytes).retentionCheckInterval(check)
                .observer(new KafkoObserver() {
                    @Override
                    public void onCompaction(String topic, int partition, long records, long bytes) {
                        compactionReports.incrementAndGet();
                    }
                }).build();
    }

    static TopicConfig config(int partitions) {
        return TopicConfig.builder().compact().partitions(partitions).segmentBytes(16 << 10)
                .deleteRetention(Duration.ZERO).indexIntervalBytes(512).build();
    }

    static List<byte[]> keys(Random rnd, int n) {
        Set<ByteBuffer> distinct = new LinkedHashSet<>();
        distinct.add(ByteBuffer.wrap(new byte[0]));
        while (distinct.size() < n) {
            byte[] k = new byte[rnd.nextInt(MAX_KEY + 1)];
            rnd.nextBytes(k);
            distinct.add(ByteBuffer.wrap(k));
        }
        List<byte[]> out = new ArrayList<>();
        for (ByteBuffer b : distinct) {
            out.add(b.array());
        }
        return out;
    }

    static byte[] value(Random rnd) {
        int kind = rnd.nextInt(100);
        if (kind < 12) {
            return null;
        }
        if (kind < 17) {
            return new byte[0];
        }
        byte[] v = new byte[rnd.nextInt(1, 90)];
        rnd.nextBytes(v);
        return v;
    }

    /** A record stamped with the next timestamp; one in four has a header (its value's length). */
    OutgoingRecord record(byte[] key, byte[] value) {
        long ts = timestamps.getAndIncrement();
        Headers headers = ts % 4 == 0 ? Headers.of("n", new byte[] {(byte) (value == null ? -1 : value.length)})
                : Headers.empty();
        return new OutgoingRecord(key, value, headers, ts);
    }

    /** Sends {@code count} random records to {@code p} in batches of 1 to 60 (each one frame) and records them. */
    void sendRound(Producer producer, int p, Random rnd, List<byte[]> keys, int count,
                   NavigableMap<Long, Sent> sent) throws Exception {
        int left = count;
        while (left > 0) {
            int n = Math.min(left, rnd.nextInt(10) < 3 ? 1 : rnd.nextInt(1, 61));
            List<OutgoingRecord> batch = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                batch.add(record(keys.get(rnd.nextInt(keys.size())), value(rnd)));
            }
            record(producer.sendBatchTo(p, batch), batch, sent);
            left -= n;
        }
    }

    static void record(CompletableFuture<List<RecordPosition>> f, List<OutgoingRecord> batch,
                       NavigableMap<Long, Sent> sent) throws Exception {
        List<RecordPosition> at = f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        for (int i = 0; i < batch.size(); i++) {
            OutgoingRecord r = batch.get(i);
            sent.put(at.get(i).offset(), new Sent(ByteBuffer.wrap(r.key()), r.value(), r.timestamp(), r.headers()));
        }
    }

    /**
     * One frame larger than a segment even compressed, of ten pad keys: the segment before it rolls, so every record
     * sent before it is sealed. Returns the first offset of the pad, the boundary of what compaction may touch.
     */
    long seal(Producer producer, int p, NavigableMap<Long, Sent> sent) throws Exception {
        List<OutgoingRecord> pad = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            byte[] key = new byte[MAX_KEY + 4];
            key[0] = (byte) i;
            byte[] value = new byte[2048];
            padBytes.nextBytes(value); // incompressible: the frame stays larger than a segment under any codec
            pad.add(record(key, value));
        }
        CompletableFuture<List<RecordPosition>> f = producer.sendBatchTo(p, pad);
        record(f, pad, sent);
        return f.get().get(0).offset();
    }

    /**
     * The records compaction keeps once everything before {@code boundary} is sealed and compacted: after it, all;
     * before it, the latest of each key there unless that is a tombstone (whose timestamp is old).
     */
    static NavigableMap<Long, Sent> kept(NavigableMap<Long, Sent> sent, long boundary) {
        Map<ByteBuffer, Long> latest = new HashMap<>();
        for (Map.Entry<Long, Sent> e : sent.headMap(boundary, false).entrySet()) {
            latest.put(e.getValue().key(), e.getKey());
        }
        NavigableMap<Long, Sent> out = new TreeMap<>();
        for (Map.Entry<Long, Sent> e : sent.entrySet()) {
            long o = e.getKey();
            if (o >= boundary || (latest.get(e.getValue().key()) == o && e.getValue().value() != null)) {
                out.put(o, e.getValue());
            }
        }
        return out;
    }

    static void assertIsSent(KafkoRecord r, Map<Long, Sent> sent, String what) {
        Sent s = sent.get(r.offset());
        assertThat(s).as("%s: a record at %d-%d that was never sent", what, r.partition(), r.offset()).isNotNull();
        assertThat(r.key()).as("%s: key at %d-%d", what, r.partition(), r.offset()).isEqualTo(s.key().array());
        assertThat(r.value()).as("%s: value at %d-%d", what, r.partition(), r.offset()).isEqualTo(s.value());
        assertThat(r.timestamp()).as("%s: timestamp at %d-%d", what, r.partition(), r.offset())
                .isEqualTo(s.timestamp());
        assertThat(r.headers()).as("%s: headers at %d-%d", what, r.partition(), r.offset()).isEqualTo(s.headers());
    }

    /** Partition {@code p} read from its beginning to its end offset by a fresh consumer, checked record by record. */
    static List<Long> readAll(Kafko k, String topic, int p, Map<Long, Sent> sent, String what) {
        List<Long> offsets = new ArrayList<>();
        long end = k.topic(topic).orElseThrow().partition(p).endOffset();
        try (Consumer c = k.consumer(topic, ConsumerOptions.DEFAULTS.withPartitions(Set.of(p)))) {
            c.seekToBeginning();
            long deadline = System.nanoTime() + WAIT.toNanos();
            long prev = -1;
            while (c.position(p) < end) {
                assertThat(System.nanoTime()).as("%s: reading %s-%d to %d", what, topic, p, end).isLessThan(deadline);
                for (KafkoRecord r : c.poll(Duration.ofMillis(50))) {
                    assertThat(r.offset()).as("%s: offsets increase", what).isGreaterThan(prev);
                    prev = r.offset();
                    assertIsSent(r, sent, what);
                    offsets.add(r.offset());
                }
            }
            assertThat(c.position(p)).as("%s: position at the end", what).isEqualTo(end);
        }
        return offsets;
    }

    /** Partition 0 of "state" holds exactly the records of {@code kept}, each as sent. */
    static void assertKept(Kafko k, NavigableMap<Long, Sent> sent, NavigableMap<Long, Sent> kept, String what) {
        assertThat(readAll(k, "state", 0, sent, what)).as("%s: the records kept", what)
                .containsExactlyElementsOf(kept.keySet());
    }

    /** Seals, compacts, and checks partition 0 against the model: exactly the kept records, the end unchanged. */
    long compactAndCheck(Kafko k, Topic t, Producer producer, NavigableMap<Long, Sent> sent,
                         NavigableMap<Long, Sent> before, String what) throws Exception {
        long boundary = seal(producer, 0, sent);
        long end = t.partition(0).endOffset();
        long removed = t.compact();
        assertThat(t.partition(0).endOffset()).as("%s: end offset after compaction", what).isEqualTo(end);
        NavigableMap<Long, Sent> expected = kept(sent, boundary);
        long candidates = before.size() + sent.tailMap(before.isEmpty() ? -1 : before.lastKey(), false).size();
        assertKept(k, sent, expected, what);
        assertThat(removed).as("%s: records compact() removed", what).isEqualTo(candidates - expected.size());
        return removed;
    }

    @Test
    void roundsOfSendsAndCompactionsInPassesKeepExactlyTheLatestRecordOfEachKey() throws Exception {
        Random rnd = new Random(42);
        List<byte[]> keys = keys(rnd, 4000);
        NavigableMap<Long, Sent> sent = new TreeMap<>();
        NavigableMap<Long, Sent> kept = new TreeMap<>();
        long removed = 0;
        try (Kafko k = Kafko.open(dir, options(KafkoOptions.MIN_COMPACTION_BUFFER_BYTES, Duration.ofHours(1)))) {
            Topic t = k.createTopic("state", config(1));
            Producer producer = k.producer("state");
            for (int round = 0; round < 5; round++) {
                sendRound(producer, 0, rnd, keys, 5000, sent);
                removed += compactAndCheck(k, t, producer, sent, kept, "round " + round);
                kept = kept(sent, sent.lastKey() - 9);
            }
            assertThat(t.compact()).as("a compaction of a compacted partition removes nothing").isZero();
            assertKept(k, sent, kept, "again");
        }
        assertThat(removed).isGreaterThan(15_000);
        // onCompaction tells each pass applied: five compactions of 4,000 keys in a 64 KiB buffer take more than five
        assertThat(compactionReports.get()).isGreaterThan(10);
    }

    @Test
    void aTailingGroupAndASenderDuringBackgroundCompactionsInPassesMissNothingAndReadNothingTwice()
            throws Exception {
        int partitions = 2;
        Random rnd = new Random(7);
        List<byte[]> keys = keys(rnd, 3000);
        List<NavigableMap<Long, Sent>> sent = new ArrayList<>();
        List<ConcurrentSkipListMap<Long, KafkoRecord>> read = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            sent.add(new ConcurrentSkipListMap<>());
            read.add(new ConcurrentSkipListMap<>());
        }
        AtomicReference<long[]> ends = new AtomicReference<>();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Kafko k = Kafko.open(dir, options(KafkoOptions.MIN_COMPACTION_BUFFER_BYTES, Duration.ofMillis(50)))) {
            Topic t = k.createTopic("state", config(partitions).toBuilder().minCleanableDirtyRatio(0.1).build());
            Producer producer = k.producer("state");
            Future<Integer> tail = pool.submit(() -> {
                int polls = 0;
                long[] last = new long[partitions];
                Arrays.fill(last, -1);
                try (Consumer c = k.groupConsumer("state", "tail",
                        ConsumerOptions.DEFAULTS.withOffsetReset(OffsetResetPolicy.EARLIEST))) {
                    long deadline = System.nanoTime() + 4 * WAIT.toNanos();
                    while (true) {
                        long[] target = ends.get();
                        if (target != null && c.assignment().size() == partitions
                                && c.position(0) >= target[0] && c.position(1) >= target[1]) {
                            return polls;
                        }
                        assertThat(System.nanoTime()).as("the tail reaching the end").isLessThan(deadline);
                        for (KafkoRecord r : c.poll(Duration.ofMillis(20))) {
                            assertThat(r.offset()).as("tail: offsets of %d increase", r.partition())
                                    .isGreaterThan(last[r.partition()]);
                            last[r.partition()] = r.offset();
                            read.get(r.partition()).put(r.offset(), r);
                        }
                        c.commit();
                        polls++;
                    }
                }
            });
            Future<Integer> send = pool.submit(() -> {
                int n = 0;
                for (int i = 0; i < 400; i++) {
                    int p = i % partitions;
                    int size = rnd.nextInt(1, 60);
                    List<OutgoingRecord> batch = new ArrayList<>();
                    for (int j = 0; j < size; j++) {
                        batch.add(record(keys.get(rnd.nextInt(keys.size())), value(rnd)));
                    }
                    record(producer.sendBatchTo(p, batch), batch, sent.get(p));
                    n += size;
                    if (i % 100 == 99) {
                        t.compact();
                    }
                }
                return n;
            });
            int records = send.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            long[] boundaries = new long[partitions];
            for (int p = 0; p < partitions; p++) {
                boundaries[p] = seal(producer, p, sent.get(p));
            }
            ends.set(new long[] {t.partition(0).endOffset(), t.partition(1).endOffset()});
            int polls = tail.get(4 * WAIT.toSeconds(), TimeUnit.SECONDS);
            t.compact();
            for (int p = 0; p < partitions; p++) {
                for (KafkoRecord r : read.get(p).values()) {
                    assertIsSent(r, sent.get(p), "tail");
                }
                NavigableMap<Long, Sent> expected = kept(sent.get(p), boundaries[p]);
                List<Long> offsets = readAll(k, "state", p, sent.get(p), "after the tail, partition " + p);
                assertThat(offsets).containsExactlyElementsOf(expected.keySet());
                assertThat(read.get(p).keySet()).as("the tail read every record that stays, partition %d", p)
                        .containsAll(expected.keySet());
                assertThat(k.groupLag("state", "tail", p)).isZero();
                assertThat(t.partition(p).endOffset()).isEqualTo(ends.get()[p]);
            }
            assertThat(records).isGreaterThan(10_000);
            assertThat(polls).isPositive();
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void committedPositionsSeeksAndTimestampsAmongRemovedRecordsGoToTheNextKeptOneAcrossAReopen() throws Exception {
        Random rnd = new Random(3);
        NavigableMap<Long, Sent> sent = new TreeMap<>();
        long boundary;
        KafkoOptions options = options(KafkoOptions.MIN_COMPACTION_BUFFER_BYTES, Duration.ofHours(1));
        try (Kafko k = Kafko.open(dir, options)) {
            Topic t = k.createTopic("state", config(1));
            Producer producer = k.producer("state");
            List<OutgoingRecord> first = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                first.add(record(new byte[] {(byte) i}, new byte[] {(byte) i, 1}));
            }
            record(producer.sendBatchTo(0, first), first, sent);
            List<OutgoingRecord> second = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                if (i == 0 || i == 39 || rnd.nextInt(3) == 0) {
                    second.add(record(new byte[] {(byte) i}, rnd.nextInt(4) == 0 ? null : new byte[] {(byte) i, 2}));
                }
            }
            record(producer.sendBatchTo(0, second), second, sent);
            long end = t.partition(0).endOffset();
            for (long o = 0; o < end; o++) {
                try (Consumer c = k.groupConsumer("state", "g" + o)) {
                    c.commit(Map.of(0, o));
                }
            }
            boundary = seal(producer, 0, sent);
            t.compact();
        }
        NavigableMap<Long, Sent> expected = kept(sent, boundary);
        assertThat(expected.size()).isLessThan(sent.size() - 10);
        try (Kafko k = Kafko.open(dir, options)) {
            assertKept(k, sent, expected, "reopened");
            assertThat(expected.firstKey()).as("the first record was replaced").isPositive();
            assertThat(k.topic("state").orElseThrow().partition(0).logStartOffset())
                    .as("compaction does not move the log start").isZero();
            try (Consumer c = k.consumer("state")) {
                c.seekToBeginning();
                assertThat(c.position(0)).isZero();
                assertThat(first(c).offset()).isEqualTo(expected.firstKey());
            }
            for (int round = 0; round < 2; round++) {
                for (long o = 0; o < boundary; o++) {
                    long next = expected.ceilingKey(o);
                    try (Consumer c = k.groupConsumer("state", "g" + o)) {
                        assertThat(c.committed(0)).hasValue(o);
                        assertThat(first(c).offset()).as("group committed at %d", o).isEqualTo(next);
                    }
                    try (Consumer c = k.consumer("state")) {
                        c.seek(0, o);
                        assertThat(first(c).offset()).as("seek to %d", o).isEqualTo(next);
                        c.seekToTimestamp(sent.get(o).timestamp());
                        assertThat(first(c).offset()).as("seekToTimestamp of %d", o).isEqualTo(next);
                    }
                }
                assertThat(k.topic("state").orElseThrow().compact()).as("compacted again").isZero();
            }
        }
    }

    static KafkoRecord first(Consumer c) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            List<KafkoRecord> got = c.poll(Duration.ofMillis(50));
            if (!got.isEmpty()) {
                return got.get(0);
            }
            assertThat(System.nanoTime()).as("a record to read").isLessThan(deadline);
        }
    }

    @Test
    void reopenedWithHolesAndCompactedAgainUnderOtherCodecsAndBufferSizesReadsAsTheModel() throws Exception {
        Random rnd = new Random(11);
        List<byte[]> keys = keys(rnd, 3000);
        NavigableMap<Long, Sent> sent = new TreeMap<>();
        NavigableMap<Long, Sent> kept = new TreeMap<>();
        try (Kafko k = Kafko.open(dir, options(KafkoOptions.MIN_COMPACTION_BUFFER_BYTES, Duration.ofHours(1)))) {
            Topic t = k.createTopic("state", config(1));
            Producer producer = k.producer("state");
            for (int round = 0; round < 2; round++) {
                sendRound(producer, 0, rnd, keys, 4000, sent);
                compactAndCheck(k, t, producer, sent, kept, "none " + round);
                kept = kept(sent, sent.lastKey() - 9);
            }
        }
        Object[][] steps = {{Compression.LZ4, 128L << 10}, {Compression.ZSTD, 1L << 20}, {Compression.NONE, 96L << 10}};
        for (Object[] step : steps) {
            Compression codec = (Compression) step[0];
            try (Kafko k = Kafko.open(dir, options((Long) step[1], Duration.ofHours(1)))) {
                String what = codec + " at " + step[1];
                Topic t = k.topic("state").orElseThrow();
                assertKept(k, sent, kept, "reopened before " + what);
                t.alterConfig(t.config().toBuilder().compression(codec).build());
                Producer producer = k.producer("state");
                sendRound(producer, 0, rnd, keys, 3000, sent);
                compactAndCheck(k, t, producer, sent, kept, what);
                kept = kept(sent, sent.lastKey() - 9);
                assertSeeks(k, kept, rnd, what);
            }
        }
        try (Kafko k = Kafko.open(dir, options(KafkoOptions.MIN_COMPACTION_BUFFER_BYTES, Duration.ofHours(1)))) {
            assertKept(k, sent, kept, "last reopen");
            assertSeeks(k, kept, rnd, "last reopen");
            assertThat(k.topic("state").orElseThrow().compact()).isZero();
            assertKept(k, sent, kept, "last compaction");
        }
    }

    @Test
    void oneFrameWithMoreKeysThanTheBufferAndKeysLargerThanTheBufferAreCompactedAll() throws Exception {
        Random rnd = new Random(5);
        NavigableMap<Long, Sent> sent = new TreeMap<>();
        try (Kafko k = Kafko.open(dir, options(KafkoOptions.MIN_COMPACTION_BUFFER_BYTES, Duration.ofHours(1)))) {
            Topic t = k.createTopic("state", config(1).toBuilder().compression(Compression.LZ4).build());
            Producer producer = k.producer("state");
            List<byte[]> keys = keys(rnd, 3000);
            for (int round = 0; round < 2; round++) {
                List<OutgoingRecord> all = new ArrayList<>();
                for (byte[] key : keys) {
                    all.add(record(key, value(rnd)));
                }
                record(producer.sendBatchTo(0, all), all, sent);
            }
            List<OutgoingRecord> big = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                byte[] key = new byte[(80 << 10) + i];
                rnd.nextBytes(key);
                big.add(record(key, new byte[] {1}));
                big.add(record(keys.get(i), new byte[] {2}));
                big.add(record(key, new byte[] {3}));
            }
            record(producer.sendBatchTo(0, big), big, sent);
            long boundary = seal(producer, 0, sent);
            long end = t.partition(0).endOffset();
            long removed = CompletableFuture.supplyAsync(t::compact).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            NavigableMap<Long, Sent> expected = kept(sent, boundary);
            assertKept(k, sent, expected, "one big frame");
            assertThat(removed).isEqualTo(sent.size() - expected.size());
            assertThat(t.partition(0).endOffset()).isEqualTo(end);
        }
    }

    @Test
    void lookupsByTimeAmongHolesOfUnorderedTimestampsFindTheFirstKeptRecordAtOrAfter() throws Exception {
        Random rnd = new Random(17);
        NavigableMap<Long, Sent> sent = new TreeMap<>();
        KafkoOptions options = options(KafkoOptions.MIN_COMPACTION_BUFFER_BYTES, Duration.ofHours(1));
        long boundary;
        List<byte[]> keys = keys(rnd, 400);
        try (Kafko k = Kafko.open(dir, options)) {
            Topic t = k.createTopic("state", config(1).toBuilder().compression(Compression.ZSTD).build());
            Producer producer = k.producer("state");
            for (int i = 0; i < 100; i++) {
                List<OutgoingRecord> batch = new ArrayList<>();
                for (int j = rnd.nextInt(1, 40); j > 0; j--) {
                    batch.add(new OutgoingRecord(keys.get(rnd.nextInt(keys.size())), value(rnd), Headers.empty(),
                            T0 + rnd.nextInt(100_000)));
                }
                record(producer.sendBatchTo(0, batch), batch, sent);
            }
            boundary = seal(producer, 0, sent);
            assertLookups(k, sent, new TreeMap<>(sent), rnd, "before compaction");
            assertThat(t.compact()).isPositive();
            assertLookups(k, sent, kept(sent, boundary), rnd, "compacted");
        }
        try (Kafko k = Kafko.open(dir, options)) {
            assertLookups(k, sent, kept(sent, boundary), rnd, "reopened");
        }
    }

    void assertLookups(Kafko k, NavigableMap<Long, Sent> sent, NavigableMap<Long, Sent> kept, Random rnd,
                       String what) {
        long end = k.topic("state").orElseThrow().partition(0).endOffset();
        List<Long> targets = new ArrayList<>();
        for (Sent s : sent.values()) {
            targets.add(s.timestamp());
            targets.add(s.timestamp() + 1);
        }
        targets.add(T0 + 200_000);
        try (Consumer c = k.consumer("state")) {
            for (long target : targets) {
                Long expected = null;
                for (Map.Entry<Long, Sent> e : kept.entrySet()) {
                    if (e.getValue().timestamp() >= target) {
                        expected = e.getKey();
                        break;
                    }
                }
                c.seekToTimestamp(target);
                if (expected == null) {
                    assertThat(c.position(0)).as("%s: no record at or after %d", what, target).isEqualTo(end);
                } else {
                    assertThat(first(c).offset()).as("%s: seekToTimestamp(%d)", what, target).isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void aConsumerStoppedInsideFramesThatCompactionFillsWithHolesGoesOnAtTheNextKeptRecord() throws Exception {
        Random rnd = new Random(23);
        NavigableMap<Long, Sent> sent = new TreeMap<>();
        List<byte[]> keys = keys(rnd, 2500);
        List<Long> read = new ArrayList<>();
        int checkedResumes = 0;
        try (Kafko k = Kafko.open(dir, options(KafkoOptions.MIN_COMPACTION_BUFFER_BYTES, Duration.ofHours(1)))) {
            Topic t = k.createTopic("state", config(1));
            Producer producer = k.producer("state");
            try (Consumer c = k.consumer("state", ConsumerOptions.DEFAULTS.withMaxPollRecords(3))) {
                c.seekToBeginning();
                for (int round = 0; round < 24; round++) {
                    sendRound(producer, 0, rnd, keys, 250, sent);
                    for (int polls = rnd.nextInt(1, 40); polls > 0; polls--) {
                        pollInto(c, sent, read);
                    }
                    if (round % 3 == 2) {
                        Compression codec = Compression.values()[rnd.nextInt(Compression.values().length)];
                        t.alterConfig(t.config().toBuilder().compression(codec).build());
                    }
                    long boundary = seal(producer, 0, sent);
                    t.compact();
                    NavigableMap<Long, Sent> kept = kept(sent, boundary);
                    Long next = kept.ceilingKey(c.position(0));
                    List<KafkoRecord> got = pollInto(c, sent, read);
                    if (next != null) {
                        assertThat(got).as("round %d: a poll after compaction", round).isNotEmpty();
                        assertThat(got.get(0).offset()).as("round %d: the next kept record", round).isEqualTo(next);
                        checkedResumes++;
                    }
                }
                long end = t.partition(0).endOffset();
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (c.position(0) < end) {
                    assertThat(System.nanoTime()).isLessThan(deadline);
                    pollInto(c, sent, read);
                }
                assertThat(read).containsAll(kept(sent, sent.lastKey() - 9).keySet());
            }
        }
        assertThat(checkedResumes).isGreaterThan(18);
    }

    static List<KafkoRecord> pollInto(Consumer c, Map<Long, Sent> sent, List<Long> read) {
        List<KafkoRecord> got = c.poll(Duration.ofMillis(200));
        for (KafkoRecord r : got) {
            assertIsSent(r, sent, "tailing");
            long last = read.isEmpty() ? -1 : read.get(read.size() - 1);
            assertThat(r.offset()).as("tailing: offsets increase").isGreaterThan(last);
            read.add(r.offset());
        }
        return got;
    }

    /** Seeks to random offsets of partition 0 read the first kept record at or after each (the end when none). */
    static void assertSeeks(Kafko k, NavigableMap<Long, Sent> kept, Random rnd, String what) {
        long end = k.topic("state").orElseThrow().partition(0).endOffset();
        try (Consumer c = k.consumer("state", ConsumerOptions.DEFAULTS.withMaxPollRecords(2))) {
            for (int i = 0; i < 300; i++) {
                long o = rnd.nextLong(end + 1);
                c.seek(0, o);
                Long next = kept.ceilingKey(o);
                if (next == null) {
                    assertThat(c.poll(Duration.ZERO)).as("%s: seek to %d", what, o).isEmpty();
                    assertThat(c.position(0)).as("%s: seek to %d", what, o).isEqualTo(end);
                } else {
                    assertThat(first(c).offset()).as("%s: seek to %d", what, o).isEqualTo(next);
                }
            }
        }
    }

    @Test
    void aCloseDuringBackgroundPassesLosesNothingAndTheNextCompactionFinishesThem() throws Exception {
        Random rnd = new Random(31);
        List<byte[]> keys = keys(rnd, 4000);
        NavigableMap<Long, Sent> sent = new TreeMap<>();
        long boundary;
        long end;
        for (int life = 0; life < 3; life++) {
            try (Kafko k = Kafko.open(dir, options(KafkoOptions.MIN_COMPACTION_BUFFER_BYTES, Duration.ofMillis(50)))) {
                Topic t = life == 0 ? k.createTopic("state", config(1).toBuilder().minCleanableDirtyRatio(0.01).build())
                        : k.topic("state").orElseThrow();
                Producer producer = k.producer("state");
                sendRound(producer, 0, rnd, keys, 4000, sent);
                boundary = seal(producer, 0, sent);
                end = t.partition(0).endOffset();
            } // closed whatever pass the background is in
            try (Kafko k = Kafko.open(dir, options(KafkoOptions.MIN_COMPACTION_BUFFER_BYTES, Duration.ofHours(1)))) {
                Topic t = k.topic("state").orElseThrow();
                assertThat(t.partition(0).endOffset()).isEqualTo(end);
                List<Long> read = readAll(k, "state", 0, sent, "after close " + life);
                assertThat(read).as("after close %d: every record compaction keeps", life)
                        .containsAll(kept(sent, boundary).keySet());
                t.compact();
                assertKept(k, sent, kept(sent, boundary), "compacted after close " + life);
                assertThat(t.partition(0).endOffset()).isEqualTo(end);
            }
        }
    }
}
