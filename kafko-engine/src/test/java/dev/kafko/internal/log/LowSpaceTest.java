package dev.kafko.internal.log;

import static dev.kafko.internal.log.Logs.assertRecord;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FaultyFileIo;
import dev.kafko.internal.io.FileIo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a nearly full file system the writer stores nothing through the mapping (a store there can fault
 * with SIGBUS on ext4, which the JVM reports late and anywhere): every frame is a {@code pwrite},
 * whose failure is an exception before anything is acknowledged. Counted through the file-I/O seam:
 * a store through the mapping makes no write.
 */
class LowSpaceTest {

    private static final TopicConfig BIG = TopicConfig.builder().segmentBytes(64L << 20).build();
    private static final long LOW = SpaceWatch.MIN_FREE_FOR_MAPPED_STORES - 1;

    @TempDir
    Path dir;

    @Test
    void onANearlyFullFileSystemEveryFrameIsAPwriteAndEveryRecordReadsBackAfterAReopen() {
        FaultyFileIo io = new FaultyFileIo().syncs(false).usableSpace(LOW);
        MutableClock clock = new MutableClock(1_000_000);
        HeldExecutor preparer = new HeldExecutor();
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, BIG, clock, io, preparer)) {
            long writes = io.writes();
            Logs.appendFrames(log, 500, 1, 200);
            assertThat(io.writes() - writes).as("a pwrite per frame").isGreaterThanOrEqualTo(500);
            preparer.runAll(); // zeros ahead, but no page touched: nothing to observe but that reads agree
            Logs.appendFrames(log, 500, 2, 200);
            assertEveryRecordReadsBack(log, 1_500);
        }
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, BIG, clock, FileIo.SYSTEM)) {
            assertEveryRecordReadsBack(log, 1_500);
        }
    }

    @Test
    void theWriterLooksAgainAtLeastEverySecondOfTheLogsClock() {
        FaultyFileIo io = new FaultyFileIo().syncs(false);
        MutableClock clock = new MutableClock(1_000_000);
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, BIG, clock, io, new HeldExecutor())) {
            Logs.appendFrames(log, 1, 1, 200); // the first step of zeros
            long writes = io.writes();
            Logs.appendFrames(log, 100, 1, 200);
            assertThat(io.writes() - writes).as("plenty of space: stores through the mapping").isZero();

            io.usableSpace(LOW);
            Logs.appendFrames(log, 100, 1, 200);
            assertThat(io.writes() - writes).as("not looked at again yet").isZero();
            clock.advance(Duration.ofMillis(1_001));
            Logs.appendFrames(log, 100, 1, 200);
            assertThat(io.writes() - writes).as("nearly full: a pwrite per frame").isEqualTo(100);

            io.usableSpace(-1);
            clock.advance(Duration.ofMillis(1_001));
            writes = io.writes();
            Logs.appendFrames(log, 100, 1, 200);
            assertThat(io.writes() - writes).as("space again: through the mapping again (a step of zeros at most)")
                    .isLessThanOrEqualTo(1);

            io.usableSpace(LOW);
            clock.advance(Duration.ofMillis(-60_000)); // a clock set back does not stop the looking
            writes = io.writes();
            Logs.appendFrames(log, 10, 1, 200);
            assertThat(io.writes() - writes).isEqualTo(10);
            assertEveryRecordReadsBack(log, 411);
        }
    }

    @Test
    void aStepOfZerosLooksAtTheSpaceTooWhateverTheClock() {
        FaultyFileIo io = new FaultyFileIo().syncs(false);
        MutableClock clock = new MutableClock(1_000_000); // never moves
        HeldExecutor preparer = new HeldExecutor();
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, BIG, clock, io, preparer)) {
            Logs.appendFrames(log, 1, 1, 200);
            io.usableSpace(LOW);
            while (preparer.held.isEmpty()) {
                Logs.appendFrames(log, 1, 1, 200);
            }
            long writes = io.writes();
            Logs.appendFrames(log, 10, 1, 200);
            assertThat(io.writes() - writes).as("the clock never moved: still through the mapping").isZero();
            preparer.runAll(); // the step of zeros looks at the space
            writes = io.writes();
            Logs.appendFrames(log, 10, 1, 200);
            assertThat(io.writes() - writes).as("nearly full: a pwrite per frame").isEqualTo(10);
            assertEveryRecordReadsBack(log, (int) log.endOffset());
        }
    }

    private static void assertEveryRecordReadsBack(PartitionLog log, int expected) {
        List<KafkoRecord> all = Logs.readAll(log);
        assertThat(all).hasSize(expected);
        assertThat(log.endOffset()).isEqualTo(expected);
        for (int i = 0; i < expected; i++) {
            assertRecord(all.get(i), i, 200);
        }
    }
}
