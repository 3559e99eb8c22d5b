package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.Zstd;
import dev.kafko.Compression;
import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A compressed segment can hold 2^31 records and more: 2^25 empty records (256 MiB, the most one append holds)
 * take 8 MiB with zstd level 1, 1 MiB with LZ4, so 64 such appends fit a default 1 GiB segment. The index keeps
 * offsets relative to the segment's base in 32 bits, so a segment must roll before a frame whose offsets lie
 * further from its base than that (Kafka does the same).
 */
class ManyRecordsSegmentTest {

    static final int PER_FRAME = 1 << 25;
    /** The records' timestamps and the clock: a segment younger than its segmentAge. */
    static final long T = 1_800_000_000_000L;

    /** Writes segment 0 with {@code frames} zstd frames of {@link #PER_FRAME} empty records each, frame i stamped i. */
    static void writeSegment(Path dir, int frames) throws IOException {
        // an empty record: body length 4, timestamp delta 0, null key, null value, no headers
        byte[] section = new byte[PER_FRAME * 8];
        for (int i = 0; i < section.length; i += 8) {
            section[i] = 4;
        }
        // level 3: a few KiB for the test's disk; kafko's level 1 takes 8 MiB, any level reads alike
        byte[] block = Zstd.compress(section, 3);
        int len = FrameFormat.HEADER_SIZE + block.length;
        byte[] frame = Arrays.copyOf(new byte[FrameFormat.HEADER_SIZE], len);
        System.arraycopy(block, 0, frame, FrameFormat.HEADER_SIZE, block.length);
        FrameFormat.putInt(frame, FrameFormat.LENGTH_OFFSET, len);
        FrameFormat.putShort(frame, FrameFormat.MAGIC_OFFSET, FrameFormat.FRAME_MAGIC);
        frame[FrameFormat.VERSION_OFFSET] = FrameFormat.FRAME_VERSION;
        frame[FrameFormat.ATTRIBUTES_OFFSET] = (byte) Compression.ZSTD.id();
        FrameFormat.putInt(frame, FrameFormat.RECORD_COUNT_OFFSET, PER_FRAME);
        FrameFormat.putInt(frame, FrameFormat.RECORDS_LENGTH_OFFSET, section.length);
        CRC32C crc = new CRC32C();
        ByteBuffer header = ByteBuffer.allocate(FrameFormat.SEGMENT_HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        header.putInt(FrameFormat.SEGMENT_MAGIC).putShort(FrameFormat.SEGMENT_VERSION).putShort((short) 0).putLong(0)
                .flip();
        try (FileChannel ch = FileChannel.open(FileNames.segmentFile(dir, 0), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE)) {
            ch.write(header);
            for (int i = 0; i < frames; i++) {
                FrameFormat.putLong(frame, FrameFormat.BASE_OFFSET_OFFSET, (long) i * PER_FRAME);
                FrameFormat.putLong(frame, FrameFormat.FIRST_TIMESTAMP_OFFSET, T + i);
                FrameFormat.putLong(frame, FrameFormat.MAX_TIMESTAMP_OFFSET, T + i);
                FrameFormat.putInt(frame, FrameFormat.CRC_OFFSET, FrameFormat.frameCrc(crc, frame, 0, len));
                ch.write(ByteBuffer.wrap(frame));
            }
        }
    }

    @Test
    void aSegmentRollsBeforeItsRelativeOffsetsPassThirtyTwoBits(@TempDir Path dir) throws IOException {
        int frames = 64; // 2^31 records: the next offset is 2^31 past the base
        writeSegment(dir, frames);
        long held = (long) frames * PER_FRAME;
        TopicConfig config = TopicConfig.builder().compression(Compression.ZSTD).indexIntervalBytes(64).build();
        MutableClock clock = new MutableClock(T + 10_000);
        try (CapturedWarnings segment = CapturedWarnings.of(Segment.class);
                CapturedWarnings loader = CapturedWarnings.ofLogLoader()) {
            try (PartitionLog log = Logs.open(dir, config, clock)) {
                assertThat(log.endOffset()).isEqualTo(held);
                for (int i = 0; i < 3; i++) {
                    assertThat(log.append(OutgoingRecord.of(null, new byte[] {(byte) i}, Headers.empty(), T + 9_000 + i)))
                            .isEqualTo(held + i);
                }
                assertThat(log.read(held + 1, 1, 1 << 20).records().get(0).value()).containsExactly(1);
                assertThat(log.offsetForTimestamp(T + 9_001)).isEqualTo(held + 1);
                // an age roll seals the segment that holds them
                clock.advance(java.time.Duration.ofDays(8));
                assertThat(log.append(OutgoingRecord.of(null, new byte[] {3}, Headers.empty(), T + 9_003))).isEqualTo(held + 3);
            }
            for (int open = 0; open < 2; open++) {
                try (PartitionLog log = Logs.open(dir, config, clock)) {
                    assertThat(log.endOffset()).isEqualTo(held + 4);
                    assertThat(log.segments()[1].baseOffset()).as("a roll at 2^31 records").isEqualTo(held);
                    List<KafkoRecord> got = log.read(held + 2, 1, 1 << 20).records();
                    assertThat(got.get(0).offset()).isEqualTo(held + 2);
                    assertThat(log.read(held - 1, 1, 1 << 20).records().get(0).timestamp()).isEqualTo(T + frames - 1);
                    assertThat(log.offsetForTimestamp(T + 9_002)).isEqualTo(held + 2);
                }
            }
            assertThat(segment.lines()).isEmpty();
            assertThat(loader.lines()).isEmpty();
        }
    }
}
