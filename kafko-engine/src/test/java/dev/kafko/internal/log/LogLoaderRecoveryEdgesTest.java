package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an open hands on besides the records: the clean-shutdown marker a clean open keeps (and the first write
 * drops), an active segment torn while being created (recovered without a warning), and the newest timestamp of a
 * sealed segment with a damaged header, which retention by age goes by.
 */
class LogLoaderRecoveryEdgesTest {

    private static final int VALUE = 100;

    @TempDir
    Path dir;

    @Test
    void theFirstAppendAfterACleanOpenDropsTheMarker() {
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            Logs.appendFrames(log, 2, 1, VALUE);
        }
        Path marker = dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE);
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            assertThat(Files.exists(marker)).as("a clean open changes nothing").isTrue();
            Logs.appendFrames(log, 1, 1, VALUE);
            assertThat(Files.exists(marker)).as("no longer true once the segment changes").isFalse();
        }
    }

    @Test
    void anActiveSegmentTornWhileBeingCreatedIsRecoveredWithoutAWarning() throws IOException {
        Files.createDirectories(dir);
        Files.write(FileNames.segmentFile(dir, 0), new byte[FrameFormat.SEGMENT_HEADER_SIZE + 4096]);
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            assertThat(warnings.lines()).isEmpty();
            assertThat(log.endOffset()).isZero();
            Logs.appendFrames(log, 1, 1, VALUE);
        }
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            assertThat(Logs.readAll(log)).hasSize(1);
        }
    }

    @Test
    void aSealedSegmentWithADamagedHeaderIsDeletedByAgeOnlyOnceItsRecordsAreOld() throws IOException {
        MutableClock clock = new MutableClock(50_000_000);
        TopicConfig config = TopicConfig.builder().segmentBytes(1024).retention(Duration.ofHours(1)).build();
        try (PartitionLog log = Logs.open(dir, config, clock)) {
            while (log.segmentCount() < 2) {
                Logs.appendFrames(log, 1, 1, VALUE);
            }
        }
        Path first = FileNames.segmentFile(dir, 0);
        byte[] bytes = Files.readAllBytes(first);
        bytes[0] ^= 0x01; // its magic
        Files.write(first, bytes);
        try (PartitionLog log = Logs.open(dir, config, clock)) {
            assertThat(log.applyRetention()).as("its records are young").isZero();
            clock.advance(Duration.ofHours(1).plusMillis(1));
            assertThat(log.applyRetention()).as("older than the retention").isPositive();
            assertThat(Files.exists(first)).isFalse();
        }
    }
}
