package dev.kafko.internal.log;

import static dev.kafko.internal.log.Logs.assertRecord;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.KafkoStorageException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.Preparer;
import dev.kafko.internal.io.FaultyFileIo;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Steps of zeros prepared ahead of the writer on another thread: who does what, and that nothing changes for readers. */
class PrepareAheadTest {

    private static final TopicConfig BIG = TopicConfig.builder().segmentBytes(64L << 20).build();

    @TempDir
    Path dir;

    @Test
    void stepsOfZerosArePreparedOffTheWriterWhichThenStoresWithoutAnySyscall() {
        FaultyFileIo io = new FaultyFileIo().syncs(false);
        HeldExecutor preparer = new HeldExecutor();
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, BIG, Clock.systemUTC(), io, preparer)) {
            long writes = io.writes();
            Logs.appendFrames(log, 1, 1, 200);
            assertThat(io.writes() - writes).as("the first step of zeros, on the writer").isEqualTo(1);
            while (preparer.held.isEmpty()) {
                Logs.appendFrames(log, 1, 1, 200);
            }
            assertThat(io.writes() - writes).as("half the step used: the next one asked of the preparer").isEqualTo(1);
            assertThat(log.sizeBytes()).isGreaterThan(ZeroSteps.ALLOCATION_STEP_MIN / 2);
            preparer.runAll();
            assertThat(io.writes() - writes).as("the preparer wrote the next step").isEqualTo(2);
            long end = log.endOffset();
            // up to the end of the prepared step the writer only stores into mapped, resident pages
            while (log.sizeBytes() < ZeroSteps.ALLOCATION_STEP_MIN * 3L / 2) {
                Logs.appendFrames(log, 1, 1, 200);
            }
            assertThat(io.writes() - writes).as("no write by the writer inside the prepared step").isEqualTo(2);
            assertThat(log.endOffset()).isGreaterThan(end);
            assertThat(Logs.readAll(log)).hasSize((int) log.endOffset());
        }
    }

    @Test
    void aWriterThatOutrunsThePreparerPreparesTheStepItselfAndAStaleStepIsHarmless() {
        FaultyFileIo io = new FaultyFileIo().syncs(false);
        HeldExecutor preparer = new HeldExecutor();
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, BIG, Clock.systemUTC(), io, preparer)) {
            // the held step never runs while the writer fills 3 steps' worth
            while (log.sizeBytes() < 4L * ZeroSteps.ALLOCATION_STEP_MIN) {
                Logs.appendFrames(log, 1, 2, 200);
            }
            assertThat(preparer.held).as("one step asked for, never a second while it is pending").hasSize(1);
            long writes = io.writes();
            preparer.runAll();
            assertThat(io.writes() - writes).as("the late step prepares one further step ahead (in pieces)")
                    .isLessThanOrEqualTo(ZeroSteps.PREPARE_PIECE / ZeroSteps.ZEROS_PER_WRITE);
            Logs.appendFrames(log, 50, 2, 200);
            assertEveryRecordReadsBack(log);
        }
    }

    @Test
    void aWriterThatCaughtUpWritesOnlyShortStepsOfZerosAndLeavesTheLargeOnesToThePreparer() {
        FaultyFileIo io = new FaultyFileIo().syncs(false);
        HeldExecutor preparer = new HeldExecutor();
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, BIG, Clock.systemUTC(), io, preparer)) {
            // the preparer is busy: every byte of zeros below comes from the writer, one short step at a time
            // (the file doubled before: 2 MiB of zeros for a little over 1 MiB of frames)
            while (log.sizeBytes() <= 1 << 20) {
                Logs.appendFrames(log, 1, 1, 200);
                assertThat(io.writtenBytes())
                        .as("zeros the writer wrote for %s bytes of frames", log.sizeBytes())
                        .isLessThanOrEqualTo(log.sizeBytes() + ZeroSteps.ALLOCATION_STEP_MIN + 4096);
            }
            assertThat(preparer.held).as("the large step is still asked of the preparer").hasSize(1);
            long writes = io.writes();
            preparer.runAll();
            assertThat(io.writes()).as("the preparer's step").isGreaterThan(writes);
            assertThat(io.writtenBytes()).isGreaterThan(log.sizeBytes() + ZeroSteps.ALLOCATION_STEP_MIN);
            Logs.appendFrames(log, 100, 1, 200);
            assertEveryRecordReadsBack(log);
        }
    }

    @Test
    void aWriterWhosePreparerRefusesWorkGoesBackToDoublingStepsOfItsOwn() {
        FaultyFileIo io = new FaultyFileIo().syncs(false);
        int[] refused = {0};
        Executor shutDown = task -> {
            refused[0]++;
            throw new RejectedExecutionException("shut down");
        };
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, BIG, Clock.systemUTC(), io, shutDown)) {
            while (io.writtenBytes() <= 1 << 20) {
                Logs.appendFrames(log, 1, 1, 200);
            }
            assertThat(refused[0]).as("asked once, then never again").isEqualTo(1);
            // the step that took the file past 1 MiB doubled it: about twice the frames, not 64 KiB more
            assertThat(io.writtenBytes()).as("zeros for %s bytes of frames", log.sizeBytes())
                    .isGreaterThan(log.sizeBytes() + 256 * 1024);
            assertThat(Logs.readAll(log)).hasSize((int) log.endOffset());
        }
    }

    @Test
    void aFailedStepOnThePreparerLeavesTheWriterToMeetTheErrorItself() {
        FaultyFileIo io = new FaultyFileIo().syncs(false);
        HeldExecutor preparer = new HeldExecutor();
        long acked;
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, BIG, Clock.systemUTC(), io, preparer)) {
            while (preparer.held.isEmpty()) {
                Logs.appendFrames(log, 1, 1, 200);
            }
            acked = log.endOffset();
            io.diskFull(true);
            preparer.runAll();
            assertThat(log.isFailed()).as("a step that failed off the writer fails nothing by itself").isFalse();
            KafkoStorageException e = null;
            for (int i = 0; i < 10_000 && e == null; i++) {
                try {
                    Logs.appendFrames(log, 1, 1, 200);
                    acked = log.endOffset();
                } catch (KafkoStorageException x) {
                    e = x;
                }
            }
            assertThat(e).as("the writer's own step hit the full disk").isNotNull();
            assertThat(e.getMessage()).contains("No space left");
            assertThat(log.isFailed()).isTrue();
            io.diskFull(false);
        }
        try (PartitionLog log = Logs.open(dir, BIG)) {
            List<KafkoRecord> all = Logs.readAll(log);
            assertThat(all).as("every acknowledged record").hasSizeGreaterThanOrEqualTo((int) acked);
            for (int i = 0; i < all.size(); i++) {
                assertRecord(all.get(i), i, 200);
            }
        }
    }

    @RepeatedTest(3) // a race: a plain store as the touch failed 2 runs in 3
    void pagesTouchedAheadWhileTheWriterStoresKeepEveryByteTheWriterStored() {
        // one record per frame over many steps: the preparer's page touches run beside the writer's
        // stores, and a writer that overtakes them stores into pages about to be touched
        int records = 60_000;
        try (Preparer preparer = new Preparer()) {
            try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, BIG, Clock.systemUTC(),
                    new FaultyFileIo().syncs(false), preparer)) {
                Logs.appendFrames(log, records, 1, 300);
                List<KafkoRecord> all = Logs.readAll(log);
                assertThat(all).hasSize(records);
                for (int i = 0; i < records; i++) {
                    assertRecord(all.get(i), i, 300);
                }
            }
        }
    }

    @Test
    void mixedFramesRollsAndReadersStayExactWithARealPreparerThread() {
        long seed = 0x5EED_F1A5L;
        Random random = new Random(seed);
        TopicConfig config = TopicConfig.builder().segmentBytes(1 << 20).indexIntervalBytes(4096).build();
        Path d = dir.resolve("mixed");
        int total = 0;
        try (Preparer preparer = new Preparer()) {
            try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, d, config, Clock.systemUTC(),
                    new FaultyFileIo().syncs(false), preparer)) {
                while (total < 12_000) {
                    // mostly small frames through the mapping, some of 30-90 KiB through pwrite
                    int count = random.nextInt(10) == 0 ? 100 + random.nextInt(200) : 1 + random.nextInt(4);
                    Logs.appendFrames(log, 1, count, 300);
                    total += count;
                    if (random.nextInt(50) == 0) {
                        long from = random.nextInt(total);
                        assertRecord(log.read(from, 1, 1 << 20).records().get(0), from, 300);
                    }
                }
                assertThat(log.segmentCount()).as("seed %s", seed).isGreaterThan(2);
                assertThat(Logs.readAll(log)).hasSize(total);
            }
        }
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals(Preparer.THREAD_NAME));
        try (PartitionLog log = Logs.open(d, config)) {
            List<KafkoRecord> all = Logs.readAll(log);
            assertThat(all).as("seed %s", seed).hasSize(total);
            for (int i = 0; i < total; i++) {
                assertRecord(all.get(i), i, 300);
            }
        }
    }

    /** Every record of {@code log} reads back with its offset and a 200-byte value. */
    private static void assertEveryRecordReadsBack(PartitionLog log) {
        List<KafkoRecord> all = Logs.readAll(log);
        for (int i = 0; i < all.size(); i++) {
            assertRecord(all.get(i), i, 200);
        }
    }
}
