package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Compression;
import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The edges of a frame's holes: a hole may not end a frame, and a hole of one offset is one offset. */
class FrameHolesEdgesTest {

    private static OutgoingRecord record(String key, long timestamp) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        return new OutgoingRecord(k, k, Headers.empty(), timestamp);
    }

    private static List<KafkoRecord> decode(byte[] frame, long from) {
        List<KafkoRecord> out = new ArrayList<>();
        FrameDecoder.decode(frame, 0, frame.length, from, 100, "t", 0, out);
        return out;
    }

    /** Records a and b at offsets 100 and 103 (a hole of 2 between them), uncompressed. */
    private static byte[] frame() {
        FrameEncoder encoder = new FrameEncoder("t-0", Compression.NONE, 1 << 20);
        int length = encoder.encodeWithHoles(List.of(record("a", 10), record("b", 20)), new int[] {0, 2}, 100, 0);
        return Arrays.copyOf(encoder.buffer(), length);
    }

    @Test
    void aHoleAfterTheLastRecordIsDamage() {
        byte[] frame = frame();
        assertThat(decode(frame, 0)).extracting(KafkoRecord::offset).containsExactly(100L, 103L);
        // the same frame cut after its hole: a, then a hole of 2 that ends it, covering 100 to 102
        int a = 4 + FrameFormat.getInt(frame, FrameFormat.HEADER_SIZE);
        byte[] cut = Arrays.copyOf(frame, FrameFormat.HEADER_SIZE + a + 4);
        FrameFormat.putInt(cut, FrameFormat.LENGTH_OFFSET, cut.length);
        FrameFormat.putInt(cut, FrameFormat.RECORDS_LENGTH_OFFSET, a + 4);
        FrameFormat.putInt(cut, FrameFormat.RECORD_COUNT_OFFSET, 3);
        assertThat(FrameFormat.getInt(cut, FrameFormat.HEADER_SIZE + a)).isEqualTo(-2);
        assertThatThrownBy(() -> decode(cut, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("body length -2");
    }

    @Test
    void holesOfOneOffsetEachCountOneOffsetEach() {
        FrameEncoder encoder = new FrameEncoder("t-0", Compression.NONE, 1 << 20);
        int length = encoder.encodeWithHoles(List.of(record("a", 10), record("b", 20), record("c", 30)),
                new int[] {0, 1, 1}, 7, 0);
        byte[] frame = Arrays.copyOf(encoder.buffer(), length);
        assertThat(FrameFormat.getInt(frame, FrameFormat.RECORD_COUNT_OFFSET)).isEqualTo(5);
        assertThat(decode(frame, 0)).extracting(KafkoRecord::offset).containsExactly(7L, 9L, 11L);
        assertThat(decode(frame, 10)).extracting(KafkoRecord::offset).containsExactly(11L);
    }
}
