package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Records a disk or a hand took from a closed log are reported on open, naming the file and the lost
 * offsets: the active segment's index files (written at a clean close, after it was fsynced) say
 * how far its data reached, and an index file of a segment newer than every segment left says that
 * segment existed. Stray overlapping segments are reported with a range that reads forwards.
 */
class LostTailWarningTest {

    private static final int VALUE = 30;
    private static final Pattern RANGE = Pattern.compile("offsets (\\d+) to (\\d+)");

    @TempDir
    Path dir;

    /** Cuts of the active segment: negative values are "the end of that many frames"; -1000 zeros from 16. */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 8, 15, 16, -1, -35, -1000})
    void anActiveSegmentCutBelowWhatItsCleanCloseRecordedIsReported(int cut) throws IOException {
        for (boolean marker : new boolean[] {true, false}) {
            Path d = dir.resolve("marker-" + marker);
            List<long[]> frames = fill(d, TopicConfig.DEFAULTS); // {end position, end offset}
            Path seg = FileNames.segmentFile(d, 0);
            byte[] bytes = Files.readAllBytes(seg);
            long expectedEnd = 0;
            if (cut == -1000) {
                Arrays.fill(bytes, FrameFormat.SEGMENT_HEADER_SIZE, bytes.length, (byte) 0);
            } else if (cut < 0) {
                bytes = Arrays.copyOf(bytes, (int) frames.get(-cut - 1)[0]);
                expectedEnd = frames.get(-cut - 1)[1];
            } else {
                bytes = Arrays.copyOf(bytes, cut);
            }
            Files.write(seg, bytes);
            if (!marker) {
                Files.delete(d.resolve(FileNames.CLEAN_SHUTDOWN_FILE));
            }
            String lost = "offsets " + expectedEnd + " to 79 are lost";
            try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                    PartitionLog log = Logs.open(d, TopicConfig.DEFAULTS)) {
                assertThat(log.endOffset()).isEqualTo(expectedEnd);
                assertThat(warnings.lines()).as("marker %s", marker).anySatisfy(w -> assertThat(w)
                        .contains(seg.toString()).contains("lost records").contains(lost));
            }
        }
    }

    @Test
    void aLossIsReportedOnceEvenWhenTheNextOpenIsACrashRecoveryToo() throws IOException {
        List<long[]> frames = fill(dir, TopicConfig.DEFAULTS);
        Path seg = FileNames.segmentFile(dir, 0);
        Files.write(seg, Arrays.copyOf(Files.readAllBytes(seg), (int) frames.get(9)[0]));
        Path crashed = dir.resolve("crashed");
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            assertThat(log.endOffset()).isEqualTo(20);
            Logs.appendFrames(log, 3, 2, VALUE);
            Logs.copyDir(dir, crashed);
        }
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = Logs.open(crashed, TopicConfig.DEFAULTS)) {
            assertThat(log.endOffset()).isEqualTo(26);
            assertThat(warnings.lines()).noneSatisfy(w -> assertThat(w).contains("lost"));
        }
    }

    @Test
    void aHealthyCrashRecoveryReportsNoLoss() throws IOException {
        fill(dir, TopicConfig.DEFAULTS);
        Path crashed = dir.resolve("crashed");
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            Logs.appendFrames(log, 5, 2, VALUE);
            Logs.copyDir(dir, crashed);
        }
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = Logs.open(crashed, TopicConfig.DEFAULTS)) {
            assertThat(log.endOffset()).isEqualTo(90);
            assertThat(warnings.lines()).isEmpty();
        }
    }

    @Test
    void aDeletedActiveSegmentIsReportedByTheIndexFilesItLeft() throws IOException {
        TopicConfig config = TopicConfig.builder().segmentBytes(1024).build();
        fill(dir, config);
        long last;
        try (PartitionLog log = Logs.open(dir, config)) {
            last = log.segments()[log.segmentCount() - 1].baseOffset();
        }
        Path seg = FileNames.segmentFile(dir, last);
        Files.delete(seg);
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = Logs.open(dir, config)) {
            assertThat(log.endOffset()).isEqualTo(last);
            assertThat(warnings.lines()).anySatisfy(w -> assertThat(w).contains(seg.toString())
                    .contains("is missing").contains("offsets " + last + " to 79 are lost"));
        }
    }

    @Test
    void aStraySegmentInsideAnotherOnesOffsetsIsReportedWithAForwardRange() throws IOException {
        TopicConfig config = TopicConfig.builder().segmentBytes(1024).build();
        fill(dir, config);
        long second;
        try (PartitionLog log = Logs.open(dir, config)) {
            second = log.segments()[1].baseOffset();
        }
        assertThat(second).isGreaterThan(6);
        Files.copy(FileNames.segmentFile(dir, 0), FileNames.segmentFile(dir, 5));
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = Logs.open(dir, config)) {
            assertThat(log.endOffset()).isEqualTo(80);
            assertThat(warnings.lines()).anySatisfy(w -> assertThat(w).contains(FileNames.segmentFile(dir, 0).toString())
                    .contains("overlaps").contains("offsets 5 to " + (second - 1)));
            for (String w : warnings.lines()) {
                Matcher m = RANGE.matcher(w);
                while (m.find()) {
                    assertThat(Long.parseLong(m.group(1))).as(w).isLessThanOrEqualTo(Long.parseLong(m.group(2)));
                }
            }
        }
    }

    @Test
    void aStraySegmentInsideASegmentWithoutAnIndexDeletesNoLaterSegment() throws IOException {
        TopicConfig config = TopicConfig.builder().segmentBytes(1024).build();
        fill(dir, config);
        long unsealed;
        long active;
        int count;
        try (PartitionLog log = Logs.open(dir, config)) {
            count = log.segmentCount();
            unsealed = log.segments()[count - 2].baseOffset();
            active = log.segments()[count - 1].baseOffset();
        }
        assertThat(active - unsealed).isGreaterThan(2);
        // the segment before the active one looks like a seal a crash cut short, and a stray file is named inside it
        IndexFiles.delete(FileIo.SYSTEM, dir, unsealed);
        Files.copy(FileNames.segmentFile(dir, unsealed), FileNames.segmentFile(dir, unsealed + 1));
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = Logs.open(dir, config)) {
            assertThat(log.endOffset()).as("the active segment's records, after the overlapped one's").isEqualTo(80);
            assertThat(log.segmentCount()).isEqualTo(count + 1);
            assertThat(Files.exists(FileNames.segmentFile(dir, active))).isTrue();
            assertThat(Logs.readAll(log, active, 1000, 1 << 20)).hasSize((int) (80 - active));
            assertThat(warnings.lines()).noneSatisfy(w -> assertThat(w).contains("cut short"));
        }
    }

    /**
     * Only the last {@link Seals#MAX_PENDING} segments before the active one can be seals a crash cut short: a damaged
     * segment before them, without an index file, is damage, and the flushed segments after it are kept.
     */
    @Test
    void aShortSegmentBeforeThePendingSealWindowDeletesNoLaterSegment() throws IOException {
        TopicConfig config = TopicConfig.builder().segmentBytes(1024).build();
        long[] bases;
        try (PartitionLog log = Logs.open(dir, config)) {
            Logs.appendFrames(log, 80, 1, 100);
            bases = Arrays.stream(log.segments()).mapToLong(Segment::baseOffset).toArray();
        }
        int last = bases.length - 1;
        int damaged = last - Seals.MAX_PENDING - 1;
        assertThat(damaged).isPositive();
        for (int i = damaged; i < last; i++) {
            IndexFiles.delete(FileIo.SYSTEM, dir, bases[i]);
        }
        Path file = FileNames.segmentFile(dir, bases[damaged]);
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
                java.nio.file.StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() - 1); // its last frame torn
        }
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = Logs.open(dir, config)) {
            assertThat(log.segmentCount()).isEqualTo(bases.length);
            assertThat(log.endOffset()).isEqualTo(80);
            assertThat(Logs.readAll(log, bases[damaged + 1], 1000, 1 << 20)).hasSize((int) (80 - bases[damaged + 1]));
            assertThat(warnings.lines()).noneSatisfy(w -> assertThat(w).contains("cut short"));
        }
    }

    /** 40 frames of 2 records (80), closed cleanly; returns each frame's {end position, end offset}. */
    private static List<long[]> fill(Path d, TopicConfig config) {
        List<long[]> frames = new ArrayList<>();
        try (PartitionLog log = Logs.open(d, config)) {
            for (int f = 0; f < 40; f++) {
                Logs.appendFrames(log, 1, 2, VALUE);
                Segment active = log.segments()[log.segmentCount() - 1];
                frames.add(new long[] {active.size(), log.endOffset()});
            }
        }
        return frames;
    }
}
