package dev.kafko.internal.log;

import static dev.kafko.internal.log.Logs.assertRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.KafkoRecord;
import dev.kafko.KafkoStorageException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FaultyFileIo;
import dev.kafko.internal.io.FileNames;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Retention past the happy path: the roll of the active segment after a clean open drops the clean-shutdown
 * marker, and a deletion that fails leaves the log holding exactly the segments still on disk.
 */
class RetentionEdgesTest {

    private static final int VALUE = 100;
    private static final int RECORDS = 150;

    @TempDir
    Path dir;

    @Test
    void aRetentionThatRollsTheActiveSegmentOfACleanlyOpenedLogDropsTheMarker() {
        MutableClock clock = new MutableClock(80_000_000);
        TopicConfig config = TopicConfig.builder().retention(Duration.ofHours(1)).build();
        try (PartitionLog log = Logs.open(dir, config, clock)) {
            Logs.appendFrames(log, 3, 2, VALUE);
        }
        Path marker = dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE);
        assertThat(Files.exists(marker)).isTrue();
        clock.advance(Duration.ofHours(1).plusMillis(1));
        try (PartitionLog log = Logs.open(dir, config, clock)) {
            assertThat(Files.exists(marker)).as("a clean open keeps it until the first change").isTrue();
            assertThat(log.applyRetention()).isEqualTo(1);
            assertThat(Files.exists(marker)).as("the roll changed the files").isFalse();
            assertThat(log.logStartOffset()).isEqualTo(6);
            assertThat(log.endOffset()).isEqualTo(6);
        }
    }

    /** The n-th delete of a retention that deletes three segments fails (each goes as segment, .index, .timeindex). */
    @ParameterizedTest
    @CsvSource({"1, 0", "3, 1", "4, 1", "5, 2", "7, 2", "8, 3"})
    void aFailedDeletionLeavesTheLogHoldingTheSegmentsStillOnDisk(int failingDelete, int firstKept) {
        TopicConfig config = TopicConfig.builder().segmentBytes(4096).retentionBytes(0).build();
        FaultyFileIo io = new FaultyFileIo().syncs(false);
        long[] bases;
        PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, config, java.time.Clock.systemUTC(), io);
        try {
            Logs.appendFrames(log, RECORDS, 1, VALUE);
            assertThat(log.segmentCount()).isGreaterThan(4);
            Segment[] segs = log.segments();
            bases = new long[segs.length];
            for (int i = 0; i < segs.length; i++) {
                bases[i] = segs[i].baseOffset();
            }
            long end = log.endOffset();
            io.failNthDelete(failingDelete);
            assertThatThrownBy(() -> log.applyRetention(3)).isInstanceOf(KafkoStorageException.class)
                    .hasMessageContaining("injected delete failure");
            assertThat(log.segments()[0].baseOffset()).as("the first segment the log holds")
                    .isEqualTo(bases[firstKept]);
            assertThat(log.segmentCount()).isEqualTo(bases.length - firstKept);
            assertThat(Files.exists(FileNames.segmentFile(dir, bases[firstKept]))).isTrue();
            if (firstKept > 0) {
                assertThat(Files.exists(FileNames.segmentFile(dir, bases[firstKept - 1]))).isFalse();
            }
            assertThat(log.endOffset()).isEqualTo(end);
        } finally {
            closeFailed(log);
        }
        try (PartitionLog reopened = Logs.open(dir, config.toBuilder().retentionBytes(-1).build())) {
            assertThat(reopened.logStartOffset()).as("what a reopen finds").isEqualTo(bases[firstKept]);
            List<KafkoRecord> all = Logs.readAll(reopened);
            assertThat(all).hasSize((int) (RECORDS - bases[firstKept]));
            for (KafkoRecord r : all) {
                assertRecord(r, r.offset(), VALUE);
            }
        }
    }

    /** Closes a log that failed: its close releases the files and may report the failure again. */
    private static void closeFailed(PartitionLog log) {
        try {
            log.close();
        } catch (dev.kafko.KafkoException e) {
            assertThat(e).hasMessageContaining("injected delete failure");
        }
    }
}
