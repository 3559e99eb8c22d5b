package dev.kafko.internal.log;

import static dev.kafko.internal.log.Logs.assertRecord;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A clean open takes the active segment's end from its index files only when the frames after the
 * last index entry, walked header by header, end where the index says; otherwise it CRC-scans the
 * segment, so no record is hidden and no offset handed out twice.
 */
class CleanOpenIndexCheckTest {

    private static final int VALUE = 30;
    private static final int RECORDS = 80;
    private static final TopicConfig CONFIG = TopicConfig.builder().indexIntervalBytes(256).build();

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(longs = {79, 81, 0, Long.MAX_VALUE})
    void aCleanOpenScansWhenTheIndexRecordsAnotherNextOffsetAndLosesNoAcknowledgedRecord(long lie)
            throws IOException {
        fill();
        IndexFiles.Snapshot snap = IndexFiles.load(FileIo.SYSTEM, dir, 0);
        assertThat(snap).isNotNull();
        IndexFiles.write(FileIo.SYSTEM, dir, 0, snap.index(), lie, snap.segmentSize(), snap.maxTimestamp(), false);

        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = Logs.open(dir, CONFIG)) {
            assertThat(log.endOffset()).isEqualTo(RECORDS);
            assertRecord(log.read(RECORDS - 1, 1, 1 << 20).records().get(0), RECORDS - 1, VALUE);
            assertThat(log.append(List.of(Logs.record(RECORDS, VALUE)))).as("the next offset").isEqualTo(RECORDS);
            assertThat(warnings.lines()).singleElement().satisfies(w -> assertThat(w)
                    .contains(FileNames.segmentFile(dir, 0).toString()).contains("disagree")
                    .contains("the index says " + lie));
        }
        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            List<KafkoRecord> all = Logs.readAll(log);
            assertThat(all).hasSize(RECORDS + 1);
            for (int i = 0; i <= RECORDS; i++) {
                assertRecord(all.get(i), i, VALUE);
            }
        }
    }

    @Test
    void aCleanOpenScansWhenTheIndexUnderstatesTheNewestTimestamp() throws IOException {
        fill();
        IndexFiles.Snapshot snap = IndexFiles.load(FileIo.SYSTEM, dir, 0);
        // retention goes by this number once the segment is sealed: too low, it would delete fresh records
        IndexFiles.write(FileIo.SYSTEM, dir, 0, snap.index(), snap.nextOffset(), snap.segmentSize(), 0L, false);
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = Logs.open(dir, CONFIG)) {
            assertThat(log.endOffset()).isEqualTo(RECORDS);
            assertThat(warnings.lines()).singleElement().satisfies(w -> assertThat(w).contains("timestamp"));
            assertThat(Files.exists(dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE))).as("no longer true").isFalse();
        }
    }

    @Test
    void aHealthyCleanOpenTrustsTheIndexWithoutACrcScan() throws IOException {
        fill();
        // damage a record's value (not a frame header) in the first and in the last frame: a CRC scan
        // would cut the log at the first one, the header walk does not see either
        Path seg = FileNames.segmentFile(dir, 0);
        byte[] bytes = Files.readAllBytes(seg);
        bytes[FrameFormat.SEGMENT_HEADER_SIZE + FrameFormat.HEADER_SIZE + 20] ^= 0x10;
        bytes[bytes.length - 3] ^= 0x10;
        Files.write(seg, bytes);
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = Logs.open(dir, CONFIG)) {
            assertThat(log.endOffset()).isEqualTo(RECORDS);
            assertThat(warnings.lines()).isEmpty();
            assertThat(Files.exists(dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE))).as("the marker still vouches")
                    .isTrue();
        }
    }

    private void fill() {
        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            Logs.appendFrames(log, RECORDS / 2, 2, VALUE);
            assertThat(log.segmentCount()).isEqualTo(1);
        }
        assertThat(IndexFiles.load(FileIo.SYSTEM, dir, 0).index().count()).as("index entries").isGreaterThan(3);
    }
}
