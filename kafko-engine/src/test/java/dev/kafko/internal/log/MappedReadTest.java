package dev.kafko.internal.log;

import static dev.kafko.internal.log.Logs.assertRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.CorruptLogException;
import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reads straight from the mapped segment: frames that straddle two mapping windows, CRC failures
 * found through the mapping, and records that outlive their segment's deletion and the log's close.
 */
class MappedReadTest {

    private static final int WINDOW = SegmentFile.WINDOW_SIZE;
    private static final int VALUE = 1000;
    private static final TopicConfig ONE_WINDOW_AND_A_BIT = TopicConfig.builder()
            .segmentBytes(WINDOW + (1 << 20)).build();

    @TempDir
    Path dir;

    /** A frame appended by {@link #appendAcrossTheWindowEnd}: its position in the segment and its offsets. */
    private record Frame(int position, int length, long base) {
    }

    /**
     * Appends frames of {@code perFrame} records to the active segment until one runs past the end
     * of the first mapping window; returns the last two frames (the one before, then the straddler).
     */
    private static Frame[] appendAcrossTheWindowEnd(PartitionLog log, int perFrame) {
        Frame previous = null;
        for (;;) {
            Segment[] segs = log.segments();
            Segment active = segs[segs.length - 1];
            int before = active.size();
            long base = log.endOffset();
            Logs.appendFrames(log, 1, perFrame, VALUE);
            Frame f = new Frame(before, active.size() - before, base);
            if (active.size() > WINDOW) {
                assertThat(before).as("the last frame starts before the window end").isLessThan(WINDOW);
                return new Frame[] {previous, f};
            }
            previous = f;
        }
    }

    /** 8 records a frame are stored through the mapping, 64 (about 64 KiB) with a pwrite. */
    @ParameterizedTest
    @ValueSource(ints = {8, 64})
    void framesStraddlingAMappingWindowEndReadBackWholeFromAnyOffset(int perFrame) {
        long straddler;
        long end;
        try (PartitionLog log = Logs.open(dir, ONE_WINDOW_AND_A_BIT)) {
            straddler = appendAcrossTheWindowEnd(log, perFrame)[1].base();
            Logs.appendFrames(log, 2, perFrame, VALUE);
            end = log.endOffset();
            List<KafkoRecord> all = Logs.readAll(log, 0, 1000, 1 << 20);
            assertThat(all).hasSize((int) end);
            for (KafkoRecord r : all) {
                assertRecord(r, r.offset(), VALUE);
            }
            assertReadsAround(log, straddler, perFrame);
        }
        try (PartitionLog log = Logs.open(dir, ONE_WINDOW_AND_A_BIT)) {
            assertThat(log.endOffset()).isEqualTo(end);
            assertReadsAround(log, straddler, perFrame);
        }
    }

    private static void assertReadsAround(PartitionLog log, long straddler, int perFrame) {
        // from inside the straddling frame, a read across the window end, and reads of one record
        long[] froms = {straddler + 3, straddler - perFrame, straddler - 1, straddler + perFrame - 1};
        for (long from : froms) {
            List<KafkoRecord> got = log.read(from, 3 * perFrame, 1 << 20).records();
            assertThat(got).isNotEmpty();
            for (int i = 0; i < got.size(); i++) {
                assertRecord(got.get(i), from + i, VALUE);
            }
            assertRecord(log.read(from, 1, 1).records().get(0), from, VALUE);
        }
    }

    @Test
    void bitFlipsInASealedSegmentFailTheirFramesReadsNamingFileAndPosition() throws IOException {
        Frame[] frames;
        try (PartitionLog log = Logs.open(dir, ONE_WINDOW_AND_A_BIT)) {
            frames = appendAcrossTheWindowEnd(log, 64);
            while (log.segmentCount() == 1) {
                Logs.appendFrames(log, 1, 64, VALUE);
            }
        }
        Frame inView = frames[0];
        Frame straddler = frames[1];
        Path first = FileNames.segmentFile(dir, 0);
        // a value byte of the frame inside the first window, and the last byte of the straddler (past the window end)
        flip(first, inView.position() + inView.length() / 2);
        flip(first, straddler.position() + straddler.length() - 1);
        try (PartitionLog log = Logs.open(dir, ONE_WINDOW_AND_A_BIT)) {
            for (Frame f : frames) {
                for (long from : new long[] {f.base(), f.base() + 63}) {
                    assertThatThrownBy(() -> log.read(from, 10, 1 << 20)).isInstanceOf(CorruptLogException.class)
                            .hasMessageContaining(first.toString())
                            .hasMessageContaining("at position " + f.position())
                            .hasMessageContaining("CRC32C mismatch");
                }
            }
            // a read of good frames that runs on into the damaged one returns the good ones, no record of
            // the damaged one; the next read, at the damaged frame, reports it
            List<KafkoRecord> good = log.read(inView.base() - 64, 1000, 1 << 20).records();
            assertThat(good).hasSize(64);
            for (int i = 0; i < good.size(); i++) {
                assertRecord(good.get(i), inView.base() - 64 + i, VALUE);
            }
            assertThatThrownBy(() -> log.read(inView.base(), 1000, 1 << 20))
                    .isInstanceOf(CorruptLogException.class).hasMessageContaining("at position " + inView.position());
            assertRecord(log.read(inView.base() - 1, 1, 1 << 20).records().get(0), inView.base() - 1, VALUE);
            long after = straddler.base() + 64;
            assertRecord(log.read(after, 1, 1 << 20).records().get(0), after, VALUE);
        }
    }

    /**
     * A reader that keeps a {@link VerifiedFrame} and stops inside a large frame reads on from there
     * without checking the frame's CRC again: published bytes never change. The only way to see that
     * the check was skipped is to change the bytes behind its back, which a reader without the memo
     * then reports.
     */
    @Test
    void aReaderThatStopsInsideAFrameDoesNotCheckItsCrcAgainButAFreshReaderDoes() throws IOException {
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            Logs.appendFrames(log, 1, 100, VALUE);
            Logs.appendFrames(log, 1, 100, VALUE);
            VerifiedFrame verified = new VerifiedFrame();
            List<KafkoRecord> first = log.read(0, 40, 1 << 20, verified).records();
            assertThat(first).hasSize(40);
            Segment active = log.segments()[0];
            int frameEnd = active.size() / 2 + FrameFormat.SEGMENT_HEADER_SIZE / 2;
            // a value byte of the first frame, past the records already read
            flip(FileNames.segmentFile(dir, 0), frameEnd - VALUE / 2);
            List<KafkoRecord> rest = log.read(40, 1000, 1 << 20, verified).records();
            assertThat(rest).hasSize(160);
            for (int i = 0; i < rest.size(); i++) {
                assertThat(rest.get(i).offset()).isEqualTo(40 + i);
            }
            assertThatThrownBy(() -> log.read(40, 1000, 1 << 20)).isInstanceOf(CorruptLogException.class)
                    .hasMessageContaining("CRC32C mismatch");
            assertThatThrownBy(() -> log.read(40, 1000, 1 << 20, new VerifiedFrame()))
                    .isInstanceOf(CorruptLogException.class);
        }
    }

    private static void flip(Path file, long position) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, position);
            b.put(0, (byte) (b.get(0) ^ 0x10)).rewind();
            ch.write(b, position);
        }
    }

    @Test
    void recordsKeepTheirBytesAfterRetentionDeletesTheirSegmentAndTheLogCloses() {
        MutableClock clock = new MutableClock(10_000_000);
        TopicConfig config = TopicConfig.builder().segmentBytes(4096).retention(Duration.ofMinutes(90)).build();
        List<KafkoRecord> kept;
        Headers headers = Headers.of("h", new byte[] {7, 8}).with("none", null);
        try (PartitionLog log = Logs.open(dir, config, clock)) {
            Logs.appendFrames(log, 40, 2, 100);
            log.append(List.of(OutgoingRecord.of(null, null, headers)));
            kept = Logs.readAll(log);
            clock.advance(Duration.ofHours(2));
            Logs.appendFrames(log, 40, 2, 100);
            assertThat(log.applyRetention()).isPositive();
            assertThat(FileNames.segmentFile(dir, 0)).doesNotExist();
            assertKept(kept, headers);
        }
        assertKept(kept, headers);
    }

    private static void assertKept(List<KafkoRecord> kept, Headers headers) {
        assertThat(kept).hasSize(81);
        for (KafkoRecord r : kept.subList(0, 80)) {
            assertRecord(r, r.offset(), 100);
        }
        KafkoRecord last = kept.get(80);
        assertThat(last.key()).isNull();
        assertThat(last.value()).isNull();
        assertThat(last.headers()).isEqualTo(headers);
    }
}
