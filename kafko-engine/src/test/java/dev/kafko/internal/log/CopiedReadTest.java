package dev.kafko.internal.log;

import static dev.kafko.internal.log.Logs.assertRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.CorruptLogException;
import dev.kafko.KafkoRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Reads of the segment being written that copy its tail with {@code pread} (at least
 * {@link Segment#COPY_READ_MIN} bytes within {@link Segment#COPY_READ_TAIL} of its end), go on
 * through the mapping past the copy, and read on from a copy the reader kept.
 */
class CopiedReadTest {

    private static final int VALUE = 1000;

    @TempDir
    Path dir;

    /** Frames of 1, 64 (about 64 KiB, a pwrite) and 400 records, mixed: about 1.4 MiB. */
    private static long appendMixedFrames(PartitionLog log) {
        Random random = new Random(42);
        int[] sizes = {1, 1, 3, 64, 400, 64, 1, 17};
        for (int i = 0; i < 40; i++) {
            Logs.appendFrames(log, 1, sizes[random.nextInt(sizes.length)], VALUE);
        }
        return log.endOffset();
    }

    @ParameterizedTest
    @CsvSource({"1, 1048576", "7, 1048576", "64, 1048576", "100, 1048576", "500, 1048576", "5000, 16777216",
            "5000, 100000", "3, 100"})
    void sequentialReadsWithAReaderStateReturnEveryRecordOnceInOrder(int maxRecords, int maxBytes) {
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            long end = appendMixedFrames(log);
            assertThat(log.segments()).hasSize(1);
            VerifiedFrame reader = new VerifiedFrame();
            long next = 0;
            int reads = 0;
            while (next < end) {
                ReadResult r = log.read(next, maxRecords, maxBytes, reader);
                assertThat(r.records()).isNotEmpty().hasSizeLessThanOrEqualTo(maxRecords);
                for (KafkoRecord rec : r.records()) {
                    assertRecord(rec, next++, VALUE);
                }
                assertThat(r.nextOffset()).isEqualTo(next);
                reads++;
            }
            assertThat(log.read(end, maxRecords, maxBytes, reader).records()).isEmpty();
            assertThat(reads).isGreaterThan(0);
        }
    }

    @Test
    void aReadFillsItsRecordLimitPastTheCopyThroughTheMapping() {
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            long end = appendMixedFrames(log);
            VerifiedFrame reader = new VerifiedFrame();
            // a first small read makes the reader expect small reads; the next asks for everything
            assertThat(log.read(0, 1, 1 << 20, reader).records()).hasSize(1);
            ReadResult r = log.read(1, (int) end, 16 << 20, reader);
            assertThat(r.records()).hasSize((int) end - 1);
            for (int i = 0; i < r.records().size(); i++) {
                assertRecord(r.records().get(i), i + 1, VALUE);
            }
        }
    }

    @Test
    void readsJumpingBackAndForthStartAtTheOffsetAsked() {
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            long end = appendMixedFrames(log);
            VerifiedFrame reader = new VerifiedFrame();
            Random random = new Random(7);
            for (int i = 0; i < 300; i++) {
                long from = random.nextInt((int) end);
                int max = 1 + random.nextInt(200);
                List<KafkoRecord> got = log.read(from, max, 1 << 20, reader).records();
                assertThat(got).isNotEmpty().hasSizeLessThanOrEqualTo(max);
                for (int k = 0; k < got.size(); k++) {
                    assertRecord(got.get(k), from + k, VALUE);
                }
            }
        }
    }

    @Test
    void recordsReadFromACopyStayReadableAfterTheSegmentIsSealedAndTheLogClosed() {
        List<KafkoRecord> kept = new ArrayList<>();
        long end;
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            end = appendMixedFrames(log);
            VerifiedFrame reader = new VerifiedFrame();
            long next = 0;
            while (next < end) {
                ReadResult r = log.read(next, 50, 1 << 20, reader);
                kept.addAll(r.records());
                next = r.nextOffset();
            }
        }
        assertThat(kept).hasSize((int) end);
        for (int i = 0; i < kept.size(); i++) {
            assertRecord(kept.get(i), i, VALUE);
        }
    }

    @Test
    void aDamagedFrameInTheCopiedTailFailsItsCrc() throws IOException {
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            Logs.appendFrames(log, 1, 1, VALUE);
            int at = log.segments()[0].size();
            Logs.appendFrames(log, 1, 100, VALUE); // about 100 KiB, within the tail: read through a copy
            try (FileChannel ch = FileChannel.open(FileNames.segmentFile(dir, 0), StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(new byte[] {'#'}), at + 5000);
            }
            VerifiedFrame reader = new VerifiedFrame();
            assertThat(log.read(0, 1, 1 << 20, reader).records()).hasSize(1);
            assertThatThrownBy(() -> log.read(1, 500, 1 << 20, reader))
                    .isInstanceOf(CorruptLogException.class)
                    .hasMessageContaining("CRC32C mismatch")
                    .hasMessageContaining("position " + at);
        }
    }

    @Test
    void anInterruptedReaderReadsThroughTheMappingAndKeepsItsInterruptWhileTheWriterGoesOn() {
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            Logs.appendFrames(log, 3, 64, VALUE);
            VerifiedFrame reader = new VerifiedFrame();
            Thread.currentThread().interrupt();
            try {
                List<KafkoRecord> got = log.read(0, 1000, 1 << 20, reader).records();
                assertThat(got).hasSize(192);
                assertRecord(got.get(191), 191, VALUE);
                assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is kept").isTrue();
            } finally {
                Thread.interrupted();
            }
            // the writer's channel is its own: appends go on, and reads copy again
            Logs.appendFrames(log, 2, 64, VALUE);
            List<KafkoRecord> rest = log.read(192, 1000, 1 << 20, reader).records();
            assertThat(rest).hasSize(128);
            assertRecord(rest.get(127), 319, VALUE);
        }
    }

    @Test
    void aReaderKeepsItsCopyOnlyWhileItHasMoreToReadInIt() {
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            Logs.appendFrames(log, 1, 400, VALUE); // about 400 KiB: one frame, read through a copy
            VerifiedFrame reader = new VerifiedFrame();
            assertThat(log.read(0, 100, 1 << 20, reader).records()).hasSize(100);
            assertThat(reader.copy).as("a poll that stopped inside the frame keeps the copy").isNotNull();
            assertThat(log.read(100, 1000, 1 << 20, reader).records()).hasSize(300);
            assertThat(reader.copy).as("a read to the copy's end lets it go").isNull();
        }
    }
}
