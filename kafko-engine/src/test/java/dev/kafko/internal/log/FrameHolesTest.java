package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Compression;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/** Frames with holes: the offsets of removed records between two kept ones, four bytes each ({@link FrameFormat}). */
class FrameHolesTest {

    private static OutgoingRecord record(String key, long timestamp) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        return new OutgoingRecord(k, k, dev.kafko.Headers.empty(), timestamp);
    }

    /** Records a, b, c at offsets 100, 103 and 110 (holes of 2 and 6), the removed ones written up to time 99. */
    private static byte[] frame(Compression compression) {
        FrameEncoder encoder = new FrameEncoder("t-0", compression, 1 << 20);
        int length = encoder.encodeWithHoles(List.of(record("a", 10), record("b", 20), record("c", 30)),
                new int[] {0, 2, 6}, 100, 99);
        return Arrays.copyOf(encoder.buffer(), length);
    }

    private static List<KafkoRecord> decode(byte[] frame, long from, int max) {
        List<KafkoRecord> out = new ArrayList<>();
        FrameDecoder.decode(frame, 0, frame.length, from, max, "t", 0, out);
        return out;
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"NONE", "LZ4", "ZSTD"})
    void aFrameWithHolesCoversEveryOffsetAndYieldsOnlyItsRecords(Compression compression) {
        byte[] frame = frame(compression);
        assertThat(FrameFormat.hasHoles(frame)).isTrue();
        assertThat(FrameFormat.getInt(frame, FrameFormat.RECORD_COUNT_OFFSET)).isEqualTo(11);
        assertThat(FrameFormat.getLong(frame, FrameFormat.MAX_TIMESTAMP_OFFSET)).as("the removed records' newest")
                .isEqualTo(99);
        assertThat(FrameFormat.plausibleHeader(frame, 0, frame.length)).isTrue();

        assertThat(decode(frame, 0, 100)).extracting(KafkoRecord::offset).containsExactly(100L, 103L, 110L);
        assertThat(decode(frame, 0, 100)).extracting(KafkoRecord::timestamp).containsExactly(10L, 20L, 30L);
        assertThat(decode(frame, 101, 100)).as("from inside a hole").extracting(KafkoRecord::offset)
                .containsExactly(103L, 110L);
        assertThat(decode(frame, 104, 100)).extracting(KafkoRecord::offset).containsExactly(110L);
        assertThat(decode(frame, 0, 2)).extracting(KafkoRecord::offset).containsExactly(100L, 103L);
    }

    @Test
    void aCursorStepsOverTheHolesOneRecordAtATime() {
        byte[] frame = frame(Compression.NONE);
        byte[] header = Arrays.copyOf(frame, FrameFormat.HEADER_SIZE);
        ByteBuffer buf = ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN);
        int[] cursor = {0, 0};
        List<Long> offsets = new ArrayList<>();
        List<Long> nexts = new ArrayList<>();
        for (long from = 100; from < 111; ) {
            List<KafkoRecord> out = new ArrayList<>();
            assertThat(FrameDecoder.decodeSection(header, buf, FrameFormat.HEADER_SIZE, from, 1, "t", 0, out, cursor))
                    .isEqualTo(1);
            offsets.add(out.get(0).offset());
            from = 100 + cursor[0];
            nexts.add(from);
        }
        assertThat(offsets).containsExactly(100L, 103L, 110L);
        assertThat(nexts).as("the next offset after each record").containsExactly(101L, 104L, 111L);
    }

    @Test
    void aFrameWithoutHolesIsWrittenAsAnyOther() {
        FrameEncoder encoder = new FrameEncoder("t-0", Compression.NONE, 1 << 20);
        int length = encoder.encodeWithHoles(List.of(record("a", 10), record("b", 20)), new int[] {0, 0}, 5, 0);
        byte[] withHoles = Arrays.copyOf(encoder.buffer(), length);
        length = encoder.encode(List.of(record("a", 10), record("b", 20)), 5, 0);
        assertThat(withHoles).isEqualTo(Arrays.copyOf(encoder.buffer(), length));
        assertThat(FrameFormat.hasHoles(withHoles)).isFalse();
    }

    /** The frame of {@link #frame} with the int at {@code pos} (of its records section) set to {@code value}. */
    private static byte[] patched(int pos, int value, boolean holesFlag) {
        byte[] frame = frame(Compression.NONE);
        FrameFormat.putInt(frame, FrameFormat.HEADER_SIZE + pos, value);
        if (!holesFlag) {
            frame[FrameFormat.ATTRIBUTES_OFFSET] &= (byte) ~FrameFormat.HOLES_FLAG;
        }
        return frame;
    }

    @Test
    void aHoleWhereNoneMayBeIsDamage() {
        byte[] frame = frame(Compression.NONE);
        int first = FrameFormat.getInt(frame, FrameFormat.HEADER_SIZE); // the body length of record a
        int hole = 4 + first; // the hole of 2 after it
        assertThat(FrameFormat.getInt(frame, FrameFormat.HEADER_SIZE + hole)).isEqualTo(-2);

        assertThatThrownBy(() -> decode(patched(hole, -2, false), 0, 100)).as("no holes flag")
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("body length -2");
        assertThatThrownBy(() -> decode(patched(0, -1, true), 0, 100)).as("a hole before the first record")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> decode(patched(hole, -9, true), 0, 100)).as("a hole past the frame's offsets")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> decode(patched(hole, Integer.MIN_VALUE, true), 0, 100))
                .isInstanceOf(IllegalArgumentException.class);
        byte[] attributes = frame(Compression.NONE);
        attributes[FrameFormat.ATTRIBUTES_OFFSET] |= 0x20;
        assertThat(FrameFormat.plausibleHeader(attributes, 0, attributes.length)).as("an unknown attribute bit")
                .isFalse();
    }
}
