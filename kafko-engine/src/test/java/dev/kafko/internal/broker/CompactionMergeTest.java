package dev.kafko.internal.broker;

import static dev.kafko.internal.broker.CompactionFaultTest.offsets;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Consumer;
import dev.kafko.CorruptLogException;
import dev.kafko.Kafko;
import dev.kafko.KafkoException;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.PartitionInfo;
import dev.kafko.PartitionState;
import dev.kafko.Producer;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FaultyFileIo;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.log.MutableClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Neighbouring segments that compaction shrank are merged by the next compaction into one of at most a segment's
 * bytes, at the first one's base offset, with every offset where it was; a merge cut short at any of its steps loses
 * no record, and an open finishes a merge whose new file was already put under its swap name.
 */
class CompactionMergeTest {

    private static final Duration AGE = Duration.ofMinutes(1);
    private static final Duration LAG = Duration.ofHours(1);
    private static final List<Long> COMPACTED = List.of(95L, 96L, 97L, 98L, 99L, 100L);

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(1_700_000_000_000L);
    private final FaultyFileIo io = new FaultyFileIo();

    private Kafko open(FileIo fileIo) {
        return BrokerBridge.open(dir, KafkoOptions.builder().clock(clock).build(), fileIo);
    }

    private Path partition() {
        return FileNames.partitionDir(dir.resolve("state"), 0);
    }

    /**
     * 100 records of keys k0..k4 (latest at 95..99) in segments of 1 KiB, a tail record that seals them, and a first
     * compaction that leaves most of those segments a gap frame each; by an instance closed before the test opens its
     * own, so that no background work of its takes a fault the test injects. Returns the segment count it left.
     */
    private int fillAndCompact() {
        try (Kafko k = open(FileIo.SYSTEM)) {
            Topic topic = k.createTopic("state", TopicConfig.builder().compact()
                    .segmentBytes(TopicConfig.MIN_SEGMENT_BYTES).segmentAge(AGE).minCompactionLag(LAG).build());
            Producer p = k.producer("state");
            for (int i = 0; i < 100; i++) {
                p.sendTo(0, bytes("k" + (i % 5)), bytes("v" + i)).join();
            }
            clock.advance(AGE.plusSeconds(1));
            p.sendTo(0, bytes("tail"), bytes("t")).join();
            clock.advance(LAG.plusMinutes(1));
            int before = topic.partition(0).segmentCount();
            assertThat(topic.compact()).isEqualTo(95);
            int after = topic.partition(0).segmentCount();
            assertThat(after).as("a compaction of segments a segment's size each merges none").isEqualTo(before);
            assertThat(before).isEqualTo(7); // six sealed, and the active one
            return after;
        }
    }

    @Test
    void segmentsACompactionShrankAreMergedByTheNextWithEveryOffsetWhereItWas() throws IOException {
        int segments = fillAndCompact();
        try (Kafko k = open(FileIo.SYSTEM)) {
            Topic topic = k.topic("state").orElseThrow();
            long size = topic.partition(0).sizeBytes();
            assertThat(topic.compact()).as("nothing more to remove").isZero();
            PartitionInfo merged = topic.partition(0);
            // the sealed segments, each a gap frame or a few records now, fit one segment: one, and the active one
            assertThat(merged.segmentCount()).isEqualTo(2).isLessThan(segments);
            assertThat(merged.sizeBytes()).isLessThan(size);
            assertThat(merged.logStartOffset()).isZero();
            assertThat(offsets(k)).isEqualTo(COMPACTED);
            try (Consumer c = k.consumer("state")) {
                c.seek(0, 97); // looked up in the merged segment's index
                assertThat(poll(c)).startsWith(97L);
                c.seek(0, 3); // inside the gaps: the next record kept
                assertThat(poll(c)).startsWith(95L);
            }
            assertThat(fileNames()).contains(name(0, ".log"), name(0, ".index"))
                    .noneMatch(n -> n.endsWith(FileNames.SWAP_SUFFIX) || n.endsWith(FileNames.TMP_SUFFIX));
            assertThat(topic.compact()).isZero();
            assertThat(topic.partition(0).segmentCount()).as("merged already").isEqualTo(2);
        }
        try (Kafko k = open(FileIo.SYSTEM)) {
            assertThat(k.topic("state").orElseThrow().partition(0).segmentCount()).isEqualTo(2);
            assertThat(offsets(k)).isEqualTo(COMPACTED);
        }
    }

    @Test
    void anObserverHearsOfAMergeThatRemovedNoRecord() {
        fillAndCompact();
        List<long[]> heard = new ArrayList<>();
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onCompaction(String topic, int partition, long records, long bytes) {
                heard.add(new long[] {records, bytes});
            }
        };
        try (Kafko k = BrokerBridge.open(dir, KafkoOptions.builder().clock(clock).observer(observer).build(),
                FileIo.SYSTEM)) {
            Topic topic = k.topic("state").orElseThrow();
            long size = topic.partition(0).sizeBytes();
            assertThat(topic.compact()).isZero();
            assertThat(heard).hasSize(1);
            assertThat(heard.get(0)[0]).as("records removed").isZero();
            assertThat(heard.get(0)[1]).as("bytes freed").isEqualTo(size - topic.partition(0).sizeBytes()).isPositive();
            assertThat(topic.compact()).isZero();
            assertThat(heard).as("a compaction that changed nothing is not reported").hasSize(1);
        }
    }

    @Test
    void segmentsWhoseBytesExceedASegmentsTogetherAreNotMerged() {
        try (Kafko k = open(FileIo.SYSTEM)) {
            Topic topic = k.createTopic("state", TopicConfig.builder().compact()
                    .segmentBytes(TopicConfig.MIN_SEGMENT_BYTES).segmentAge(AGE).build());
            Producer p = k.producer("state");
            byte[] value = new byte[300];
            for (int i = 0; i < 12; i++) {
                p.sendTo(0, bytes("k" + i), value).join(); // distinct keys: nothing to remove
            }
            clock.advance(AGE.plusSeconds(1));
            p.sendTo(0, bytes("tail"), bytes("t")).join();
            int segments = topic.partition(0).segmentCount();
            // three records of about 340 bytes fill a segment of 1 KiB: no two neighbours fit one
            assertThat(segments).isGreaterThan(3);
            assertThat(topic.compact()).isZero();
            assertThat(topic.partition(0).segmentCount()).isEqualTo(segments);
        }
    }

    /**
     * The merge's renames: the new file to its swap name, the swap file over the first old file, then the index
     * files of the merged segment.
     */
    @ParameterizedTest(name = "rename {0} fails")
    @ValueSource(ints = {1, 2, 3})
    void aFailedRenameDuringAMergeLosesNoRecord(int n) throws IOException {
        fillAndCompact();
        try (Kafko k = open(io)) {
            io.failNthMove(n);
            assertThatThrownBy(() -> k.topic("state").orElseThrow().compact()).isInstanceOf(KafkoException.class);
            PartitionState state = k.topic("state").orElseThrow().partition(0).state();
            if (n == 1) {
                // before any old file was touched: the partition goes on with its segments as they were
                assertThat(state).isEqualTo(PartitionState.RUNNING);
                assertThat(offsets(k)).isEqualTo(COMPACTED);
                assertThat(fileNames()).noneMatch(f -> f.endsWith(FileNames.SWAP_SUFFIX));
            } else {
                assertThat(state).isEqualTo(PartitionState.FAILED);
            }
        }
        assertReopensWhole();
    }

    /** The merge's deletions: the index files of the six old segments, then the five old files after the first. */
    @ParameterizedTest(name = "deletion {0} fails")
    @ValueSource(ints = {1, 6, 12, 13, 17})
    void aFailedDeletionDuringAMergeFailsThePartitionAndAReopenFinishesTheMerge(int n) throws IOException {
        fillAndCompact();
        try (Kafko k = open(io)) {
            io.failNthDelete(n);
            assertThatThrownBy(() -> k.topic("state").orElseThrow().compact()).isInstanceOf(KafkoException.class);
            assertThat(k.topic("state").orElseThrow().partition(0).state()).isEqualTo(PartitionState.FAILED);
            assertThat(fileNames()).as("the merged file, complete, under its swap name")
                    .contains(name(0, ".log" + FileNames.SWAP_SUFFIX));
        }
        assertReopensWhole();
    }

    @Test
    void aSwapFileThatDoesNotReadBackWholeFailsTheOpenNamingIt() throws IOException {
        fillAndCompact();
        try (Kafko k = open(io)) {
            io.failNthDelete(3);
            assertThatThrownBy(() -> k.topic("state").orElseThrow().compact()).isInstanceOf(KafkoException.class);
        }
        Path swap = FileNames.swapFile(partition(), 0);
        byte[] b = Files.readAllBytes(swap);
        b[b.length - 1] ^= 0x01; // the last frame's last byte: only its CRC tells
        Files.write(swap, b);
        assertThatThrownBy(() -> open(FileIo.SYSTEM).close()).isInstanceOf(CorruptLogException.class)
                .hasMessageContaining(swap.getFileName().toString());
    }

    /** A reopen finishes or forgets the merge, holds every latest record where it was, and merges at its compaction. */
    private void assertReopensWhole() throws IOException {
        try (Kafko k = open(FileIo.SYSTEM)) {
            Topic topic = k.topic("state").orElseThrow();
            assertThat(topic.partition(0).state()).isEqualTo(PartitionState.RUNNING);
            assertThat(offsets(k)).isEqualTo(COMPACTED);
            assertThat(fileNames()).noneMatch(f -> f.endsWith(FileNames.SWAP_SUFFIX) || f.endsWith(FileNames.TMP_SUFFIX));
            topic.compact();
            assertThat(topic.partition(0).segmentCount()).isEqualTo(2);
            assertThat(offsets(k)).isEqualTo(COMPACTED);
        }
    }

    private static List<Long> poll(Consumer c) {
        List<Long> out = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (out.isEmpty() && System.nanoTime() < deadline) {
            for (KafkoRecord r : c.poll(Duration.ofMillis(50))) {
                out.add(r.offset());
            }
        }
        return out;
    }

    private List<String> fileNames() throws IOException {
        try (Stream<Path> files = Files.list(partition())) {
            return files.map(f -> f.getFileName().toString()).toList();
        }
    }

    private static String name(long base, String suffix) {
        return FileNames.offsetName(base) + suffix;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
