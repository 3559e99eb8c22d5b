package dev.kafko.internal.log;

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

/**
 * A sealed segment whose index files are missing after a crash had its seal cut short (the seal writes them after the
 * segment's fsync): its index is built from its frames with an INFO line, as a crash under load often leaves one. A
 * missing index after a clean close, or index files that disagree with their segment, still warn.
 */
class SealCutShortIndexTest {

    private static final int VALUE = 30;
    private static final TopicConfig DENSE = TopicConfig.builder().segmentBytes(1024).indexIntervalBytes(100).build();

    @TempDir
    Path dir;

    private int records;

    @Test
    void missingIndexFilesAfterACrashAreBuiltWithAnInfoLine() throws IOException {
        writeThreeSegments();
        Files.delete(FileNames.indexFile(dir, 0));
        Files.delete(FileNames.timeIndexFile(dir, 0));
        crash();

        List<String> lines = reopen();

        assertThat(lines).as("no warning: nothing is lost").noneMatch(l -> l.startsWith("WARNING"));
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("INFO").contains("built the index of "
                + FileNames.segmentFile(dir, 0) + ", whose seal the last run did not finish"));
        assertThat(IndexFiles.load(FileIo.SYSTEM, dir, 0)).as("written again").isNotNull();
    }

    @Test
    void aMissingTimeIndexAloneAfterACrashIsASealCutShortToo() throws IOException {
        writeThreeSegments();
        Files.delete(FileNames.timeIndexFile(dir, 0)); // the seal writes the offset index first
        crash();

        List<String> lines = reopen();

        assertThat(lines).noneMatch(l -> l.startsWith("WARNING"));
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("INFO").contains("built the index of"));
    }

    @Test
    void aMissingOffsetIndexAloneAfterACrashIsBuiltWithAnInfoLineToo() throws IOException {
        writeThreeSegments();
        Files.delete(FileNames.indexFile(dir, 0)); // its rename lost while the time index's was not
        crash();

        List<String> lines = reopen();

        assertThat(lines).noneMatch(l -> l.startsWith("WARNING"));
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("INFO").contains("built the index of"));
    }

    @Test
    void missingIndexFilesAfterACleanCloseWarn() throws IOException {
        writeThreeSegments();
        Files.delete(FileNames.indexFile(dir, 0));
        assertThat(dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE)).as("closed cleanly").exists();

        List<String> lines = reopen();

        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("WARNING")
                .contains("rebuilt the index of " + FileNames.segmentFile(dir, 0)));
    }

    @Test
    void indexFilesThatAreThereButDamagedAfterACrashWarn() throws IOException {
        writeThreeSegments();
        Path index = FileNames.indexFile(dir, 0);
        byte[] bytes = Files.readAllBytes(index);
        bytes[bytes.length - 2] ^= 0x40;
        Files.write(index, bytes);
        crash();

        List<String> lines = reopen();

        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("WARNING")
                .contains("rebuilt the index of " + FileNames.segmentFile(dir, 0)));
        assertThat(lines).noneMatch(l -> l.contains("whose seal"));
    }

    @Test
    void missingIndexFilesOfTheActiveSegmentAfterACleanCloseWarn() throws IOException {
        writeThreeSegments();
        long active = activeBase();
        Files.delete(FileNames.indexFile(dir, active));
        Files.delete(FileNames.timeIndexFile(dir, active));

        List<String> lines = reopen();

        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("WARNING")
                .contains("the index files of " + FileNames.segmentFile(dir, active)));
    }

    @Test
    void damagedIndexFilesOfTheActiveSegmentAfterACleanCloseWarn() throws IOException {
        writeThreeSegments();
        long active = activeBase();
        Path index = FileNames.indexFile(dir, active);
        byte[] bytes = Files.readAllBytes(index);
        bytes[bytes.length - 2] ^= 0x40;
        Files.write(index, bytes);

        List<String> lines = reopen();

        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("WARNING")
                .contains("the index files of " + FileNames.segmentFile(dir, active)));
    }

    @Test
    void theActiveSegmentOfACrashedLogIsScannedWithoutAWarning() throws IOException {
        writeThreeSegments();
        crash();

        List<String> lines = reopen();

        assertThat(lines).noneMatch(l -> l.startsWith("WARNING"));
    }

    private long activeBase() {
        try (PartitionLog log = Logs.open(dir, DENSE)) {
            return log.segments()[log.segments().length - 1].baseOffset();
        }
    }

    private void writeThreeSegments() {
        try (PartitionLog log = Logs.open(dir, DENSE)) {
            while (log.segmentCount() < 3) {
                Logs.appendFrames(log, 1, 1, VALUE);
            }
            records = (int) log.endOffset();
        }
    }

    /** What a crash leaves of a close: no clean-shutdown marker. */
    private void crash() throws IOException {
        Files.delete(dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE));
    }

    /** Opens the log again, checks that every record reads back, and returns what the open logged. */
    private List<String> reopen() {
        try (CapturedWarnings lines = CapturedWarnings.everyLevelOf(LogLoader.class);
                PartitionLog log = Logs.open(dir, DENSE)) {
            assertThat(log.endOffset()).isEqualTo(records);
            List<KafkoRecord> read = Logs.readAll(log);
            assertThat(read).hasSize(records);
            for (int i = 0; i < records; i++) {
                Logs.assertRecord(read.get(i), i, VALUE);
            }
            return lines.lines();
        }
    }
}
