package dev.kafko.internal.log;

import static dev.kafko.internal.log.Logs.assertRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.KafkoRecord;
import dev.kafko.KafkoStorageException;
import dev.kafko.PartitionFailedException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.Flusher;
import dev.kafko.internal.io.FaultyFileIo;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The write-behind fsyncs of a log opened with a flusher: where they run, who waits, what a failure does. */
class FlushBehindTest {

    private static final TopicConfig SMALL = TopicConfig.builder().segmentBytes(64 * 1024).indexIntervalBytes(512)
            .build();
    /** A write-behind fsync after every ~8 frames of the appends below. */
    private static final long STEP = 4096;

    @TempDir
    Path dir;

    /** Holds the submitted fsyncs until the test runs them, as a busy flusher thread would. */
    private static final class HeldExecutor implements Executor {
        final ArrayDeque<Runnable> held = new ArrayDeque<>();

        @Override
        public void execute(Runnable task) {
            held.add(task);
        }

        long flushes() {
            return held.stream().filter(t -> t instanceof FlushBehind).count();
        }

        void runAll() {
            while (!held.isEmpty()) {
                held.poll().run();
            }
        }
    }

    @Test
    void fsyncsTheActiveSegmentOnTheFlusherOncePerStepWithoutFlushingForTheWriter() {
        FaultyFileIo io = new FaultyFileIo();
        HeldExecutor flusher = new HeldExecutor();
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, SMALL, Clock.systemUTC(), io, flusher, STEP)) {
            long before = io.forces();
            Logs.appendFrames(log, 7, 2, 200); // 7 frames of ~450 bytes: below one step
            assertThat(flusher.flushes()).isZero();
            Logs.appendFrames(log, 3, 2, 200);
            assertThat(flusher.flushes()).as("one fsync submitted, none run by the writer").isEqualTo(1);
            assertThat(io.forces()).isEqualTo(before);
            Logs.appendFrames(log, 10, 2, 200);
            assertThat(flusher.flushes()).as("no second fsync while the first has not ended").isEqualTo(1);
            flusher.runAll();
            assertThat(io.forces()).isEqualTo(before + 1);
            Logs.appendFrames(log, 10, 2, 200);
            assertThat(flusher.flushes()).as("the next step starts once the last fsync ended").isEqualTo(1);
        }
    }

    @Test
    void aRollRunsTheWriteBehindFsyncItselfWhenTheFlusherHasNotStartedIt() {
        FaultyFileIo io = new FaultyFileIo();
        HeldExecutor flusher = new HeldExecutor();
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, SMALL, Clock.systemUTC(), io, flusher, STEP)) {
            // past the 64 KiB segment: the roll claims the held fsync before sealing the segment
            Logs.appendFrames(log, 200, 2, 200);
            assertThat(log.segmentCount()).isGreaterThan(1);
            long forces = io.forces();
            flusher.runAll();
            assertThat(io.forces()).as("held fsyncs a roll already ran are not run twice")
                    .isLessThanOrEqualTo(forces + 1);
            assertThat(log.isFailed()).isFalse();
        }
        try (PartitionLog log = Logs.open(dir, SMALL)) {
            List<KafkoRecord> all = Logs.readAll(log);
            assertThat(all).hasSize(400);
            for (int i = 0; i < all.size(); i++) {
                assertRecord(all.get(i), i, 200);
            }
        }
    }

    @Test
    void aFailedWriteBehindFsyncFailsTheLogAndLosesNoAppendedRecord() {
        FaultyFileIo io = new FaultyFileIo();
        HeldExecutor flusher = new HeldExecutor();
        Path d = dir.resolve("failed");
        long appended;
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, d, SMALL, Clock.systemUTC(), io, flusher, STEP)) {
            Logs.appendFrames(log, 10, 2, 200);
            appended = log.endOffset();
            io.failNthForce(1);
            flusher.runAll();
            assertThat(log.isFailed()).isTrue();
            assertThat(log.failure()).isInstanceOf(KafkoStorageException.class)
                    .hasMessageContaining("injected fsync failure");
            Throwable cause = log.failure();
            assertThatThrownBy(() -> log.append(Logs.record(appended, 200)))
                    .isInstanceOf(PartitionFailedException.class).hasCause(cause);
        }
        try (PartitionLog log = Logs.open(d, SMALL)) {
            List<KafkoRecord> all = Logs.readAll(log);
            assertThat(all).hasSize((int) appended);
            for (int i = 0; i < all.size(); i++) {
                assertRecord(all.get(i), i, 200);
            }
        }
    }

    @Test
    void stepsOfZerosArePreparedOffTheWriterWhichThenStoresWithoutAnySyscall() {
        FaultyFileIo io = new FaultyFileIo().syncs(false);
        HeldExecutor flusher = new HeldExecutor();
        TopicConfig big = TopicConfig.builder().segmentBytes(64L << 20).build();
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, big, Clock.systemUTC(), io, flusher,
                Long.MAX_VALUE)) {
            long writes = io.writes();
            Logs.appendFrames(log, 1, 1, 200);
            assertThat(io.writes() - writes).as("the first step of zeros, on the writer").isEqualTo(1);
            while (flusher.held.isEmpty()) {
                Logs.appendFrames(log, 1, 1, 200);
            }
            assertThat(io.writes() - writes).as("half the step used: a step asked of the preparer").isEqualTo(1);
            assertThat(log.sizeBytes()).isGreaterThan(SegmentFile.ALLOCATION_STEP_MIN / 2);
            flusher.runAll();
            assertThat(io.writes() - writes).as("the preparer wrote the next step").isEqualTo(2);
            long end = log.endOffset();
            // up to the end of the prepared step the writer only stores into mapped, resident pages
            while (log.sizeBytes() < SegmentFile.ALLOCATION_STEP_MIN * 3L / 2) {
                Logs.appendFrames(log, 1, 1, 200);
            }
            assertThat(io.writes() - writes).as("no write by the writer inside the prepared step").isEqualTo(2);
            assertThat(Logs.readAll(log)).hasSize((int) log.endOffset());
            assertThat(log.endOffset()).isGreaterThan(end);
        }
    }

    @Test
    void mixedFramesRollsAndReadersStayExactWithARealFlusherPreparingAndFsyncingBehind() throws Exception {
        long seed = 0x5EED_F1A5L;
        java.util.Random random = new java.util.Random(seed);
        TopicConfig config = TopicConfig.builder().segmentBytes(1 << 20).indexIntervalBytes(4096).build();
        Path d = dir.resolve("mixed");
        int total = 0;
        try (Flusher flusher = new Flusher()) {
            try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, d, config, Clock.systemUTC(),
                    new FaultyFileIo().syncs(false), flusher, 96 * 1024)) {
                while (total < 12000) {
                    // mostly small frames through the mapping, some of 40-100 KiB through pwrite
                    int count = random.nextInt(10) == 0 ? 100 + random.nextInt(200) : 1 + random.nextInt(4);
                    Logs.appendFrames(log, 1, count, 300);
                    total += count;
                    if (random.nextInt(50) == 0) {
                        long from = random.nextInt(total);
                        assertRecord(log.read(from, 1, 1 << 20).records().get(0), from, 300);
                    }
                }
                assertThat(log.segmentCount()).as("seed %s", seed).isGreaterThan(2);
                List<KafkoRecord> all = Logs.readAll(log);
                assertThat(all).hasSize(total);
            }
        }
        try (PartitionLog log = Logs.open(d, config)) {
            List<KafkoRecord> all = Logs.readAll(log);
            assertThat(all).as("seed %s", seed).hasSize(total);
            for (int i = 0; i < total; i++) {
                assertRecord(all.get(i), i, 300);
            }
        }
    }

    @Test
    void closeWaitsForTheWriteBehindFsyncAndRunsOnARealFlusherThread() throws Exception {
        Path d = dir.resolve("real");
        try (Flusher flusher = new Flusher()) {
            try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, d, SMALL, Clock.systemUTC(),
                    new FaultyFileIo(), flusher, STEP)) {
                Logs.appendFrames(log, 500, 2, 200);
            }
        }
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals(Flusher.THREAD_NAME));
        try (PartitionLog log = Logs.open(d, SMALL)) {
            assertThat(log.endOffset()).isEqualTo(1000);
            assertRecord(log.read(999, 1, 1 << 20).records().get(0), 999, 200);
        }
    }
}
