package dev.kafko.internal.log;

import static dev.kafko.internal.log.Logs.assertRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.KafkoRecord;
import dev.kafko.KafkoStorageException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FaultyFileIo;
import dev.kafko.internal.io.FileNames;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A log opened without {@code forceSeals} (a directory that does not outlive its use, records never
 * forced): a roll writes the rolled segment's index files and no fsync; flush and close force every
 * such segment, and the log reads back whole.
 */
class UnforcedSealTest {

    private static final TopicConfig SMALL = TopicConfig.builder().segmentBytes(64 * 1024).indexIntervalBytes(4096)
            .build();
    private static final int VALUE = 200;

    @TempDir
    Path dir;

    private static PartitionLog open(Path d, FaultyFileIo io, boolean forceSeals) {
        return PartitionLog.open(Logs.TOPIC, 0, d, SMALL, Clock.systemUTC(), io, null, forceSeals);
    }

    /** Fsyncs of files, not of directories. */
    private static long fileForces(FaultyFileIo io) {
        return io.forces() - io.directorySyncs();
    }

    /** Appends single-record frames until the log has {@code segments} segments; returns the records appended. */
    private static long appendUntilSegments(PartitionLog log, int segments) {
        while (log.segmentCount() < segments) {
            Logs.appendFrames(log, 1, 1, VALUE);
        }
        return log.endOffset();
    }

    private static void assertReadsBack(Path d, long records) {
        try (PartitionLog log = Logs.open(d, SMALL)) {
            List<KafkoRecord> all = Logs.readAll(log);
            assertThat(all).hasSize((int) records);
            for (int i = 0; i < all.size(); i++) {
                assertRecord(all.get(i), i, VALUE);
            }
        }
    }

    @Test
    void aRollWritesTheIndexFilesWithoutAnyFsyncAndCloseForcesEverySegment() {
        Path d = dir.resolve("close");
        FaultyFileIo io = new FaultyFileIo();
        long records;
        try (PartitionLog log = open(d, io, false)) {
            long before = fileForces(io);
            records = appendUntilSegments(log, 4);
            assertThat(fileForces(io)).as("fsyncs during three rolls").isEqualTo(before);
            Segment[] segments = log.segments();
            for (int i = 0; i < 3; i++) {
                assertThat(FileNames.indexFile(d, segments[i].baseOffset())).exists();
                assertThat(FileNames.timeIndexFile(d, segments[i].baseOffset())).exists();
            }
            long atClose = fileForces(io);
            log.close();
            assertThat(fileForces(io) - atClose).as("three rolled segments and the active one").isGreaterThanOrEqualTo(4);
        }
        assertReadsBack(d, records);
    }

    @Test
    void aForcedLogFsyncsAtEveryRoll() {
        FaultyFileIo io = new FaultyFileIo();
        try (PartitionLog log = open(dir.resolve("forced"), io, true)) {
            long before = fileForces(io);
            appendUntilSegments(log, 4);
            assertThat(fileForces(io) - before).as("one fsync per roll at least").isGreaterThanOrEqualTo(3);
        }
    }

    @Test
    void flushForcesTheUnforcedSegmentsOnceAndTheActiveOne() {
        Path d = dir.resolve("flush");
        FaultyFileIo io = new FaultyFileIo();
        long records;
        try (PartitionLog log = open(d, io, false)) {
            records = appendUntilSegments(log, 3);
            long before = fileForces(io);
            log.flush();
            assertThat(fileForces(io) - before).as("two rolled segments and the active one").isEqualTo(3);
            Logs.appendFrames(log, 1, 1, VALUE);
            records++;
            before = fileForces(io);
            log.flush();
            assertThat(fileForces(io) - before).as("only the active segment again").isEqualTo(1);
        }
        assertReadsBack(d, records);
    }

    @Test
    void retentionDeletesUnforcedSegmentsAndCloseForcesOnlyThoseLeft() {
        Path d = dir.resolve("retention");
        FaultyFileIo io = new FaultyFileIo();
        TopicConfig bounded = SMALL.toBuilder().retentionBytes(100 * 1024).build();
        long end;
        long start;
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, d, bounded, Clock.systemUTC(), io, null, false)) {
            end = appendUntilSegments(log, 5);
            assertThat(log.applyRetention()).isGreaterThan(0);
            start = log.logStartOffset();
            // close would fail naming a missing file if it tried to force a deleted segment
        }
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, d, bounded, Clock.systemUTC(), io)) {
            assertThat(log.logStartOffset()).isEqualTo(start);
            assertThat(log.endOffset()).isEqualTo(end);
            List<KafkoRecord> all = Logs.readAll(log, start, Integer.MAX_VALUE, Integer.MAX_VALUE);
            assertThat(all).hasSize((int) (end - start));
            assertRecord(all.get(0), start, VALUE);
        }
    }

    @Test
    void aFailedForceAtCloseIsReportedAndLosesNothingTheProcessWrote() {
        Path d = dir.resolve("failed");
        FaultyFileIo io = new FaultyFileIo();
        PartitionLog log = open(d, io, false);
        long records = appendUntilSegments(log, 3);
        io.failNthForce(1);
        assertThatThrownBy(log::close).isInstanceOf(KafkoStorageException.class).hasMessageContaining("fsync");
        assertThat(log.failure()).isNotNull();
        // a failed close leaves no clean-shutdown marker: the reopen scans, and the page cache has every byte
        assertReadsBack(d, records);
    }
}
