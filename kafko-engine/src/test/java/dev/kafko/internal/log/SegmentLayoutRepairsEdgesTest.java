package dev.kafko.internal.log;

import static dev.kafko.internal.log.Logs.assertRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.CorruptLogException;
import dev.kafko.KafkoRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The layout an open repairs at its smallest: a roll cut short by a crash in a log of exactly two segments, and
 * the empty active segment a crash right after a roll leaves, which is no stray file.
 */
class SegmentLayoutRepairsEdgesTest {

    private static final int VALUE = 100;
    private static final TopicConfig CONFIG = TopicConfig.builder().segmentBytes(1024).build();

    @TempDir
    Path dir;

    @Test
    void aRollCutShortInALogOfTwoSegmentsMakesTheFirstTheActiveSegmentAgain() throws IOException {
        long second = fillTwoSegments();
        // the crash: the first segment's seal never ran (no index files), its unsynced last frame is torn, and the
        // active segment has no index files (only a clean close writes them)
        IndexFiles.delete(FileIo.SYSTEM, dir, 0);
        IndexFiles.delete(FileIo.SYSTEM, dir, second);
        Files.delete(dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE));
        Path first = FileNames.segmentFile(dir, 0);
        try (FileChannel ch = FileChannel.open(first, StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() - 1);
        }
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = Logs.open(dir, CONFIG)) {
            assertThat(warnings.lines()).anySatisfy(w -> assertThat(w).contains("a roll was cut short"));
            assertThat(log.segmentCount()).isEqualTo(1);
            assertThat(log.endOffset()).as("the first segment's complete frames").isEqualTo(second - 1);
            assertThat(Files.exists(FileNames.segmentFile(dir, second))).isFalse();
            assertThat(log.append(Logs.batch(second - 1, 1, VALUE))).isEqualTo(second - 1);
        }
        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            List<KafkoRecord> all = Logs.readAll(log);
            assertThat(all).hasSize((int) second);
            for (KafkoRecord r : all) {
                assertRecord(r, r.offset(), VALUE);
            }
        }
    }

    @Test
    void anEmptyActiveSegmentLeftByACrashRightAfterARollIsKept() throws IOException {
        long second = fillTwoSegments();
        long end;
        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            end = log.endOffset();
        }
        // the crash: the roll created the next segment (its header only), and nothing was appended to it
        Files.delete(dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE));
        Files.write(FileNames.segmentFile(dir, end), SegmentFiles.header(end));
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = Logs.open(dir, CONFIG)) {
            assertThat(warnings.lines()).noneSatisfy(w -> assertThat(w).contains("stray"));
            assertThat(log.segmentCount()).isEqualTo(3);
            assertThat(log.segments()[2].baseOffset()).isEqualTo(end);
            assertThat(log.endOffset()).isEqualTo(end);
            assertThat(Files.exists(FileNames.segmentFile(dir, end))).isTrue();
            assertThat(Logs.readAll(log, second, 1000, 1 << 20)).hasSize((int) (end - second));
        }
    }

    /** The oldest of the last {@link Seals#MAX_PENDING} segments before the active one is a seal a crash can cut short. */
    @Test
    void aRollCutShortAtTheOldestPendingSealDeletesEverySegmentAfterIt() throws IOException {
        long[] bases;
        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            Logs.appendFrames(log, 80, 1, VALUE);
            bases = Arrays.stream(log.segments()).mapToLong(Segment::baseOffset).toArray();
        }
        int last = bases.length - 1;
        int cutShort = last - Seals.MAX_PENDING;
        assertThat(cutShort).isPositive();
        for (int i = cutShort; i <= last; i++) {
            IndexFiles.delete(FileIo.SYSTEM, dir, bases[i]);
        }
        Files.delete(dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE));
        try (FileChannel ch = FileChannel.open(FileNames.segmentFile(dir, bases[cutShort]), StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() - 1);
        }
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = Logs.open(dir, CONFIG)) {
            assertThat(warnings.lines()).anySatisfy(w -> assertThat(w).contains("a roll was cut short"));
            assertThat(log.segmentCount()).isEqualTo(cutShort + 1);
            assertThat(log.endOffset()).isEqualTo(bases[cutShort + 1] - 1);
            for (int i = cutShort + 1; i <= last; i++) {
                assertThat(Files.exists(FileNames.segmentFile(dir, bases[i]))).isFalse();
            }
            assertThat(Logs.readAll(log)).hasSize((int) (bases[cutShort + 1] - 1));
        }
    }

    /** Past its first 64 KiB, too: a stray file with one byte that is not zero holds something, and stays. */
    @Test
    void aStrayFileWithAByteBeyondItsFirst64KiBIsNotTakenForEmpty() throws IOException {
        long second = fillTwoSegments();
        byte[] stray = new byte[FrameFormat.SEGMENT_HEADER_SIZE + 70_000];
        System.arraycopy(SegmentFiles.header(1), 0, stray, 0, FrameFormat.SEGMENT_HEADER_SIZE);
        stray[stray.length - 1] = 1;
        Path strayFile = FileNames.segmentFile(dir, 1);
        Files.write(strayFile, stray);
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = Logs.open(dir, CONFIG)) {
            assertThat(warnings.lines()).noneSatisfy(w -> assertThat(w).contains("stray"));
            assertThat(Files.exists(strayFile)).isTrue();
            assertThat(log.segmentCount()).isEqualTo(3);
            assertThat(log.segments()[1].baseOffset()).isEqualTo(1);
            assertThat(Logs.readAll(log, second, 1000, 1 << 20)).isNotEmpty();
        }
    }

    /**
     * The active segment's index files are a clean close's, and a roll deletes them before the next segment exists:
     * a short segment file without index files before it (a stray copy, a damaged file) is no roll a crash cut short,
     * and the active segment, which holds flushed records, stays.
     */
    @Test
    void aShortSegmentWithoutIndexFilesBeforeAnActiveSegmentWithIndexFilesDeletesNoSegment() throws IOException {
        long second = fillTwoSegments();
        long end;
        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            end = log.endOffset();
        }
        assertThat(Files.exists(FileNames.indexFile(dir, second))).as("written at the clean close").isTrue();
        writeShortStray(1);
        assertOpensWithTheActiveSegmentKept(second, end);
    }

    /**
     * After a crash the active segment has no index files, so the layout alone does not tell a stray file from a
     * segment whose seal was cut short: one named inside the offsets of the sealed segment before it is a stray, and
     * the active segment, which holds flushed records, stays.
     */
    @Test
    void aShortStrayFileNamedInsideASealedSegmentAfterACrashDeletesNoSegment() throws IOException {
        long second = fillTwoSegments();
        long end;
        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            end = log.endOffset();
        }
        IndexFiles.delete(FileIo.SYSTEM, dir, second);
        Files.delete(dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE));
        writeShortStray(1);
        assertOpensWithTheActiveSegmentKept(second, end);
    }

    /** A stray file named inside a segment whose seal a crash cut short hides no part of that roll. */
    @Test
    void aRollCutShortIsFoundPastAStrayFileNamedInsideTheCutSegment() throws IOException {
        long second = fillTwoSegments();
        IndexFiles.delete(FileIo.SYSTEM, dir, 0);
        IndexFiles.delete(FileIo.SYSTEM, dir, second);
        Files.delete(dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE));
        try (FileChannel ch = FileChannel.open(FileNames.segmentFile(dir, 0), StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() - 1);
        }
        writeShortStray(1);
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = Logs.open(dir, CONFIG)) {
            assertThat(warnings.lines()).anySatisfy(w -> assertThat(w).contains("a roll was cut short")
                    .contains(FileNames.segmentFile(dir, 0).getFileName().toString()));
            assertThat(log.segmentCount()).isEqualTo(1);
            assertThat(log.endOffset()).isEqualTo(second - 1);
            assertThat(Files.exists(FileNames.segmentFile(dir, second))).isFalse();
            assertThat(Files.exists(FileNames.segmentFile(dir, 1))).isFalse();
            assertThat(Logs.readAll(log)).hasSize((int) second - 1);
            assertThat(log.append(Logs.batch(second - 1, 1, VALUE))).isEqualTo(second - 1);
        }
    }

    /**
     * A stray file that holds bytes, named inside the frames of the segment written last: opened as the active
     * segment, it would move the end back below acknowledged records, and new appends would take their offsets again.
     * The open refuses, naming it, after a clean close and after a crash alike; once it is removed, every record
     * is there.
     */
    @ParameterizedTest(name = "after a crash: {0}")
    @ValueSource(booleans = {false, true})
    void aStrayFileThatHoldsBytesNamedInsideTheLastSegmentFailsTheOpen(boolean crash) throws IOException {
        long second = fillTwoSegments();
        long end;
        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            end = log.endOffset();
        }
        assertThat(end - second).as("records in the segment written last").isGreaterThan(1);
        if (crash) {
            IndexFiles.delete(FileIo.SYSTEM, dir, second);
            Files.delete(dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE));
        }
        writeShortStray(end - 1);
        Path stray = FileNames.segmentFile(dir, end - 1);
        assertThatThrownBy(() -> Logs.open(dir, CONFIG).close())
                .isInstanceOf(CorruptLogException.class)
                .hasMessageContaining(stray.toString())
                .hasMessageContaining("frames run to offset " + end);
        assertThat(stray).exists();
        assertThat(FileNames.segmentFile(dir, second)).exists();
        Files.delete(stray);
        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            assertThat(log.endOffset()).isEqualTo(end);
            List<KafkoRecord> all = Logs.readAll(log);
            assertThat(all).hasSize((int) end);
            for (KafkoRecord r : all) {
                assertRecord(r, r.offset(), VALUE);
            }
        }
    }

    /** Opens the log: the stray at offset 1 kept, no roll found cut short, every record of the active segment read. */
    private void assertOpensWithTheActiveSegmentKept(long second, long end) throws IOException {
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = Logs.open(dir, CONFIG)) {
            assertThat(warnings.lines()).noneSatisfy(w -> assertThat(w).contains("cut short"));
            assertThat(Files.exists(FileNames.segmentFile(dir, second))).isTrue();
            assertThat(log.segmentCount()).isEqualTo(3);
            assertThat(log.endOffset()).isEqualTo(end);
            List<KafkoRecord> active = Logs.readAll(log, second, 1000, 1 << 20);
            assertThat(active).hasSize((int) (end - second));
            for (KafkoRecord r : active) {
                assertRecord(r, r.offset(), VALUE);
            }
        }
    }

    /** A segment file at {@code base} with a valid header and a few bytes that are no frame: a torn copy. */
    private void writeShortStray(long base) throws IOException {
        writeShortStray(dir, base);
    }

    /** {@link #writeShortStray(long)} in {@code dir}. */
    static void writeShortStray(Path dir, long base) throws IOException {
        byte[] stray = new byte[FrameFormat.SEGMENT_HEADER_SIZE + 100];
        System.arraycopy(SegmentFiles.header(base), 0, stray, 0, FrameFormat.SEGMENT_HEADER_SIZE);
        Arrays.fill(stray, FrameFormat.SEGMENT_HEADER_SIZE, stray.length, (byte) 0x55);
        Files.write(FileNames.segmentFile(dir, base), stray);
    }

    /** One-record frames until the log holds exactly two segments, closed cleanly; the second one's base. */
    private long fillTwoSegments() {
        return fillTwoSegments(dir);
    }

    /** {@link #fillTwoSegments()} in {@code dir}. */
    static long fillTwoSegments(Path dir) {
        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            while (log.segmentCount() < 2) {
                Logs.appendFrames(log, 1, 1, VALUE);
            }
            Logs.appendFrames(log, 1, 1, VALUE);
            assertThat(log.segmentCount()).isEqualTo(2);
            return log.segments()[1].baseOffset();
        }
    }
}
