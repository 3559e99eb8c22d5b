package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Headers;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A clean open checks a sealed segment's index at its ends only; the entries between them also serve the timestamp
 * lookups ({@code offsetsForTimes}, {@code seekToTimestamp}), which must not be led astray by one whose position or
 * offset lies under a valid CRC any more than the offset lookups are: never a later offset than the first record at
 * the timestamp, and no {@code CorruptLogException} for a log whose frames are all intact. (The timestamp an entry
 * keeps is taken on trust, see {@link IndexChecks}.)
 */
class SealedTimeIndexForgeryTest {

    private static final int VALUE = 40;
    private static final long T0 = 1_000_000L;
    private static final TopicConfig CONFIG = TopicConfig.builder().segmentBytes(64 * 1024).indexIntervalBytes(256)
            .build();

    @TempDir
    Path dir;

    /**
     * A middle entry that keeps the offset it claims but points at the next frame (a later one, two records on:
     * {@code nextFrame}), or 9 bytes into its own frame (no frame header there).
     */
    @ParameterizedTest
    @CsvSource({"true, 0", "false, 9"})
    void aTimestampLookupIsNotLedAstrayByAForgedEntryBetweenTheEnds(boolean nextFrame, int positionShift)
            throws IOException {
        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            for (int f = 0; f < 3000; f++) {
                long first = log.endOffset();
                List<OutgoingRecord> batch = new ArrayList<>();
                for (long o = first; o < first + 2; o++) {
                    batch.add(new OutgoingRecord(("k" + o).getBytes(), Logs.value(o, VALUE), Headers.empty(), T0 + o));
                }
                log.append(batch);
            }
        }
        long base = bases()[1];
        IndexFiles.Snapshot snap = IndexFiles.load(FileIo.SYSTEM, dir, base);
        OffsetIndex index = snap.index();
        int mid = index.count() / 2;
        int position = index.position(mid);
        long claimed = base + index.relativeOffset(mid);
        int forged = nextFrame ? position + frameLength(base, position) : position + positionShift;
        assertThat(forged).isLessThan(index.position(mid + 1));
        OffsetIndex lying = new OffsetIndex();
        for (int e = 0; e < index.count(); e++) {
            lying.add(index.relativeOffset(e), e == mid ? forged : index.position(e), index.maxTimestampBefore(e));
        }
        IndexFiles.write(FileIo.SYSTEM, dir, base, lying, snap.nextOffset(), snap.segmentSize(), snap.maxTimestamp(),
                false);
        assertThat(IndexFiles.load(FileIo.SYSTEM, dir, base)).as("the forged index passes its own checks").isNotNull();

        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            // the record at the claimed offset is the first with its timestamp (each record's is T0 + its offset)
            assertThat(log.offsetForTimestamp(T0 + claimed)).isEqualTo(claimed);
            assertThat(log.offsetForTimestamp(T0 + claimed + 1)).isEqualTo(claimed + 1);
        }
    }

    private int frameLength(long base, int position) throws IOException {
        try (FileChannel ch = FileChannel.open(FileNames.segmentFile(dir, base), StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(b, position + FrameFormat.LENGTH_OFFSET);
            return b.getInt(0);
        }
    }

    private long[] bases() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(FileNames::isSegmentFile)
                    .mapToLong(FileNames::baseOffsetOf).sorted().toArray();
        }
    }
}
