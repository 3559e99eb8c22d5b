package dev.kafko.internal.log;

import static dev.kafko.internal.log.Logs.assertRecord;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Stray segment files named inside the offsets of the segment before them, after a crash: none is taken for a roll
 * the crash cut short, so the active segment, which holds flushed records, stays, whatever else is wrong with the
 * segment the strays are named inside.
 */
class SegmentLayoutRepairsReviewTest {

    private static final int VALUE = 100;
    private static final TopicConfig CONFIG = TopicConfig.builder().segmentBytes(1024).build();

    @TempDir
    Path dir;

    /**
     * The sealed segment's header is damaged, but its frames still run past the stray's base: the stray is no rolled
     * segment, and the active segment stays.
     */
    @Test
    void aShortStrayFileNamedInsideASealedSegmentWithADamagedHeaderAfterACrashDeletesNoSegment() throws IOException {
        long second = SegmentLayoutRepairsEdgesTest.fillTwoSegments(dir);
        long end = endAfterACrash(second);
        assertThat(Files.exists(FileNames.indexFile(dir, 0))).as("the sealed segment's, written at its seal").isTrue();
        try (FileChannel ch = FileChannel.open(FileNames.segmentFile(dir, 0), StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {0x7F}), FrameFormat.SEGMENT_MAGIC_OFFSET);
        }
        SegmentLayoutRepairsEdgesTest.writeShortStray(dir, 1);
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = Logs.open(dir, CONFIG)) {
            assertThat(warnings.lines()).noneSatisfy(w -> assertThat(w).contains("cut short"));
            assertThat(warnings.lines()).anySatisfy(w -> assertThat(w).contains("a bad segment header"));
            assertThat(log.segmentCount()).isEqualTo(3);
            assertActiveSegmentKept(log, second, end);
        }
    }

    /** Several strays inside one sealed segment are passed over together. */
    @Test
    void severalShortStrayFilesNamedInsideASealedSegmentAfterACrashDeleteNoSegment() throws IOException {
        long second = SegmentLayoutRepairsEdgesTest.fillTwoSegments(dir);
        long end = endAfterACrash(second);
        SegmentLayoutRepairsEdgesTest.writeShortStray(dir, 1);
        SegmentLayoutRepairsEdgesTest.writeShortStray(dir, 2);
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = Logs.open(dir, CONFIG)) {
            assertThat(warnings.lines()).noneSatisfy(w -> assertThat(w).contains("cut short"));
            assertThat(log.segmentCount()).isEqualTo(4);
            assertActiveSegmentKept(log, second, end);
        }
    }

    /**
     * A seal the crash cut short, whose segment's frames all reached the disk, with a stray inside it: no roll lost a
     * tail, so nothing is deleted (the stray is no segment that ends short either).
     */
    @Test
    void aStrayFileNamedInsideAWholeSegmentWhoseSealACrashCutShortDeletesNoSegment() throws IOException {
        long second = SegmentLayoutRepairsEdgesTest.fillTwoSegments(dir);
        long end = endAfterACrash(second);
        IndexFiles.delete(FileIo.SYSTEM, dir, 0);
        SegmentLayoutRepairsEdgesTest.writeShortStray(dir, 1);
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = Logs.open(dir, CONFIG)) {
            assertThat(warnings.lines()).noneSatisfy(w -> assertThat(w).contains("cut short"));
            assertThat(log.segmentCount()).isEqualTo(3);
            assertActiveSegmentKept(log, second, end);
        }
    }

    /**
     * A power loss after a directory fsync (a retention's, a compaction's) that found a rolled segment whose seal had
     * not run and which was never fsynced: the disk kept its name but none of its bytes (an empty file), or, on a file
     * system that allocates late, its size but zeros. Its header was never written, so it is no damaged segment but a
     * roll the crash cut short, the whole of its tail lost: every later segment goes (none held anything flushed: a
     * flush waits for its seal), and it is the active segment again, started afresh at its base, every offset of the
     * log readable.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, FrameFormat.SEGMENT_HEADER_SIZE, 4096})
    void aRolledSegmentAPowerLossLeftWithoutItsHeaderIsARollCutShortNotADamagedSegment(int zeros) throws IOException {
        long second = SegmentLayoutRepairsEdgesTest.fillTwoSegments(dir);
        long third;
        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            while (log.segmentCount() < 3) {
                Logs.appendFrames(log, 1, 1, VALUE);
            }
            Logs.appendFrames(log, 1, 1, VALUE);
            third = log.segments()[2].baseOffset();
        }
        // the crash: the second segment's seal never ran (no index files) and the disk holds nothing of it; the
        // active segment's records, never flushed, reached the disk
        IndexFiles.delete(FileIo.SYSTEM, dir, second);
        IndexFiles.delete(FileIo.SYSTEM, dir, third);
        Files.delete(dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE));
        Files.write(FileNames.segmentFile(dir, second), new byte[zeros]);
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = Logs.open(dir, CONFIG)) {
            assertThat(warnings.lines()).anySatisfy(w -> assertThat(w).contains("a roll was cut short"));
            assertThat(log.segmentCount()).isEqualTo(2);
            assertThat(Files.exists(FileNames.segmentFile(dir, third))).isFalse();
            assertThat(log.endOffset()).isEqualTo(second);
            List<KafkoRecord> all = Logs.readAll(log);
            assertThat(all).hasSize((int) second);
            assertThat(log.append(Logs.batch(second, 1, VALUE))).isEqualTo(second);
        }
        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            assertThat(log.endOffset()).isEqualTo(second + 1);
            for (KafkoRecord r : Logs.readAll(log)) {
                assertRecord(r, r.offset(), VALUE);
            }
        }
    }

    /** The active segment, every record of it read back, and the log's end where the crash left it. */
    private void assertActiveSegmentKept(PartitionLog log, long second, long end) {
        assertThat(Files.exists(FileNames.segmentFile(dir, second))).isTrue();
        assertThat(log.segments()[log.segmentCount() - 1].baseOffset()).isEqualTo(second);
        assertThat(log.endOffset()).isEqualTo(end);
        List<KafkoRecord> active = Logs.readAll(log, second, 1000, 1 << 20);
        assertThat(active).hasSize((int) (end - second));
        for (KafkoRecord r : active) {
            assertRecord(r, r.offset(), VALUE);
        }
    }

    /**
     * The log's end after a clean open and close, then the crash's traces: the active segment without index files
     * and no clean-shutdown marker.
     */
    private long endAfterACrash(long second) throws IOException {
        long end;
        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            end = log.endOffset();
        }
        assertThat(end).isGreaterThan(second);
        IndexFiles.delete(FileIo.SYSTEM, dir, second);
        Files.delete(dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE));
        return end;
    }
}
