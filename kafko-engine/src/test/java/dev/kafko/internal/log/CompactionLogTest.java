package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compaction at the log level: the frames of a rewritten segment (sized by what they hold, headers included), the old
 * file released, the bounds of the lag and of the tombstones' retention, and a plan whose segments retention deleted.
 */
class CompactionLogTest {

    private static final Duration AGE = Duration.ofMinutes(1);

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(1_700_000_000_000L);

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aRewrittenFrameHoldsAboutFrameBytesOfRecordsCountingTheirHeaders() throws IOException {
        TopicConfig config = TopicConfig.builder().compact().segmentBytes(64L << 20).segmentAge(AGE).build();
        byte[] header = new byte[1024];
        Arrays.fill(header, (byte) 7);
        int kept = 2048; // about 2 MiB of headers, a few KiB of keys and values
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            log.append(OutgoingRecord.of(bytes("gone"), bytes("old")));
            for (int i = 0; i < kept; i += 256) {
                List<OutgoingRecord> batch = new ArrayList<>();
                for (int j = i; j < i + 256; j++) {
                    batch.add(OutgoingRecord.of(bytes("k" + j), bytes("v"), Headers.of("h", header)));
                }
                log.append(batch);
            }
            log.append(OutgoingRecord.of(bytes("gone"), bytes("new")));
            clock.advance(AGE.plusSeconds(1));
            log.append(OutgoingRecord.of(bytes("tail"), bytes("t"))); // rolls: the records above are sealed

            CompactionPlan plan = log.compaction().prepare(config, clock.millis(), true, () -> false);
            assertThat(plan.removedRecords()).isEqualTo(1);
            assertThat(log.applyCompaction(plan, true)).isEqualTo(plan.removedRecords());

            byte[] file = Files.readAllBytes(FileNames.segmentFile(dir, 0));
            int frames = 0;
            for (int pos = FrameFormat.SEGMENT_HEADER_SIZE; pos < file.length; frames++) {
                int recordsLength = FrameFormat.getInt(file, pos + FrameFormat.RECORDS_LENGTH_OFFSET);
                assertThat(recordsLength).as("the records section of the frame at " + pos)
                        .isLessThanOrEqualTo(Compaction.FRAME_BYTES + 2 * header.length);
                pos += FrameFormat.getInt(file, pos + FrameFormat.LENGTH_OFFSET);
            }
            // a gap frame, then the 2 MiB of kept records in frames of about 1 MiB (not one each)
            assertThat(frames).isBetween(3, 5);

            List<KafkoRecord> read = new ArrayList<>();
            for (long o = 0; o < log.endOffset(); ) {
                ReadResult r = log.read(o, 500, 1 << 20);
                read.addAll(r.records());
                o = r.nextOffset();
            }
            assertThat(read).hasSize(kept + 2);
            assertThat(read.get(0).offset()).isEqualTo(1);
            for (int i = 0; i < kept; i++) {
                assertThat(read.get(i).headers().lastValue("h")).isEqualTo(header);
            }
            assertThat(read.get(kept).offset()).isEqualTo(kept + 1);
        }
    }

    @Test
    void aRunOfKeptRecordsLargerThanTheEncodersFirstBufferIsRewritten() {
        TopicConfig config = TopicConfig.builder().compact().segmentBytes(1L << 20).segmentAge(AGE).build();
        byte[] value = new byte[600];
        Arrays.fill(value, (byte) 'x');
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            for (int i = 0; i < 40; i++) {
                log.append(OutgoingRecord.of(bytes("k" + (i % 10)), value)); // the latest of each: offsets 30..39
            }
            clock.advance(AGE.plusSeconds(1));
            log.append(OutgoingRecord.of(bytes("tail"), bytes("t")));

            // the kept records, 6 KB, go in one frame: larger than the 1 KiB an encoder starts with
            CompactionPlan plan = log.compaction().prepare(config, clock.millis(), true, () -> false);
            assertThat(plan.removedRecords()).isEqualTo(30);
            assertThat(log.applyCompaction(plan, true)).isEqualTo(plan.removedRecords());

            ReadResult r = log.read(0, 500, 1 << 20);
            assertThat(r.records()).extracting(KafkoRecord::offset)
                    .containsExactly(30L, 31L, 32L, 33L, 34L, 35L, 36L, 37L, 38L, 39L);
            assertThat(r.records()).allSatisfy(rec -> assertThat(rec.value()).isEqualTo(value));
        }
    }

    /** 40 records of keys k0..k9 at the clock's time (the latest of each at 30..39), then a tail that seals them. */
    private void fill(PartitionLog log) {
        for (int i = 0; i < 40; i++) {
            log.append(OutgoingRecord.of(bytes("k" + (i % 10)), bytes("v" + i)));
        }
        clock.advance(AGE.plusSeconds(1));
        log.append(OutgoingRecord.of(bytes("tail"), bytes("t")));
    }

    @Test
    void theReplacedSegmentsFileIsReleasedAndThePartitionIsNoLongerDue() {
        TopicConfig config = TopicConfig.builder().compact().segmentBytes(1L << 20).segmentAge(AGE).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            fill(log);
            assertThat(log.compaction().due(config, clock.millis())).isTrue();
            Segment old = log.segments()[0];
            CompactionPlan plan = log.compaction().prepare(config, clock.millis(), true, () -> false);
            assertThat(old.file().budgetWindows()).as("mapped by the compaction's reads").isPositive();

            assertThat(log.applyCompaction(plan, true)).isEqualTo(30);
            assertThat(log.segments()[0]).isNotSameAs(old);
            assertThat(old.file().budgetWindows()).as("the old file released").isZero();
            assertThat(log.compaction().due(config, clock.millis())).as("nothing dirty left").isFalse();
        }
    }

    @Test
    void aSegmentExactlyAsOldAsTheLagIsCompactedAndOneAMillisecondYoungerIsNot() {
        Duration lag = Duration.ofHours(1);
        TopicConfig config = TopicConfig.builder().compact().segmentBytes(1L << 20).segmentAge(AGE)
                .minCompactionLag(lag).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            long newest = clock.millis(); // every record of the first segment is written at this time
            fill(log);
            long due = newest + lag.toMillis();
            assertThat(log.compaction().prepare(config, due - 1, true, () -> false).isEmpty()).isTrue();
            CompactionPlan plan = log.compaction().prepare(config, due, true, () -> false);
            assertThat(plan.removedRecords()).isEqualTo(30);
            plan.discard(FileIo.SYSTEM);
        }
    }

    @Test
    void aTombstoneExactlyAsOldAsDeleteRetentionIsKeptAndOneAMillisecondOlderIsRemoved() {
        Duration retention = Duration.ofHours(1);
        TopicConfig config = TopicConfig.builder().compact().segmentBytes(1L << 20).segmentAge(AGE)
                .deleteRetention(retention).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            long written = clock.millis();
            log.append(OutgoingRecord.of(bytes("k"), null)); // a tombstone, the only record of its key
            clock.advance(AGE.plusSeconds(1));
            log.append(OutgoingRecord.of(bytes("tail"), bytes("t")));
            long limit = written + retention.toMillis();
            assertThat(log.compaction().prepare(config, limit, true, () -> false).isEmpty()).isTrue();
            CompactionPlan plan = log.compaction().prepare(config, limit + 1, true, () -> false);
            assertThat(plan.removedRecords()).isEqualTo(1);
            plan.discard(FileIo.SYSTEM);
        }
    }

    @Test
    void aPlanWhoseSegmentRetentionDeletedMeanwhilePutsNothingInPlaceAndLeavesNoFile() throws IOException {
        Duration retention = Duration.ofHours(1);
        TopicConfig config = TopicConfig.builder().cleanupPolicy(dev.kafko.CleanupPolicy.COMPACT_DELETE)
                .segmentBytes(1L << 20).segmentAge(AGE).retention(retention).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            fill(log);
            CompactionPlan plan = log.compaction().prepare(config, clock.millis(), true, () -> false);
            assertThat(plan.removedRecords()).isEqualTo(30);
            clock.advance(retention.plusMinutes(1));
            assertThat(log.applyRetention()).isPositive();
            assertThat(log.logStartOffset()).isPositive();

            assertThat(log.applyCompaction(plan, true)).isZero();
            try (Stream<Path> files = Files.list(dir)) {
                assertThat(files.map(f -> f.getFileName().toString())).noneMatch(n -> n.endsWith(FileNames.TMP_SUFFIX));
            }
        }
    }

    @Test
    void aRunOfKeptRecordsBeforeARemovedOneIsWrittenBeforeItsGap() {
        TopicConfig config = TopicConfig.builder().compact().segmentBytes(1L << 20).segmentAge(AGE).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            for (String key : new String[] {"a", "b", "c", "b"}) {
                log.append(OutgoingRecord.of(bytes(key), bytes(key)));
            }
            clock.advance(AGE.plusSeconds(1));
            log.append(OutgoingRecord.of(bytes("tail"), bytes("t")));
            assertThat(log.applyCompaction(log.compaction().prepare(config, clock.millis(), true, () -> false), true))
                    .isEqualTo(1);
            assertThat(log.read(0, 100, 1 << 20).records()).extracting(KafkoRecord::offset).containsExactly(0L, 2L, 3L);
        }
    }

    @Test
    void theActiveSegmentIsNeverCleanableHoweverOldItsRecords() {
        TopicConfig config = TopicConfig.builder().compact().segmentBytes(1L << 20).segmentAge(AGE).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            fill(log);
            log.append(OutgoingRecord.of(bytes("tail"), bytes("again"))); // the active segment's older "tail" goes
            CompactionPlan plan = log.compaction().prepare(config, clock.millis() + Duration.ofDays(1).toMillis(), true,
                    () -> false);
            Segment[] segs = log.segments();
            assertThat(plan.cleanableEnd()).isEqualTo(segs[segs.length - 1].baseOffset());
            assertThat(plan.removedRecords()).isEqualTo(30);
            plan.discard(FileIo.SYSTEM);
        }
    }

    @Test
    void aFailedRenameOfAnUnmappedSegmentLeavesItReadable() {
        MappingBudget.setLimit(0); // nothing mapped: the old segment is read with positional reads only
        try {
            TopicConfig config = TopicConfig.builder().compact().segmentBytes(1L << 20).segmentAge(AGE).build();
            dev.kafko.internal.io.FaultyFileIo io = new dev.kafko.internal.io.FaultyFileIo();
            try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, io)) {
                fill(log);
                log.flush(); // the rolled segment's seal (index files written by a rename) done
                CompactionPlan plan = log.compaction().prepare(config, clock.millis(), true, () -> false);
                io.failNthMove(1); // the next: the new file's rename over the old one
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> log.applyCompaction(plan, true))
                        .isInstanceOf(dev.kafko.KafkoStorageException.class);
                assertThat(log.failure()).isNull();
                assertThat(log.read(0, 100, 1 << 20).records()).hasSize(40);
            }
        } finally {
            MappingBudget.setLimit(-1);
        }
    }

    /** The descriptors the process holds open on files under {@link #dir}, by their link's text. */
    private List<String> openFiles() throws IOException {
        String prefix = dir.toRealPath() + "/";
        List<String> out = new ArrayList<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith(prefix)) {
                        out.add(target.substring(prefix.length()));
                    }
                } catch (IOException e) {
                    // closed meanwhile (the listing's own descriptor)
                }
            }
        }
        return out;
    }

    @Test
    void noDescriptorIsLeftOnTheOldFileOrTheNewFileAsItWasWritten() throws IOException {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")), "Linux /proc");
        TopicConfig config = TopicConfig.builder().compact().segmentBytes(1L << 20).segmentAge(AGE).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            fill(log);
            CompactionPlan plan = log.compaction().prepare(config, clock.millis(), true, () -> false);
            assertThat(openFiles()).as("the new file checked and closed").noneMatch(n -> n.endsWith(".tmp"));
            assertThat(log.applyCompaction(plan, true)).isEqualTo(30);
            String first = FileNames.segmentFile(dir, 0).getFileName().toString();
            // at most the one the new segment keeps for its reads; none on the old file (deleted by the rename)
            assertThat(openFiles()).filteredOn(n -> n.startsWith(first)).hasSizeLessThanOrEqualTo(1)
                    .noneMatch(n -> n.endsWith("(deleted)"));
        }
    }
}
