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
        return appendUntilSegments(log, 2);
    }

    /** Appends large frames until the log has {@code segments} segments; returns the records appended. */
    private static long appendUntilSegments(PartitionLog log, int segments) {
        while (log.segmentCount() < segments) {
            Logs.appendFrames(log, 1, LARGE, VALUE);
        }
        return log.endOffset();
    }

    @Test
    void severalSealsWaitWithoutHoldingTheWriterUpToTheBoundThenTheWriterSealsTheOldest() {
        Path d = dir.resolve("bound");
        HeldExecutor background = new HeldExecutor();
        int max = Seals.MAX_PENDING;
        try (PartitionLog log = openHeld(d, new FaultyFileIo(), background)) {
            appendUntilSegments(log, max + 1);
            assertThat(background.seals()).as("every roll handed its seal off").isEqualTo(max);
            Segment[] segments = log.segments();
            for (int i = 0; i < max; i++) {
                assertThat(FileNames.indexFile(d, segments[i].baseOffset())).doesNotExist();
            }
            appendUntilSegments(log, max + 2);
            assertThat(FileNames.indexFile(d, segments[0].baseOffset()))
                    .as("one roll past the bound: the writer sealed the oldest itself").exists();
            for (int i = 1; i <= max; i++) {
                assertThat(FileNames.indexFile(d, log.segments()[i].baseOffset())).doesNotExist();
            }
            log.flush();
            for (int i = 0; i < log.segmentCount() - 1; i++) {
                assertThat(FileNames.indexFile(d, log.segments()[i].baseOffset()))
                        .as("a flush seals every rolled segment").exists();
            }
            background.runAll(); // each claimed seal runs once
            assertThat(log.isFailed()).isFalse();
            assertThat(Logs.readAll(log)).hasSize((int) log.endOffset());
        }
    }

    @Test
    void retentionWaitsOnlyForTheSealsOfTheSegmentsItDeletes() {
        Path d = dir.resolve("retention");
        HeldExecutor background = new HeldExecutor();
        TopicConfig config = TopicConfig.builder().segmentBytes(128 * 1024).indexIntervalBytes(4096)
                .retentionBytes(320 * 1024).build();
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, d, config, Clock.systemUTC(), new FaultyFileIo(),
                background)) {
            appendUntilSegments(log, 4);
            log.flush(); // the first three segments sealed
            appendUntilSegments(log, 6);
            long[] pending = {log.segments()[3].baseOffset(), log.segments()[4].baseOffset()};
            int deleted = log.applyRetention();
            assertThat(deleted).as("only sealed segments are old enough to go").isBetween(1, 3);
            for (long base : pending) {
                assertThat(FileNames.indexFile(d, base)).as("a seal retention did not need stays pending").doesNotExist();
            }
            background.runAll();
            assertThat(log.isFailed()).isFalse();
        }
        // a retention that deletes segments whose seals are pending runs those seals first
        Path all = dir.resolve("retention-all");
        FaultyFileIo io = new FaultyFileIo();
        HeldExecutor held = new HeldExecutor();
        TopicConfig keepNothing = TopicConfig.builder().segmentBytes(128 * 1024).retentionBytes(0).build();
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, all, keepNothing, Clock.systemUTC(), io, held)) {
            appendUntilSegments(log, 4);
            long forces = io.forces();
            // all four go: the active one too, rolled first (its seal joins the three pending ones)
            assertThat(log.applyRetention()).isEqualTo(4);
            assertThat(io.forces() - forces).as("the four pending seals, then the directory").isGreaterThanOrEqualTo(4);
            assertThat(log.segmentCount()).isEqualTo(1);
            assertThat(log.logStartOffset()).isEqualTo(log.endOffset());
            held.runAll(); // each seal was claimed already: nothing runs twice
            assertThat(log.isFailed()).isFalse();
        }
    }

    @Test
    void sealsEndInRollOrderAndALaterSealNeverIndexesAfterAnEarlierOneFailed() {
        Path d = dir.resolve("order");
        HeldExecutor background = new HeldExecutor();
        try (PartitionLog log = openHeld(d, new FaultyFileIo(), background)) {
            appendUntilSegments(log, 3);
            long second = log.segments()[1].baseOffset();
            background.runNewestSeal(); // the newer seal first: it runs the older one before itself
            assertThat(FileNames.indexFile(d, 0)).exists();
            assertThat(FileNames.indexFile(d, second)).exists();
            background.runAll();
            assertThat(log.isFailed()).isFalse();
        }
        Path f = dir.resolve("order-failed");
        FaultyFileIo io = new FaultyFileIo();
        HeldExecutor held = new HeldExecutor();
        PartitionLog log = openHeld(f, io, held);
        appendUntilSegments(log, 3);
        long second = log.segments()[1].baseOffset();
        long appended = log.endOffset();
        io.failNthForce(1);
        held.runNewestSeal();
        assertThat(log.isFailed()).isTrue();
        assertThat(log.failure()).hasMessageContaining("injected fsync");
        assertThat(FileNames.indexFile(f, 0)).doesNotExist();
        assertThat(FileNames.indexFile(f, second)).as("no index after a segment that may not be durable").doesNotExist();
        log.close();
        try (PartitionLog reopened = Logs.open(f, SMALL)) {
            assertThat(Logs.readAll(reopened)).hasSize((int) appended);
        }
    }

    @Test
    void aCrashWithSeveralSealsPendingCutsTheOldestSegmentThatLostItsTailAndDropsEveryLaterOne() throws IOException {
        Path d = dir.resolve("several");
        HeldExecutor background = new HeldExecutor();
        long[] bases;
        try (PartitionLog log = openHeld(d, new FaultyFileIo(), background)) {
            appendUntilSegments(log, 4);
            Logs.appendFrames(log, 2, 3, VALUE);
            bases = Arrays.stream(log.segments()).mapToLong(Segment::baseOffset).toArray();
            // crash images while three seals are held: no rolled segment was fsynced
            Logs.copyDir(d, dir.resolve("second-lost"));
            Logs.copyDir(d, dir.resolve("first-lost"));
            background.runAll();
        }
        // the power loss took the tail of the second segment only
        Path secondLost = dir.resolve("second-lost");
        cutToTwoThirds(FileNames.segmentFile(secondLost, bases[1]));
        try (PartitionLog log = Logs.open(secondLost, SMALL)) {
            long kept = log.endOffset();
            assertThat(kept).isGreaterThan(bases[1]).isLessThan(bases[2]);
            assertThat(log.segmentCount()).as("the first kept, the second cut, the later ones gone").isEqualTo(2);
            assertThat(FileNames.segmentFile(secondLost, bases[2])).doesNotExist();
            assertThat(FileNames.segmentFile(secondLost, bases[3])).doesNotExist();
            assertIntactRecords(log, kept);
            assertThat(log.append(Logs.record(kept, VALUE))).as("appends go on after the cut").isEqualTo(kept);
        }
        // the power loss took the tails of the first and the second: cut at the first
        Path firstLost = dir.resolve("first-lost");
        cutToTwoThirds(FileNames.segmentFile(firstLost, bases[0]));
        cutToTwoThirds(FileNames.segmentFile(firstLost, bases[1]));
        try (PartitionLog log = Logs.open(firstLost, SMALL)) {
            assertThat(log.endOffset()).isGreaterThan(0).isLessThan(bases[1]);
            assertThat(log.segmentCount()).isEqualTo(1);
            assertIntactRecords(log, log.endOffset());
        }
    }

    /** Opens a log in {@code d} whose background work waits in {@code background}. */
    private static PartitionLog openHeld(Path d, FaultyFileIo io, HeldExecutor background) {
        return PartitionLog.open(Logs.TOPIC, 0, d, SMALL, Clock.systemUTC(), io, background);
    }

    /** Reads the whole log and checks that it holds exactly the records 0 .. n-1, each intact. */
    private static void assertIntactRecords(PartitionLog log, long n) {
        List<KafkoRecord> all = Logs.readAll(log);
        assertThat(all).hasSize((int) n);
        for (int i = 0; i < all.size(); i++) {
            assertRecord(all.get(i), i, VALUE);
        }
    }

    /** A power loss that took the unsynced last third of {@code segment}. */
    private static void cutToTwoThirds(Path segment) throws IOException {
        byte[] bytes = Files.readAllBytes(segment);
        Files.write(segment, Arrays.copyOf(bytes, bytes.length * 2 / 3));
    }

    @Test
    void aRollBySmallFramesHandsItsSealOffTooSoThatTheWriterNeverWaitsForAWholeSegmentsFsync() {
        Path d = dir.resolve("small");
        HeldExecutor background = new HeldExecutor();
        FaultyFileIo io = new FaultyFileIo();
        try (PartitionLog log = openHeld(d, io, background)) {
            while (log.segmentCount() < 2) {
                Logs.appendFrames(log, 1, 3, VALUE);
            }
            assertThat(FileNames.indexFile(d, 0)).as("not sealed on the writer").doesNotExist();
            assertThat(background.seals()).as("the seal handed off").isEqualTo(1);
            background.runAll();
            assertThat(FileNames.indexFile(d, 0)).as("sealed in the background").exists();
            assertThat(log.isFailed()).isFalse();
            assertIntactRecords(log, log.endOffset());
        }
    }

    @Test
    void theWriterGoesOnWhileTheSealWaitsAndAFlushRunsItFirst() {
        Path d = dir.resolve("flush");
        HeldExecutor background = new HeldExecutor();
        try (PartitionLog log = openHeld(d, new FaultyFileIo(), background)) {
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
        try (PartitionLog log = openHeld(d, new FaultyFileIo(), background)) {
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
            assertIntactRecords(log, log.endOffset());
            assertThat(log.append(Logs.record(kept, VALUE))).as("appends go on after the cut").isEqualTo(kept);
        }
        // the image where the page cache had the whole first segment: nothing lost, nothing deleted
        try (PartitionLog log = Logs.open(dir.resolve("whole"), SMALL)) {
            assertThat(log.segmentCount()).isEqualTo(2);
            assertIntactRecords(log, end);
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
        PartitionLog log = openHeld(d, io, background);
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
            assertIntactRecords(reopened, appended);
        }
    }
}
