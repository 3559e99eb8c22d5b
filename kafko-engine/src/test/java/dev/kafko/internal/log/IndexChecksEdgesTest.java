package dev.kafko.internal.log;

import static dev.kafko.internal.log.Logs.assertRecord;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FaultyFileIo;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Index files that pass their own checks (a valid CRC) but lie about the segment are not trusted: an entry of the
 * active segment between its ends, the first entry of a sealed segment, and a recorded size that takes in a torn
 * frame header or a torn last frame. The open CRC-scans instead, and the next append follows the last complete frame.
 */
class IndexChecksEdgesTest {

    private static final int VALUE = 30;
    private static final TopicConfig DENSE = TopicConfig.builder().segmentBytes(1024).indexIntervalBytes(100).build();

    @TempDir
    Path dir;

    /** 5 bytes: too few for a frame header; {@link FrameFormat#HEADER_SIZE}: a header, but not a frame's. */
    @ParameterizedTest
    @ValueSource(ints = {5, FrameFormat.HEADER_SIZE})
    void aCleanOpenWhoseIndexFilesCountATornHeaderIntoTheSizeCutsItAndAppendsAfterTheLastFrame(int torn)
            throws IOException {
        TopicConfig config = TopicConfig.DEFAULTS;
        int validEnd;
        try (PartitionLog log = Logs.open(dir, config)) {
            Logs.appendFrames(log, 5, 2, VALUE);
            validEnd = log.segments()[0].size();
        }
        byte[] garbage = new byte[torn];
        Arrays.fill(garbage, (byte) 0x7f);
        Files.write(FileNames.segmentFile(dir, 0), garbage, StandardOpenOption.APPEND);
        forgeSize(0, validEnd + torn);
        Path marker = dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE);
        assertThat(Files.exists(marker)).isTrue();
        String expected = torn < FrameFormat.HEADER_SIZE ? "a torn frame header at position " + validEnd
                : "no valid frame of offset 10 at position " + validEnd;
        FaultyFileIo io = new FaultyFileIo();
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, config, Clock.systemUTC(), io)) {
            assertThat(warnings.lines()).anySatisfy(w -> assertThat(w).contains("disagree").contains(expected));
            assertThat(log.segments()[0].size()).as("cut at the last complete frame").isEqualTo(validEnd);
            assertThat(log.endOffset()).isEqualTo(10);
            assertThat(Files.exists(marker)).as("it no longer describes the files").isFalse();
            assertThat(io.directorySyncs()).as("the marker's deletion made durable").isEqualTo(1);
            Logs.appendFrames(log, 1, 2, VALUE);
        }
        assertAllRecords(12);
    }

    @Test
    void aCleanOpenWhoseIndexFilesCountATornLastFrameIntoTheSizeCutsTheFrame() throws IOException {
        TopicConfig config = TopicConfig.DEFAULTS;
        int lastFrameStart;
        try (PartitionLog log = Logs.open(dir, config)) {
            Logs.appendFrames(log, 4, 2, VALUE);
            lastFrameStart = log.segments()[0].size();
            Logs.appendFrames(log, 1, 2, VALUE);
            assertThat(log.segments()[0].index().count()).as("one entry, before the last frame").isEqualTo(1);
        }
        Path seg = FileNames.segmentFile(dir, 0);
        int cut;
        try (FileChannel ch = FileChannel.open(seg, StandardOpenOption.WRITE)) {
            cut = (int) ch.size() - 3;
            ch.truncate(cut);
        }
        forgeSize(0, cut); // the next offset still says 10
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = Logs.open(dir, config)) {
            assertThat(warnings.lines()).anySatisfy(w -> assertThat(w).contains("disagree")
                    .contains("no valid frame of offset 8 at position " + lastFrameStart));
            assertThat(log.endOffset()).as("the torn frame's records are gone").isEqualTo(8);
            assertThat(log.segments()[0].size()).isEqualTo(lastFrameStart);
            Logs.appendFrames(log, 1, 2, VALUE);
        }
        assertAllRecords(10);
    }

    @Test
    void aCleanOpenWhoseActiveIndexHasAnEntryBetweenItsEndsAtNoFrameRebuildsTheIndex() throws IOException {
        OffsetIndex good;
        try (PartitionLog log = Logs.open(dir, DENSE)) {
            Logs.appendFrames(log, 8, 1, VALUE);
            assertThat(log.segmentCount()).isEqualTo(1);
            good = copy(log.segments()[0].index());
        }
        assertThat(good.count()).isGreaterThanOrEqualTo(3);
        forgeEntry(0, good, 1);
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = Logs.open(dir, DENSE)) {
            assertThat(warnings.lines()).anySatisfy(w -> assertThat(w).contains("an entry points at no frame"));
            assertThat(Files.exists(dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE))).isFalse();
            assertThat(log.segments()[0].index().position(1)).as("rebuilt by the scan").isEqualTo(good.position(1));
            assertThat(log.endOffset()).isEqualTo(8);
        }
        assertAllRecords(8);
    }

    @Test
    void aSealedSegmentWhoseFirstIndexEntryPointsAtNoFrameHasItsIndexRebuilt() throws IOException {
        OffsetIndex good;
        try (PartitionLog log = Logs.open(dir, DENSE)) {
            while (log.segmentCount() < 2) {
                Logs.appendFrames(log, 1, 1, VALUE);
            }
            good = copy(log.segments()[0].index());
        }
        assertThat(good.count()).isGreaterThanOrEqualTo(2);
        forgeEntry(0, good, 0);
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = Logs.open(dir, DENSE)) {
            assertThat(warnings.lines()).anySatisfy(w -> assertThat(w).contains("rebuilt the index of")
                    .contains(FileNames.segmentFile(dir, 0).toString()));
            assertThat(log.segments()[0].index().position(0)).isEqualTo(good.position(0));
        }
        IndexFiles.Snapshot rewritten = IndexFiles.load(FileIo.SYSTEM, dir, 0);
        assertThat(rewritten).isNotNull();
        assertThat(rewritten.index().position(0)).as("the rebuilt index written back").isEqualTo(good.position(0));
    }

    /** Rewrites the index files of the segment at {@code base} (valid CRC) with entry {@code i} one byte past its frame. */
    private void forgeEntry(long base, OffsetIndex good, int i) {
        IndexFiles.Snapshot snap = IndexFiles.load(FileIo.SYSTEM, dir, base);
        assertThat(snap).isNotNull();
        OffsetIndex forged = new OffsetIndex();
        for (int e = 0; e < good.count(); e++) {
            forged.add(good.relativeOffset(e), good.position(e) + (e == i ? 1 : 0), good.maxTimestampBefore(e));
        }
        IndexFiles.write(FileIo.SYSTEM, dir, base, forged, snap.nextOffset(), snap.segmentSize(), snap.maxTimestamp(),
                false);
    }

    /** Rewrites the index files of the segment at {@code base} (valid CRC) with another segment size. */
    private void forgeSize(long base, int size) {
        IndexFiles.Snapshot snap = IndexFiles.load(FileIo.SYSTEM, dir, base);
        assertThat(snap).isNotNull();
        IndexFiles.write(FileIo.SYSTEM, dir, base, snap.index(), snap.nextOffset(), size, snap.maxTimestamp(), false);
    }

    private void assertAllRecords(int count) {
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            List<KafkoRecord> all = Logs.readAll(log);
            assertThat(all).hasSize(count);
            for (KafkoRecord r : all) {
                assertRecord(r, r.offset(), VALUE);
            }
        }
    }

    private static OffsetIndex copy(OffsetIndex index) {
        OffsetIndex c = new OffsetIndex();
        for (int i = 0; i < index.count(); i++) {
            c.add(index.relativeOffset(i), index.position(i), index.maxTimestampBefore(i));
        }
        return c;
    }
}
