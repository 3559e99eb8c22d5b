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
