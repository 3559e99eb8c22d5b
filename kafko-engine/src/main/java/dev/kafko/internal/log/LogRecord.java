package dev.kafko.internal.log;

import dev.kafko.Header;
import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Internal: a record read from a frame. It slices the byte array of one read (already CRC-checked
 * and, if compressed, inflated) and copies key, value and headers out only when asked, so a read
 * costs one small object per record. Immutable; any thread.
 */
final class LogRecord implements KafkoRecord {

    private final String topic;
    private final int partition;
    private final long offset;
    private final long timestamp;
    private final byte[] buf;
    /** -1 when the key is null. */
    private final int keyPos;
    private final int keyLen;
    /** -1 when the value is null. */
    private final int valuePos;
    private final int valueLen;
    private final int headersPos;
    private final int headerCount;

    LogRecord(String topic, int partition, long offset, long timestamp, byte[] buf, int keyPos, int keyLen,
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
        return keyPos < 0 ? null : Arrays.copyOfRange(buf, keyPos, keyPos + keyLen);
    }

    @Override
    public byte @Nullable [] value() {
        return valuePos < 0 ? null : Arrays.copyOfRange(buf, valuePos, valuePos + valueLen);
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
            int keyLength = FrameDecoder.readVarint(buf, pos, buf.length);
            String key = new String(buf, pos[0], keyLength, StandardCharsets.UTF_8);
            pos[0] += keyLength;
            int v = FrameDecoder.readVarint(buf, pos, buf.length);
            byte[] value = null;
            if (v > 0) {
                value = Arrays.copyOfRange(buf, pos[0], pos[0] + v - 1);
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
