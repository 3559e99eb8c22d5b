package dev.kafko.internal.log;

import static dev.kafko.internal.log.Logs.assertRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.KafkoRecord;
import dev.kafko.OffsetOutOfRangeException;
import dev.kafko.TopicConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sealed segments are mapped lazily and within the process-wide {@link MappingBudget}; past it they are
 * read with positional reads, and their windows go back when they are released.
 */
class MappingBudgetTest {

    /** One 1,100-byte record a segment: each frame fills a segment of 1 KiB on its own. */
    private static final int VALUE = 1100;
    private static final TopicConfig TINY_SEGMENTS = TopicConfig.builder().segmentBytes(1024).build();

    @TempDir
    Path dir;

    @AfterEach
    void restoreTheLimit() {
        MappingBudget.setLimit(-1);
    }

    /** Writes {@code sealed} sealed segments (and an active one holding one record), closes, copies to a fresh path. */
    private Path sealedSegments(int sealed, TopicConfig config) throws IOException {
        Path written = dir.resolve("written");
        try (PartitionLog log = Logs.openWithoutSyncs(written, config)) {
            Logs.appendFrames(log, sealed + 1, 1, VALUE);
            assertThat(log.segmentCount()).isEqualTo(sealed + 1);
        }
        // a fresh path: the closed log's mappings of the written files last until they are collected
        Path copy = dir.resolve("copy");
        Logs.copyDir(written, copy);
        return copy;
    }

    @Test
    void openingAPartitionMapsNoneOfItsSealedSegmentsAndReadsMapThem() throws IOException {
        ProcMaps.assumeReadable();
        Path copy = sealedSegments(50, TINY_SEGMENTS);
        int before = ProcMaps.settledBudget();
        try (PartitionLog log = Logs.openWithoutSyncs(copy, TINY_SEGMENTS)) {
            Segment[] segs = log.segments();
            assertThat(segs).hasSize(51);
            assertThat(ProcMaps.mappedSegments(copy)).as("only the active segment is mapped")
                    .containsExactly(segs[50].path().getFileName().toString());
            for (int i = 0; i < 50; i++) {
                assertThat(segs[i].file().isMapped()).as("segment %d", i).isFalse();
                assertThat(segs[i].file().budgetWindows()).isZero();
            }
            assertThat(MappingBudget.used() - before).as("the active segment's window only").isEqualTo(1);

            List<KafkoRecord> all = Logs.readAll(log);
            assertThat(all).hasSize(51);
            for (KafkoRecord r : all) {
                assertRecord(r, r.offset(), VALUE);
            }
            // with room in the budget, every segment read is mapped, once
            assertThat(ProcMaps.mappedSegments(copy)).hasSize(51);
            assertThat(MappingBudget.used() - before).isEqualTo(51);
        }
    }

    @Test
    void retentionReturnsTheWindowsOfTheSegmentsItDeletes() {
        TopicConfig config = TopicConfig.builder().segmentBytes(1024).retentionBytes(3000).build();
        int before = ProcMaps.settledBudget();
        try (PartitionLog log = Logs.openWithoutSyncs(dir, config)) {
            Logs.appendFrames(log, 21, 1, VALUE);
            Segment[] all = log.segments();
            assertThat(all).hasSize(21);
            // sealed while the budget had room: each keeps the window its writer mapped
            assertThat(MappingBudget.used() - before).isEqualTo(21);
            int deleted = log.applyRetention();
            assertThat(deleted).isGreaterThanOrEqualTo(18);
            for (int i = 0; i < deleted; i++) {
                assertThat(all[i].file().budgetWindows()).as("deleted segment %d", i).isZero();
            }
            assertThat(MappingBudget.used() - before).as("returned at once, no collection needed")
                    .isEqualTo(21 - deleted);
        }
    }

    @Test
    void aReaderOfAnUnmappedSegmentThatRetentionDeletedGetsOffsetOutOfRange() throws IOException {
        TopicConfig config = TopicConfig.builder().segmentBytes(1024).retentionBytes(3000).build();
        Path copy = sealedSegments(10, config);
        try (PartitionLog log = Logs.openWithoutSyncs(copy, config)) {
            // no room: every read of a sealed segment is a positional read
            MappingBudget.setLimit(0);
            Segment[] held = log.segments();
            ArrayList<KafkoRecord> out = new ArrayList<>();
            assertThat(held[0].read(0, 10, 1 << 20, Logs.TOPIC, 0, out, null)).isEqualTo(1);
            assertRecord(out.get(0), 0, VALUE);
            assertThat(held[0].file().isMapped()).isFalse();
            assertThat(log.applyRetention()).isPositive();
            // a reader that still holds the old segments: the file is gone, as the offset is
            assertThatThrownBy(() -> held[0].read(0, 10, 1 << 20, Logs.TOPIC, 0, new ArrayList<>(), null))
                    .isInstanceOf(OffsetOutOfRangeException.class).hasMessageContaining(held[0].path().toString());
            // the record read before the deletion is a copy: it reads on
            assertRecord(out.get(0), 0, VALUE);
        }
    }

    /**
     * Two readers take every sealed segment at the same moment, while the budget has room for a few of
     * them only and the unmapped ones outnumber the channels kept open: each segment is mapped once at
     * most, the windows counted are those mapped, and every record reads back whole.
     */
    @Test
    void twoReadersOfTheSameUnmappedSegmentsMapEachOnceAndReadEveryRecordWhole() throws Exception {
        ProcMaps.assumeReadable();
        int sealed = UnmappedReads.MAX_OPEN * 2;
        int room = 40;
        Path copy = sealedSegments(sealed, TINY_SEGMENTS);
        int before = ProcMaps.settledBudget();
        try (PartitionLog log = Logs.openWithoutSyncs(copy, TINY_SEGMENTS)) {
            // the active segment's window counts: room for that many sealed ones besides
            MappingBudget.setLimit(before + 1 + room);
            CyclicBarrier together = new CyclicBarrier(2);
            List<CompletableFuture<Void>> readers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                readers.add(CompletableFuture.runAsync(() -> {
                    for (int round = 0; round < 3; round++) {
                        for (long offset = 0; offset < log.endOffset(); offset++) {
                            await(together);
                            ReadResult r = log.read(offset, 1, 1 << 20);
                            assertThat(r.records()).hasSize(1);
                            assertRecord(r.records().get(0), offset, VALUE);
                        }
                    }
                }, r -> new Thread(r, "test-reader").start()));
            }
            CompletableFuture.allOf(readers.toArray(new CompletableFuture<?>[0])).get();

            int mapped = 0;
            int counted = 0;
            for (Segment s : log.segments()) {
                SegmentFile f = s.file();
                assertThat(f.budgetWindows()).as("%s", s.path()).isEqualTo(f.isMapped() ? 1 : 0);
                mapped += f.isMapped() ? 1 : 0;
                counted += f.budgetWindows();
            }
            assertThat(mapped).as("the active segment and as many sealed ones as the budget holds").isEqualTo(room + 1);
            assertThat(counted).isEqualTo(room + 1);
            assertThat(MappingBudget.used() - before).as("no window counted twice").isEqualTo(room + 1);
            assertThat(ProcMaps.mappedSegments(copy)).hasSize(room + 1);
            assertThat(UnmappedReads.openChannels()).isLessThanOrEqualTo(UnmappedReads.MAX_OPEN);
        }
    }

    @Test
    void theLimitIsHalfOfTheKernelsMaxMapCountAndThePropertyMayOnlyLowerIt() throws IOException {
        Path maxMapCount = Path.of("/proc/sys/vm/max_map_count");
        int kernel = MappingBudget.DEFAULT_MAX_MAP_COUNT;
        if (Files.isReadable(maxMapCount)) {
            try (BufferedReader r = Files.newBufferedReader(maxMapCount)) {
                kernel = Integer.parseInt(r.readLine().trim());
            }
        }
        assertThat(MappingBudget.ceiling()).isEqualTo(kernel / 2);
        assertThat(MappingBudget.configuredLimit(null)).isEqualTo(kernel / 2);
        assertThat(MappingBudget.configuredLimit(" 100 ")).isEqualTo(Math.min(100, kernel / 2));
        assertThat(MappingBudget.configuredLimit("0")).isZero();
        assertThat(MappingBudget.configuredLimit(String.valueOf(kernel))).as("never above half").isEqualTo(kernel / 2);
        assertThat(MappingBudget.configuredLimit("many")).isEqualTo(kernel / 2);
        assertThat(MappingBudget.configuredLimit("-5")).isEqualTo(kernel / 2);
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
