package dev.kafko.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.kafko.KafkoRecord;
import dev.kafko.internal.log.LogBridge;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Fuzzes the frame decoder behind the header checks every reader makes first. The decoder's
 * contract is {@link IllegalArgumentException} for malformed bytes (its one caller, the segment
 * reader, reports it as a {@link dev.kafko.CorruptLogException} naming file and position), so that
 * and {@link dev.kafko.KafkoException} are the only failures allowed. Allocation is bounded in
 * proportion to the size the frame states for its records section: the inflated section, plus one
 * record object (about 64 bytes) for each record of at least 8 bytes in it.
 */
class FrameDecoderFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void decodeFailsOnlyAsDocumentedAndWithinBounds(byte[] data) {
        if (data.length < LogBridge.FRAME_HEADER_SIZE) {
            return;
        }
        byte[] frame = data.clone();
        ByteBuffer b = ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN);
        // the fixed fields a reader checks before decoding: length, magic, version
        b.putInt(0, frame.length);
        b.putShort(8, (short) 0x4B46);
        frame[10] = 1;
        if (!LogBridge.plausibleHeader(frame, frame.length)) {
            return;
        }
        long recordsLength = b.getInt(LogBridge.RECORDS_LENGTH_OFFSET);
        List<KafkoRecord> out = new ArrayList<>();
        Bounds.check(12 * recordsLength + 64L * frame.length + (1 << 20), () -> {
            LogBridge.decode(frame, out);
            for (KafkoRecord r : out) {
                // touching every field proves the decoded positions lie inside the buffer
                r.key();
                r.value();
                r.headers().forEach(h -> h.value());
            }
        }, IllegalArgumentException.class);
    }
}
