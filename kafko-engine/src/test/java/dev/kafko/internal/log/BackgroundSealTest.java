package dev.kafko.internal.log;

import static dev.kafko.internal.log.Logs.assertRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.KafkoRecord;
import dev.kafko.KafkoStorageException;
import dev.kafko.PartitionFailedException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FaultyFileIo;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rolled segment sealed in the background: the writer goes on, a flush waits for the seal, a
 * crash before the seal ended recovers as a torn tail, and a failed seal fails the log.
 */
class BackgroundSealTest {

    private static final TopicConfig SMALL = TopicConfig.builder().segmentBytes(128 * 1024).indexIntervalBytes(4096)
            .build();
    private static final int VALUE = 100;
    /** Records per frame: frames of about 45 KiB, large enough to be written with pwrite. */
    private static final int LARGE = 400;

    @TempDir
    Path dir;

    /** Appends large frames until the log has rolled once; returns the records appended. */
    private static long appendUntilRolled(PartitionLog log) {
        while (log.segmentCount() < 2) {
            Logs.appendFrames(log, 1, LARGE, VALUE);
        }
        return log.endOffset();
    }

    @Test
    void aRollBySmallFramesSealsAtOnceOnTheWriter() {
        Path d = dir.resolve("small");
        HeldExecutor background = new HeldExecutor();
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, d, SMALL, Clock.systemUTC(), new FaultyFileIo(),
                background)) {
            while (log.segmentCount() < 2) {
                Logs.appendFrames(log, 1, 3, VALUE);
            }
            assertThat(FileNames.indexFile(d, 0)).as("sealed before the append returned").exists();
            assertThat(background.held).noneMatch(t -> t instanceof PendingSeal);
        }
    }

    @Test
    void theWriterGoesOnWhileTheSealWaitsAndAFlushRunsItFirst() {
        Path d = dir.resolve("flush");
        HeldExecutor background = new HeldExecutor();
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, d, SMALL, Clock.systemUTC(), new FaultyFileIo(),
                background)) {
            appendUntilRolled(log);
            Logs.appendFrames(log, 2, 3, VALUE);
            assertThat(background.seals()).as("the seal handed off, not run").isEqualTo(1);
            assertThat(FileNames.indexFile(d, 0)).doesNotExist();
            log.flush();
            assertThat(FileNames.indexFile(d, 0)).as("a flush seals the rolled segment first").exists();
            background.runAll(); // the claimed seal does not run twice
            assertThat(log.isFailed()).isFalse();
            assertThat(Logs.readAll(log)).hasSize((int) log.endOffset());
        }
    }

    @Test
    void aCrashBeforeTheSealEndedCutsTheUnsealedSegmentAndDropsTheNewerOne() throws IOException {
        Path d = dir.resolve("live");
        HeldExecutor background = new HeldExecutor();
        long firstEnd;
        long end;
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, d, SMALL, Clock.systemUTC(), new FaultyFileIo(),
                background)) {
            appendUntilRolled(log);
            firstEnd = log.segments()[1].baseOffset();
            Logs.appendFrames(log, 3, 3, VALUE);
            end = log.endOffset();
            // a crash image while the seal is still held: the first segment was never fsynced
            Logs.copyDir(d, dir.resolve("whole"));
            Logs.copyDir(d, dir.resolve("lost-tail"));
            background.runAll();
        }
        Path lostTail = dir.resolve("lost-tail");
        Path first = FileNames.segmentFile(lostTail, 0);
        // a power loss took the unsynced end of the first segment: cut it inside its frames
        byte[] bytes = Files.readAllBytes(first);
        Files.write(first, Arrays.copyOf(bytes, bytes.length * 2 / 3));
        long kept;
        try (PartitionLog log = Logs.open(lostTail, SMALL)) {
            kept = log.endOffset();
            assertThat(kept).isGreaterThan(0).isLessThan(firstEnd);
            assertThat(log.segmentCount()).as("the newer segment is gone").isEqualTo(1);
            assertThat(FileNames.segmentFile(lostTail, firstEnd)).doesNotExist();
            List<KafkoRecord> all = Logs.readAll(log);
            for (int i = 0; i < all.size(); i++) {
                assertRecord(all.get(i), i, VALUE);
            }
            assertThat(log.append(Logs.record(kept, VALUE))).as("appends go on after the cut").isEqualTo(kept);
        }
        // the image where the page cache had the whole first segment: nothing lost, nothing deleted
        try (PartitionLog log = Logs.open(dir.resolve("whole"), SMALL)) {
            assertThat(log.segmentCount()).isEqualTo(2);
            List<KafkoRecord> all = Logs.readAll(log);
            assertThat(all).hasSize((int) end);
            for (int i = 0; i < all.size(); i++) {
                assertRecord(all.get(i), i, VALUE);
            }
        }
    }

    @Test
    void aSealedSegmentThatLostFramesIsStillIsolatedNotCut() throws IOException {
        Path d = dir.resolve("sealed");
        long firstEnd;
        long end;
        try (PartitionLog log = Logs.open(d, SMALL)) {
            appendUntilRolled(log);
            firstEnd = log.segments()[1].baseOffset();
            Logs.appendFrames(log, 3, 3, VALUE);
            end = log.endOffset();
        }
        // the seal ended (its .index is there): a hole in it is damage, and the newer records stay
        Path first = FileNames.segmentFile(d, 0);
        byte[] bytes = Files.readAllBytes(first);
        Files.write(first, Arrays.copyOf(bytes, bytes.length * 2 / 3));
        try (PartitionLog log = Logs.open(d, SMALL)) {
            assertThat(log.segmentCount()).isEqualTo(2);
            assertThat(log.endOffset()).isEqualTo(end);
            assertRecord(log.read(firstEnd, 1, 1 << 20).records().get(0), firstEnd, VALUE);
        }
    }

    @Test
    void aFailedBackgroundSealFailsTheLogLeavesItUncleanAndLosesNoAppendedRecord() {
        Path d = dir.resolve("failed");
        FaultyFileIo io = new FaultyFileIo();
        HeldExecutor background = new HeldExecutor();
        PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, d, SMALL, Clock.systemUTC(), io, background);
        appendUntilRolled(log);
        long appended = log.endOffset();
        io.failNthForce(1);
        background.runAll();
        assertThat(log.isFailed()).isTrue();
        assertThat(log.failure()).isInstanceOf(KafkoStorageException.class).hasMessageContaining("injected fsync");
        Throwable cause = log.failure();
        assertThatThrownBy(() -> log.append(Logs.record(appended, VALUE)))
                .isInstanceOf(PartitionFailedException.class).hasCause(cause);
        log.close();
        assertThat(FileNames.segmentFile(d, 0).resolveSibling(FileNames.CLEAN_SHUTDOWN_FILE))
                .as("no clean close over a segment that may not be durable").doesNotExist();
        try (PartitionLog reopened = Logs.open(d, SMALL)) {
            List<KafkoRecord> all = Logs.readAll(reopened);
            assertThat(all).hasSize((int) appended);
            for (int i = 0; i < all.size(); i++) {
                assertRecord(all.get(i), i, VALUE);
            }
        }
    }
}
