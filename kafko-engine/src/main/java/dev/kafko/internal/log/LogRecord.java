package dev.kafko.internal.log;

import dev.kafko.Header;
import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Internal: a record read from a frame. It slices the bytes of its frame (already CRC-checked and,
 * if compressed, inflated into a byte array; otherwise a read-only view of the mapped segment, whose
 * published bytes never change and stay readable after the segment is deleted) and copies key,
 * value and headers out only when asked, so a read costs one small object per record (and a kept
 * record keeps its segment's mapping, even of a deleted file, until it is garbage). Immutable;
 * any thread: it only uses the buffer's absolute getters and never moves its position or limit.
 */
final class LogRecord implements KafkoRecord {

    private final String topic;
    private final int partition;
    private final long offset;
    private final long timestamp;
    private final ByteBuffer buf;
    /** -1 when the key is null. */
    private final int keyPos;
    private final int keyLen;
    /** -1 when the value is null. */
    private final int valuePos;
    private final int valueLen;
    private final int headersPos;
    private final int headerCount;

    LogRecord(String topic, int partition, long offset, long timestamp, ByteBuffer buf, int keyPos, int keyLen,
            int valuePos, int valueLen, int headersPos, int headerCount) {
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
        this.timestamp = timestamp;
        this.buf = buf;
        this.keyPos = keyPos;
        this.keyLen = keyLen;
        this.valuePos = valuePos;
        this.valueLen = valueLen;
        this.headersPos = headersPos;
        this.headerCount = headerCount;
    }

    /** The buffer this record slices (a frame's records section); for tests. */
    ByteBuffer buffer() {
        return buf;
    }

    @Override
    public String topic() {
        return topic;
    }

    @Override
    public int partition() {
        return partition;
    }

    @Override
    public long offset() {
        return offset;
    }

    @Override
    public long timestamp() {
        return timestamp;
    }

    @Override
    public byte @Nullable [] key() {
        return keyPos < 0 ? null : copy(keyPos, keyLen);
    }

    @Override
    public byte @Nullable [] value() {
        return valuePos < 0 ? null : copy(valuePos, valueLen);
    }

    private byte[] copy(int pos, int len) {
        byte[] out = new byte[len];
        buf.get(pos, out);
        return out;
    }

    /** The value's length in bytes, or -1 for a null value; copies nothing. */
    int valueLength() {
        return valuePos < 0 ? -1 : valueLen;
    }

    @Override
    public Headers headers() {
        if (headerCount == 0) {
            return Headers.empty();
        }
        // the layout was validated when this record was decoded
        Header[] out = new Header[headerCount];
        int[] pos = {headersPos};
        for (int i = 0; i < headerCount; i++) {
            int keyLength = FrameDecoder.readVarint(buf, pos, buf.limit());
            String key = new String(copy(pos[0], keyLength), StandardCharsets.UTF_8);
            pos[0] += keyLength;
            int v = FrameDecoder.readVarint(buf, pos, buf.limit());
            byte[] value = null;
            if (v > 0) {
                value = copy(pos[0], v - 1);
                pos[0] += v - 1;
            }
            out[i] = new Header(key, value);
        }
        return Headers.of(out);
    }

    @Override
    public String toString() {
        return "LogRecord[" + topic + "-" + partition + "@" + offset + ", ts=" + timestamp + ", key="
                + (keyPos < 0 ? "null" : keyLen + " bytes") + ", value=" + (valuePos < 0 ? "null" : valueLen + " bytes")
                + ", headers=" + headerCount + "]";
    }
}
