package dev.kafko.tryout;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.CleanupPolicy;
import dev.kafko.Compression;
import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.Headers;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.PartitionInfo;
import dev.kafko.PartitionState;
import dev.kafko.Producer;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A compacted topic's merging of sealed segments, from the outside: a topic of small segments whose keys are updated
 * many times, compacted again and again while producers send and consumers tail it, keeps every record a consumer
 * reads the one sent at its offset and every key's latest readable, and its segment count follows its live data, not
 * its history; lookups by time, positions inside merged gaps, retention and policy changes, and closes and reopens
 * agree with what was sent.
 */
class MergeTryoutTest {

    static final Duration WAIT = Duration.ofSeconds(5);
    /** Timestamps from about now: a tombstone is removed once older than the topic's deleteRetention (a day). */
    static final long T0 = System.currentTimeMillis() - 60_000;

    @TempDir
    Path dir;

    static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    static String s(byte[] b) {
        return b == null ? null : new String(b, UTF_8);
    }

    /** Every record from the beginning of partition {@code p} to its end offset. */
    static List<KafkoRecord> readAll(Kafko k, String topic, int p) {
        List<KafkoRecord> out = new ArrayList<>();
        long end = k.topic(topic).orElseThrow().partition(p).endOffset();
        try (Consumer c = k.consumer(topic)) {
            c.seekToBeginning();
            for (int q = 0; q < c.assignment().size(); q++) {
                if (q != p) {
                    c.pause(List.of(q));
                }
            }
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (c.position(p) < end) {
                assertThat(System.nanoTime()).as("reading %s-%d to %d", topic, p, end).isLessThan(deadline);
                for (KafkoRecord r : c.poll(Duration.ofMillis(50))) {
                    out.add(r);
                }
            }
        }
        return out;
    }

    /** What a sender had acknowledged at an offset: its key and value (null for a tombstone), which header v repeats. */
    record Sent(String key, String value) {
    }

    static void assertIsSent(KafkoRecord r, Map<Long, Sent> sent, String what) {
        Sent expected = sent.get(r.offset());
        assertThat(expected).as("%s: a record at %d-%d that was never sent", what, r.partition(), r.offset()).isNotNull();
        assertThat(s(r.key())).as("%s: key at %d-%d", what, r.partition(), r.offset()).isEqualTo(expected.key());
        assertThat(s(r.value())).as("%s: value at %d-%d", what, r.partition(), r.offset()).isEqualTo(expected.value());
        assertThat(s(r.headers().lastValue("v"))).as("%s: header at %d-%d", what, r.partition(), r.offset())
                .isEqualTo(expected.value() == null ? "tombstone" : expected.value());
    }

    /**
     * The log of {@code p} as read from the beginning: each record the one sent at its offset, offsets increasing, and
     * the latest record of each key sent there present.
     */
    static List<KafkoRecord> assertWhole(Kafko k, String topic, int p, Map<Long, Sent> sent, String what) {
        List<KafkoRecord> all = readAll(k, topic, p);
        long prev = -1;
        Map<String, Long> latestRead = new HashMap<>();
        for (KafkoRecord r : all) {
            assertThat(r.offset()).as(what).isGreaterThan(prev);
            prev = r.offset();
            assertIsSent(r, sent, what);
            latestRead.put(s(r.key()), r.offset());
        }
        Map<String, Long> latestSent = new HashMap<>();
        for (Map.Entry<Long, Sent> e : new TreeMap<>(sent).entrySet()) {
            latestSent.put(e.getValue().key(), e.getKey());
        }
        assertThat(latestRead).as("%s: the latest record of every key of partition %d", what, p).isEqualTo(latestSent);
        return all;
    }

    @Test
    void compactionsWhileThreeProducersSendAndTwoConsumersTailKeepEveryRecordWhereItWasAndTheSegmentsFew()
            throws Exception {
        int partitions = 3;
        List<Map<Long, Sent>> sent = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            sent.add(new ConcurrentHashMap<>());
        }
        int compactions = 0;
        long removed = 0;
        int[] maxSegments = new int[partitions];
        try (Kafko k = Kafko.open(dir)) {
            Topic t = k.createTopic("ledger", TopicConfig.builder().compact().partitions(partitions)
                    .segmentBytes(4096).indexIntervalBytes(256).compression(Compression.LZ4).build());
            Producer producer = k.producer("ledger");
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService pool = Executors.newFixedThreadPool(6);
            List<Future<Integer>> senders = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                int worker = w;
                senders.add(pool.submit(() -> {
                    Random rnd = new Random(worker);
                    int n = 0;
                    while (n < 2_500) {
                        String key = "w" + worker + "-k" + rnd.nextInt(25);
                        String value = rnd.nextInt(11) == 0 ? null : worker + ":" + n + ":" + "x".repeat(rnd.nextInt(200));
                        Headers h = Headers.of("v", b(value == null ? "tombstone" : value));
                        var pos = producer.send(OutgoingRecord.of(b(key), value == null ? null : b(value), h)).join();
                        sent.get(pos.partition()).put(pos.offset(), new Sent(key, value));
                        n++;
                    }
                    return n;
                }));
            }
            // a plain consumer and a group member tail the topic
            List<Future<List<KafkoRecord>>> tails = new ArrayList<>();
            for (int c = 0; c < 2; c++) {
                boolean group = c == 1;
                tails.add(pool.submit(() -> {
                    List<KafkoRecord> seen = new ArrayList<>();
                    try (Consumer consumer = group ? k.groupConsumer("ledger", "tail",
                            ConsumerOptions.DEFAULTS.withMaxPollRecords(7)) : k.consumer("ledger")) {
                        while (!stop.get()) {
                            seen.addAll(consumer.poll(Duration.ofMillis(20)));
                            if (group) {
                                consumer.commit();
                            }
                        }
                    }
                    return seen;
                }));
            }
            // and lookups by time go on over the segments being merged
            long start = System.currentTimeMillis();
            Future<Integer> lookups = pool.submit(() -> {
                int n = 0;
                Random rnd = new Random(11);
                try (Consumer consumer = k.consumer("ledger")) {
                    while (!stop.get()) {
                        int p = rnd.nextInt(partitions);
                        long target = start + rnd.nextInt((int) Math.max(1, System.currentTimeMillis() - start));
                        consumer.seekToTimestamp(p, target);
                        assertThat(consumer.position(p)).isBetween(0L, t.partition(p).endOffset());
                        n++;
                    }
                }
                return n;
            });
            for (int round = 0; round < 20 || !senders.stream().allMatch(Future::isDone); round++) {
                if (round == 20) {
                    t.alterConfig(t.config().toBuilder().compression(Compression.ZSTD).build());
                }
                removed += t.compact();
                compactions++;
                for (int p = 0; p < partitions; p++) {
                    maxSegments[p] = Math.max(maxSegments[p], t.partition(p).segmentCount());
                }
            }
            stop.set(true);
            int total = 0;
            for (Future<Integer> f : senders) {
                total += f.get(20, TimeUnit.SECONDS);
            }
            List<List<KafkoRecord>> seen = new ArrayList<>();
            for (Future<List<KafkoRecord>> f : tails) {
                seen.add(f.get(20, TimeUnit.SECONDS));
            }
            int looked = lookups.get(20, TimeUnit.SECONDS);
            pool.shutdown();
            assertThat(total).isEqualTo(7_500);
            for (int c = 0; c < seen.size(); c++) {
                Map<Integer, Long> last = new HashMap<>();
                for (KafkoRecord r : seen.get(c)) {
                    assertIsSent(r, sent.get(r.partition()), "tail " + c);
                    Long prev = last.put(r.partition(), r.offset());
                    if (prev != null) {
                        assertThat(r.offset()).as("tail %d, partition %d", c, r.partition()).isGreaterThan(prev);
                    }
                }
            }
            removed += t.compact();
            removed += t.compact();
            compactions += 2;
            for (int p = 0; p < partitions; p++) {
                List<KafkoRecord> all = assertWhole(k, "ledger", p, sent.get(p), "live");
                PartitionInfo info = t.partition(p);
                assertThat(info.state()).isEqualTo(PartitionState.RUNNING);
                long liveBytes = 0;
                for (KafkoRecord r : all) {
                    liveBytes += 64 + (r.value() == null ? 0 : 2L * r.value().length);
                }
                // 25 keys of each of three senders: the live records fit a few segments, whatever the history
                assertThat(info.segmentCount()).as("partition %d after %d records sent to it", p, sent.get(p).size())
                        .isLessThanOrEqualTo(2 + (int) (liveBytes / 2048));
                System.out.printf("partition %d: %d sent, %d kept, %d segments now, %d at most, %d bytes%n", p,
                        sent.get(p).size(), all.size(), info.segmentCount(), maxSegments[p], info.sizeBytes());
            }
            System.out.printf("%d records sent, %d removed by %d compactions, %d lookups by time%n", total, removed,
                    compactions, looked);
        }
        try (Kafko k = Kafko.open(dir)) {
            for (int p = 0; p < partitions; p++) {
                assertWhole(k, "ledger", p, sent.get(p), "reopened");
            }
        }
    }

    @Test
    void lookupsByTimeAndCommittedPositionsInsideMergedGapsFindTheNextKeptRecord() {
        Random rnd = new Random(7);
        Map<Long, Sent> sent = new HashMap<>();
        Map<Long, Long> stamps = new HashMap<>();
        try (Kafko k = Kafko.open(dir)) {
            Topic t = k.createTopic("prices", TopicConfig.builder().compact().segmentBytes(TopicConfig.MIN_SEGMENT_BYTES)
                    .indexIntervalBytes(128).compression(Compression.ZSTD).build());
            Producer p = k.producer("prices");
            long ts = T0;
            List<Long> committedAt = new ArrayList<>();
            for (int round = 0; round < 6; round++) {
                for (int i = 0; i < 150; i++) {
                    String key = "k" + rnd.nextInt(12);
                    String value = rnd.nextInt(9) == 0 ? null : "p" + round + "-" + i;
                    long stamp = rnd.nextInt(8) == 0 ? ts - rnd.nextInt(5_000) : ts;
                    ts += rnd.nextInt(40);
                    long off = p.sendTo(0, OutgoingRecord.of(b(key), value == null ? null : b(value),
                            Headers.of("v", b(value == null ? "tombstone" : value)), stamp)).join().offset();
                    sent.put(off, new Sent(key, value));
                    stamps.put(off, stamp);
                }
                // a group's position committed somewhere in what the next compactions remove or keep
                long at = rnd.nextInt(Math.toIntExact(t.partition(0).endOffset()));
                String group = "g" + round;
                try (Consumer c = k.groupConsumer("prices", group)) {
                    c.commit(Map.of(0, at));
                }
                committedAt.add(at);
                t.compact();
                t.compact();
                checkLookups(k, t, sent, stamps, rnd, "round " + round);
                for (int g = 0; g <= round; g++) {
                    try (Consumer c = k.groupConsumer("prices", "g" + g)) {
                        List<KafkoRecord> got = c.poll(WAIT);
                        assertThat(got).as("group g%d resumes", g).isNotEmpty();
                        long expected = firstKeptFrom(k, committedAt.get(g));
                        assertThat(got.get(0).offset()).as("group g%d committed at %d", g, committedAt.get(g))
                                .isEqualTo(expected);
                    }
                }
            }
            System.out.printf("%d records sent, %d segments, %d kept%n", sent.size(), t.partition(0).segmentCount(),
                    readAll(k, "prices", 0).size());
        }
        try (Kafko k = Kafko.open(dir)) {
            checkLookups(k, k.topic("prices").orElseThrow(), sent, stamps, rnd, "reopened");
        }
    }

    private static long firstKeptFrom(Kafko k, long offset) {
        for (KafkoRecord r : readAll(k, "prices", 0)) {
            if (r.offset() >= offset) {
                return r.offset();
            }
        }
        throw new AssertionError("nothing kept from " + offset);
    }

    private static void checkLookups(Kafko k, Topic t, Map<Long, Sent> sent, Map<Long, Long> stamps, Random rnd,
            String what) {
        List<KafkoRecord> all = assertWhole(k, "prices", 0, sent, what);
        PartitionInfo info = t.partition(0);
        assertThat(info.logStartOffset()).isZero();
        assertThat(info.endOffset()).isEqualTo(sent.size());
        for (KafkoRecord r : all) {
            assertThat(r.timestamp()).as(what).isEqualTo(stamps.get(r.offset()));
        }
        try (Consumer c = k.consumer("prices", ConsumerOptions.DEFAULTS.withMaxPollRecords(2))) {
            c.seekToBeginning();
            assertThat(c.poll(WAIT).get(0).offset()).as(what + " from the beginning").isEqualTo(all.get(0).offset());
            c.seekToEnd();
            assertThat(c.position(0)).isEqualTo(info.endOffset());
            for (int q = 0; q < 200; q++) {
                long target = T0 - 6_000 + rnd.nextInt(6 * 150 * 20 + 8_000);
                long expected = info.endOffset();
                for (KafkoRecord r : all) {
                    if (r.timestamp() >= target) {
                        expected = r.offset();
                        break;
                    }
                }
                c.seekToTimestamp(target);
                assertThat(c.position(0)).as("%s: seekToTimestamp(%d)", what, target).isEqualTo(expected);
            }
        }
    }

    /** Sends {@code n} records of {@code keys} keys to partition 0, with a value of {@code valueBytes}; records them. */
    static void fill(Producer p, Map<Long, Sent> sent, int from, int n, int keys, int valueBytes) {
        for (int i = from; i < from + n; i++) {
            String key = "k" + (i % keys);
            String value = i + ":" + "v".repeat(valueBytes);
            long off = p.sendTo(0, OutgoingRecord.of(b(key), b(value), Headers.of("v", b(value)))).join().offset();
            sent.put(off, new Sent(key, value));
        }
    }

    @Test
    void retentionDeletesMergedSegmentsAndPolicyChangesWhileACompactorLoopsLoseNoLatestRecord() throws Exception {
        Map<Long, Sent> sent = new HashMap<>();
        KafkoOptions options = KafkoOptions.builder().retentionCheckInterval(Duration.ofMillis(10)).build();
        try (Kafko k = Kafko.open(dir, options)) {
            Topic t = k.createTopic("audit", TopicConfig.builder().cleanupPolicy(CleanupPolicy.COMPACT_DELETE)
                    .segmentBytes(2048).compression(Compression.LZ4).build());
            Producer p = k.producer("audit");
            fill(p, sent, 0, 400, 10, 20);
            t.compact();
            t.compact();
            PartitionInfo merged = t.partition(0);
            assertWhole(k, "audit", 0, sent, "merged");
            // retention by bytes now deletes from the oldest (merged) segment on
            t.alterConfig(t.config().toBuilder().retentionBytes(600).build());
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (t.partition(0).logStartOffset() == 0) {
                assertThat(System.nanoTime()).as("retention deletes the merged segment").isLessThan(deadline);
                Thread.onSpinWait();
            }
            PartitionInfo after = t.partition(0);
            assertThat(after.segmentCount()).isLessThan(merged.segmentCount());
            assertThat(after.sizeBytes()).isLessThan(merged.sizeBytes());
            try (Consumer c = k.consumer("audit")) {
                c.seekToBeginning();
                List<KafkoRecord> got = c.poll(WAIT);
                assertThat(got).isNotEmpty();
                assertThat(got.get(0).offset()).isGreaterThanOrEqualTo(after.logStartOffset());
                for (KafkoRecord r : got) {
                    assertIsSent(r, sent, "after retention");
                }
            }
            t.alterConfig(t.config().toBuilder().retentionBytes(-1).build());
            // a compactor loops while the policy flips between DELETE and COMPACT and records go on
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService pool = Executors.newSingleThreadExecutor();
            Future<Integer> compactor = pool.submit(() -> {
                int n = 0;
                while (!stop.get() && n < 400) {
                    try {
                        t.compact();
                        n++;
                    } catch (IllegalStateException e) {
                        assertThat(e).hasMessageContaining("DELETE");
                    }
                }
                return n;
            });
            int next = 400;
            for (int flip = 0; flip < 30; flip++) {
                t.alterConfig(t.config().toBuilder().cleanupPolicy(flip % 2 == 0 ? CleanupPolicy.DELETE
                        : CleanupPolicy.COMPACT).build());
                fill(p, sent, next, 40, 10, 20 + flip);
                next += 40;
            }
            t.alterConfig(t.config().toBuilder().cleanupPolicy(CleanupPolicy.COMPACT).build());
            stop.set(true);
            int compactions = compactor.get(20, TimeUnit.SECONDS);
            pool.shutdown();
            t.compact();
            t.compact();
            // what retention deleted is gone: the latest of a key sent only below the log start is not expected
            long start = t.partition(0).logStartOffset();
            sent.keySet().removeIf(o -> o < start);
            assertWhole(k, "audit", 0, sent, "after flips");
            assertThat(t.partition(0).state()).isEqualTo(PartitionState.RUNNING);
            assertThat(t.partition(0).segmentCount()).isLessThanOrEqualTo(4);
            System.out.printf("retention: start %d, %d compactions while flipping, %d segments%n", start, compactions,
                    t.partition(0).segmentCount());
        }
        try (Kafko k = Kafko.open(dir)) {
            assertWhole(k, "audit", 0, sent, "reopened");
        }
    }

    @Test
    void mergesNearTheLimitsKeepLargeRecordsHeadersAndTheActiveSegment() {
        Map<Long, Sent> sent = new HashMap<>();
        try (Kafko k = Kafko.open(dir)) {
            // a huge segment size: one sealed segment (after a roll by age is not possible here), nothing to merge
            Topic huge = k.createTopic("huge", TopicConfig.builder().compact().segmentBytes(1L << 30).build());
            Producer hp = k.producer("huge");
            for (int i = 0; i < 50; i++) {
                hp.sendTo(0, b("k" + (i % 3)), b("v" + i)).join();
            }
            assertThat(huge.compact()).as("the active segment is never compacted").isZero();
            assertThat(huge.partition(0).segmentCount()).isEqualTo(1);
            assertThat(huge.partition(0).endOffset()).isEqualTo(50);

            Topic t = k.createTopic("big", TopicConfig.builder().compact().segmentBytes(64 * 1024)
                    .maxRecordBytes(200 * 1024).compression(Compression.ZSTD).build());
            Producer p = k.producer("big");
            Random rnd = new Random(3);
            for (int i = 0; i < 60; i++) {
                String key = "k" + (i % 4);
                byte[] v = new byte[rnd.nextInt(3) == 0 ? 100_000 : 2_000];
                rnd.nextBytes(v); // incompressible
                String value = java.util.Base64.getEncoder().encodeToString(v).substring(0, v.length / 2);
                Headers h = Headers.of("v", b(value)).with("big", new byte[3_000]);
                long off = p.sendTo(0, OutgoingRecord.of(b(key), b(value), h)).join().offset();
                sent.put(off, new Sent(key, value));
            }
            long end = t.partition(0).endOffset();
            for (int i = 0; i < 4; i++) {
                t.compact();
            }
            assertWhole(k, "big", 0, sent, "large records");
            assertThat(t.partition(0).endOffset()).isEqualTo(end);
            // every record of the sealed segments goes but the latest four: they sit in the first (merged) segment
            for (int i = 0; i < 4; i++) {
                String value = "last-" + i;
                long off = p.sendTo(0, OutgoingRecord.of(b("k" + i), b(value), Headers.of("v", b(value)))).join()
                        .offset();
                sent.put(off, new Sent("k" + i, value));
            }
            t.compact();
            t.compact();
            List<KafkoRecord> all = assertWhole(k, "big", 0, sent, "superseded");
            assertThat(all).extracting(r -> s(r.value())).contains("last-0", "last-1", "last-2", "last-3");
            System.out.printf("large: %d segments, %d bytes, %d records kept%n", t.partition(0).segmentCount(),
                    t.partition(0).sizeBytes(), all.size());
        }
        try (Kafko k = Kafko.open(dir)) {
            assertWhole(k, "big", 0, sent, "large records reopened");
        }
    }

    @Test
    void hundredsOfSegmentsRolledByAgeMergeInOneGoOnlyPastTheLagAndRetentionDeletesTheMergedOneWhole() {
        dev.kafko.internal.log.MutableClock clock = new dev.kafko.internal.log.MutableClock(T0);
        KafkoOptions options = KafkoOptions.builder().clock(clock).retentionCheckInterval(Duration.ofMillis(10)).build();
        Map<Long, Sent> sent = new HashMap<>();
        try (Kafko k = Kafko.open(dir, options)) {
            Topic t = k.createTopic("slow", TopicConfig.builder().cleanupPolicy(CleanupPolicy.COMPACT_DELETE)
                    .segmentAge(Duration.ofMinutes(1)).minCompactionLag(Duration.ofMinutes(30))
                    .retention(Duration.ofHours(5)).build());
            Producer p = k.producer("slow");
            // one record a minute for four hours: a segment each (distinct keys: nothing to remove)
            for (int i = 0; i < 240; i++) {
                String value = "m" + i;
                long off = p.sendTo(0, OutgoingRecord.of(b("k" + i), b(value), Headers.of("v", b(value)))).join()
                        .offset();
                sent.put(off, new Sent("k" + i, value));
                clock.advance(Duration.ofMinutes(1).plusMillis(1));
            }
            assertThat(t.partition(0).endOffset()).isEqualTo(240);
            t.compact(); // a background compaction may have merged them already
            PartitionInfo info = t.partition(0);
            // the segments past the lag (older than 30 minutes) merged into one; the rest as they were
            assertThat(info.segmentCount()).as("%s", info).isBetween(30, 33);
            assertThat(info.logStartOffset()).isZero();
            long mergedEnd = 241 - info.segmentCount();
            assertWhole(k, "slow", 0, sent, "merged by age");
            try (Consumer c = k.consumer("slow")) {
                c.seekToTimestamp(T0 + 100 * 60_001L + 1);
                assertThat(c.position(0)).isEqualTo(101);
            }
            // retention's cutoff passes the merged segment's newest record: it goes whole, the next segment starts
            // the log
            clock.advance(Duration.ofMillis(T0 + (mergedEnd - 1) * 60_001L + 1 + Duration.ofHours(5).toMillis()
                    - clock.millis()));
            p.sendTo(0, OutgoingRecord.of(b("tail"), b("t"), Headers.of("v", b("t")))).join();
            sent.put(240L, new Sent("tail", "t"));
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (t.partition(0).logStartOffset() == 0) {
                assertThat(System.nanoTime()).as("retention deletes the merged segment").isLessThan(deadline);
                Thread.onSpinWait();
            }
            assertThat(t.partition(0).logStartOffset()).isEqualTo(mergedEnd);
            sent.keySet().removeIf(o -> o < mergedEnd);
            assertWhole(k, "slow", 0, sent, "merged segment expired");
        }
    }
}
