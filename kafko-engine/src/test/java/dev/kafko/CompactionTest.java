package dev.kafko;

import static dev.kafko.Fixtures.bytes;
import static dev.kafko.Fixtures.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.internal.log.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Compacted topics: the latest record of each key kept, offsets unchanged, gaps passed over, tombstones removed. */
class CompactionTest {

    private static final Duration AGE = Duration.ofMinutes(1);

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(1_700_000_000_000L);

    private Kafko open() {
        return Kafko.open(dir, KafkoOptions.builder().clock(clock).build());
    }

    private static TopicConfig compacted(Compression compression) {
        return TopicConfig.builder().compact().compression(compression).segmentBytes(TopicConfig.MIN_SEGMENT_BYTES)
                .segmentAge(AGE).deleteRetention(Duration.ofHours(1)).build();
    }

    /** Sends {@code count} records, key {@code k<i % keys>}, value {@code v<i>}; returns the latest value per key. */
    private static Map<String, Long> send(Producer p, int from, int count, int keys) {
        Map<String, Long> latest = new LinkedHashMap<>();
        for (int i = from; i < from + count; i++) {
            String key = "k" + (i % keys);
            long offset = p.sendTo(0, bytes(key), bytes("v" + i)).join().offset();
            latest.put(key, offset);
        }
        return latest;
    }

    /** Seals every record sent so far: the next send, of key {@code tail}, rolls the active segment by age. */
    private void seal(Producer p) {
        clock.advance(AGE.plusSeconds(1));
        p.sendTo(0, bytes("tail"), bytes("t")).join();
    }

    private static List<KafkoRecord> readAll(Kafko k, String topic, int maxPoll) {
        try (Consumer c = k.consumer(topic, new ConsumerOptions(maxPoll, null, ConsumerRebalanceListener.NOOP))) {
            long end = k.topic(topic).orElseThrow().partition(0).endOffset();
            List<KafkoRecord> out = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (c.position(0) < end && System.nanoTime() < deadline) {
                out.addAll(c.poll(Duration.ofMillis(50)));
            }
            assertThat(c.position(0)).as("the consumer passed every gap to the end").isEqualTo(end);
            return out;
        }
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"NONE", "LZ4", "ZSTD"})
    void keepsTheLatestRecordOfEachKeyAtItsOffset(Compression compression) {
        try (Kafko k = open()) {
            k.createTopic("state", compacted(compression));
            Producer p = k.producer("state");
            Map<String, Long> latest = send(p, 0, 300, 10);
            seal(p);
            long end = k.topic("state").orElseThrow().partition(0).endOffset();
            long sizeBefore = k.topic("state").orElseThrow().partition(0).sizeBytes();

            assertThat(k.topic("state").orElseThrow().compact()).isEqualTo(290);

            for (int maxPoll : new int[] {1, 3, 500}) {
                List<KafkoRecord> read = readAll(k, "state", maxPoll);
                assertThat(read).extracting(r -> text(r.key())).containsExactly("k0", "k1", "k2", "k3", "k4", "k5",
                        "k6", "k7", "k8", "k9", "tail");
                for (KafkoRecord r : read.subList(0, 10)) {
                    assertThat(r.offset()).isEqualTo(latest.get(text(r.key())));
                    assertThat(text(r.value())).isEqualTo("v" + r.offset());
                }
                assertThat(read.get(10).offset()).isEqualTo(end - 1);
            }
            PartitionInfo after = k.topic("state").orElseThrow().partition(0);
            assertThat(after.logStartOffset()).isZero();
            assertThat(after.endOffset()).isEqualTo(end);
            assertThat(after.sizeBytes()).isLessThan(sizeBefore);
            // a second compaction has nothing left to remove
            assertThat(k.topic("state").orElseThrow().compact()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"NONE", "LZ4"})
    void aLongRunOfKeptRecordsIsRewrittenWhole(Compression compression) {
        try (Kafko k = open()) {
            k.createTopic("state", compacted(compression).toBuilder().segmentBytes(1 << 20).build());
            Producer p = k.producer("state");
            p.sendTo(0, bytes("again"), bytes("first")).join();
            for (int i = 0; i < 3_000; i++) {
                p.sendTo(0, bytes("key-" + i), bytes("value-" + i + "-".repeat(i % 50))).join();
            }
            p.sendTo(0, bytes("again"), bytes("second")).join();
            seal(p);
            assertThat(k.topic("state").orElseThrow().compact()).isOne();
            List<KafkoRecord> read = readAll(k, "state", 500);
            assertThat(read).hasSize(3_002);
            for (int i = 0; i < 3_000; i++) {
                assertThat(read.get(i).offset()).isEqualTo(i + 1);
                assertThat(text(read.get(i).value())).isEqualTo("value-" + i + "-".repeat(i % 50));
            }
            assertThat(text(read.get(3_000).value())).isEqualTo("second");
        }
    }

    @Test
    void aReopenReadsTheCompactedSegmentsAndLeavesNoFileBehind() throws IOException {
        Map<String, Long> latest;
        try (Kafko k = open()) {
            k.createTopic("state", compacted(Compression.NONE));
            Producer p = k.producer("state");
            latest = send(p, 0, 200, 7);
            seal(p);
            assertThat(k.topic("state").orElseThrow().compact()).isEqualTo(193);
        }
        try (Stream<Path> files = Files.walk(dir)) {
            assertThat(files.map(f -> f.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
        }
        try (Kafko k = open()) {
            assertThat(k.topic("state").orElseThrow().config().cleanupPolicy()).isEqualTo(CleanupPolicy.COMPACT);
            List<KafkoRecord> read = readAll(k, "state", 2);
            assertThat(read).hasSize(8);
            for (KafkoRecord r : read.subList(0, 7)) {
                assertThat(r.offset()).isEqualTo(latest.get(text(r.key())));
            }
            // appends go on after the compacted segments
            long next = k.producer("state").sendTo(0, bytes("k0"), bytes("again")).join().offset();
            assertThat(next).isEqualTo(201);
        }
    }

    @Test
    void aSeekIntoAGapReadsTheFirstRecordKeptAfterItAndAGroupResumesThere() {
        try (Kafko k = open()) {
            k.createTopic("state", compacted(Compression.NONE));
            Producer p = k.producer("state");
            send(p, 0, 50, 5); // k0..k4 latest at offsets 45..49
            seal(p);
            k.topic("state").orElseThrow().compact();
            try (Consumer c = k.consumer("state")) {
                c.seek(0, 10);
                List<KafkoRecord> first = c.poll(Duration.ofSeconds(5));
                assertThat(first).isNotEmpty();
                assertThat(first.get(0).offset()).isEqualTo(45);
            }
            try (Consumer g = k.groupConsumer("state", "readers")) {
                g.seek(0, 20);
                g.commit(); // a committed position inside a gap
            }
            try (Consumer g = k.groupConsumer("state", "readers")) {
                List<KafkoRecord> resumed = Fixtures.pollUntil(g, 6);
                assertThat(resumed).extracting(KafkoRecord::offset).containsExactly(45L, 46L, 47L, 48L, 49L, 50L);
            }
        }
    }

    @Test
    void aTombstoneRemovesItsKeyAndGoesItselfOnceOlderThanDeleteRetention() {
        try (Kafko k = open()) {
            k.createTopic("state", compacted(Compression.NONE));
            Producer p = k.producer("state");
            p.sendTo(0, bytes("gone"), bytes("a")).join();
            p.sendTo(0, bytes("kept"), bytes("b")).join();
            p.sendTo(0, bytes("gone"), null).join();
            seal(p);
            assertThat(k.topic("state").orElseThrow().compact()).isEqualTo(1);
            assertThat(readAll(k, "state", 500)).extracting(r -> text(r.key()) + "=" + text(r.value()))
                    .containsExactly("kept=b", "gone=null", "tail=t");

            clock.advance(Duration.ofHours(2));
            p.sendTo(0, bytes("tail"), bytes("t2")).join(); // rolls: the first tail is sealed too
            // the tombstone; the first tail stays, since the later one is in the active segment, which is not looked at
            assertThat(k.topic("state").orElseThrow().compact()).isEqualTo(1);
            assertThat(readAll(k, "state", 500)).extracting(r -> text(r.key()) + "=" + text(r.value()))
                    .containsExactly("kept=b", "tail=t", "tail=t2");
        }
    }

    @Test
    void recordsYoungerThanTheMinimumLagAreNotCompacted() {
        try (Kafko k = open()) {
            k.createTopic("state", compacted(Compression.NONE).toBuilder().minCompactionLag(Duration.ofHours(1)).build());
            Producer p = k.producer("state");
            send(p, 0, 20, 2);
            seal(p);
            assertThat(k.topic("state").orElseThrow().compact()).isZero();
            assertThat(readAll(k, "state", 500)).hasSize(21);
            clock.advance(Duration.ofHours(2));
            assertThat(k.topic("state").orElseThrow().compact()).isEqualTo(18);
        }
    }

    @Test
    void aRecordWithoutAKeyIsRefusedByACompactedTopicAndNothingOfItsBatchIsWritten() {
        try (Kafko k = open()) {
            k.createTopic("state", compacted(Compression.NONE));
            Producer p = k.producer("state");
            assertThatThrownBy(() -> p.send(null, bytes("x"))).isInstanceOf(InvalidRecordException.class)
                    .hasMessageContaining("without a key").hasMessageContaining("'state'");
            assertThatThrownBy(() -> p.sendBatch(List.of(OutgoingRecord.of(bytes("a"), bytes("1")),
                    OutgoingRecord.of(null, bytes("2"))))).isInstanceOf(InvalidRecordException.class)
                    .hasMessageContaining("record 1 of the batch");
            assertThat(k.topic("state").orElseThrow().partition(0).endOffset()).isZero();
            // a tombstone has a key: it is taken
            assertThat(p.send(bytes("a"), null).join().offset()).isZero();
        }
    }

    @Test
    void anObserverIsToldWhatEachCompactionRemoved() {
        List<String> told = new java.util.concurrent.CopyOnWriteArrayList<>();
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onCompaction(String topic, int partition, long records, long bytes) {
                told.add(topic + "-" + partition + ": " + records + " records, "
                        + (bytes > 0 ? "bytes freed" : "no bytes freed") + " on " + Thread.currentThread().getName());
            }
        };
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().clock(clock).observer(observer).build())) {
            k.createTopic("state", compacted(Compression.NONE));
            Producer p = k.producer("state");
            send(p, 0, 300, 10);
            seal(p);
            long size = k.topic("state").orElseThrow().partition(0).sizeBytes();
            k.topic("state").orElseThrow().compact();
            assertThat(told).containsExactly("state-0: 290 records, bytes freed on "
                    + Thread.currentThread().getName());
            assertThat(k.topic("state").orElseThrow().partition(0).sizeBytes()).isLessThan(size);
            Topic topic = k.topic("state").orElseThrow();
            topic.compact();
            assertThat(told).hasSize(2);
            assertThat(told.get(1)).as("the segments the first compaction shrank, merged")
                    .isEqualTo("state-0: 0 records, bytes freed on " + Thread.currentThread().getName());
            int segments;
            do {
                segments = topic.partition(0).segmentCount();
                topic.compact();
            } while (topic.partition(0).segmentCount() < segments);
            int n = told.size();
            topic.compact();
            assertThat(told).as("nothing removed or merged, nothing told").hasSize(n);
        }
    }

    @Test
    void aTopicAlteredToCompactKeepsItsKeylessRecordsAndRefusesNewOnes() {
        try (Kafko k = open()) {
            Topic t = k.createTopic("events", TopicConfig.builder().segmentBytes(TopicConfig.MIN_SEGMENT_BYTES)
                    .segmentAge(AGE).build());
            Producer p = k.producer("events");
            p.sendTo(0, null, bytes("keyless")).join();
            p.sendTo(0, bytes("a"), bytes("1")).join();
            p.sendTo(0, bytes("a"), bytes("2")).join();
            t.alterConfig(t.config().toBuilder().compact().build());
            assertThatThrownBy(() -> p.sendTo(0, null, bytes("x"))).isInstanceOf(InvalidRecordException.class);
            seal(p);
            assertThat(t.compact()).isOne();
            assertThat(readAll(k, "events", 500)).extracting(r -> text(r.value()))
                    .containsExactly("keyless", "2", "t");
            t.alterConfig(t.config().toBuilder().cleanupPolicy(CleanupPolicy.DELETE).build());
            assertThat(p.sendTo(0, null, bytes("keyless again")).join().offset()).isEqualTo(4);
        }
    }

    @Test
    void compactIsRefusedForATopicThatIsNotCompacted() {
        try (Kafko k = open()) {
            Topic t = k.createTopic("plain");
            assertThatThrownBy(t::compact).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not compacted").hasMessageContaining("DELETE");
            // keyless records are fine there
            assertThat(k.producer("plain").send(null, bytes("x")).join().offset()).isZero();
        }
    }

    @Test
    void retentionLimitsDoNotApplyToACompactedTopicButDoToCompactDelete() {
        KafkoOptions options = KafkoOptions.builder().clock(clock).retentionCheckInterval(Duration.ofMillis(10))
                .build();
        try (Kafko k = Kafko.open(dir, options)) {
            TopicConfig base = compacted(Compression.NONE).toBuilder().retention(Duration.ofMinutes(5))
                    .minCleanableDirtyRatio(1).build();
            k.createTopic("compact", base);
            k.createTopic("both", base.toBuilder().cleanupPolicy(CleanupPolicy.COMPACT_DELETE).build());
            for (String topic : List.of("compact", "both")) {
                Producer p = k.producer(topic);
                for (int i = 0; i < 30; i++) {
                    p.sendTo(0, bytes("k" + i), new byte[100]).join(); // distinct keys: nothing to compact
                }
                seal(p);
            }
            clock.advance(Duration.ofHours(1));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (k.topic("both").orElseThrow().partition(0).logStartOffset() == 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(k.topic("both").orElseThrow().partition(0).logStartOffset()).isPositive();
            assertThat(k.topic("compact").orElseThrow().partition(0).logStartOffset()).isZero();
        }
    }

    @Test
    void theBackgroundCompactsAPartitionWhoseDirtyShareReachesTheRatio() {
        KafkoOptions options = KafkoOptions.builder().clock(clock).retentionCheckInterval(Duration.ofMillis(10))
                .build();
        try (Kafko k = Kafko.open(dir, options)) {
            k.createTopic("state", compacted(Compression.NONE));
            Producer p = k.producer("state");
            send(p, 0, 100, 4);
            seal(p);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (readAll(k, "state", 500).size() > 5 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(readAll(k, "state", 500)).extracting(r -> text(r.value()))
                    .containsExactly("v96", "v97", "v98", "v99", "t");
        }
        // the background thread ends with the instance
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals("kafko-cleaner")
                && t.isAlive() && !t.getState().equals(Thread.State.TERMINATED));
    }

    @Test
    void sendsAndPollsGoOnWhileThePartitionIsCompacted() throws Exception {
        try (Kafko k = open()) {
            k.createTopic("state", compacted(Compression.LZ4));
            Producer p = k.producer("state");
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Map<String, String> model = new java.util.concurrent.ConcurrentHashMap<>();
            Thread sender = new Thread(() -> {
                try {
                    for (int i = 0; !stop.get(); i++) {
                        String key = "k" + (i % 50);
                        p.sendTo(0, bytes(key), bytes("v" + i)).join();
                        model.put(key, "v" + i);
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            });
            List<Long> seen = new ArrayList<>();
            Thread reader = new Thread(() -> {
                try (Consumer c = k.consumer("state", new ConsumerOptions(7, null, ConsumerRebalanceListener.NOOP))) {
                    while (!stop.get()) {
                        for (KafkoRecord r : c.poll(Duration.ofMillis(20))) {
                            seen.add(r.offset());
                        }
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            });
            sender.start();
            reader.start();
            for (int round = 0; round < 20; round++) {
                clock.advance(AGE.plusSeconds(1)); // the next send rolls
                while (k.topic("state").orElseThrow().partition(0).segmentCount() < 2) {
                    Thread.onSpinWait();
                }
                k.topic("state").orElseThrow().compact();
            }
            stop.set(true);
            sender.join(10_000);
            reader.join(10_000);
            assertThat(failure.get()).isNull();
            assertThat(seen).isSorted().doesNotHaveDuplicates();
            Map<String, String> read = new LinkedHashMap<>();
            for (KafkoRecord r : readAll(k, "state", 500)) {
                read.put(text(r.key()), text(r.value()));
            }
            assertThat(read).isEqualTo(model);
        }
    }
}
