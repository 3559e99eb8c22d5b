package dev.kafko.internal.log;

import static dev.kafko.internal.log.FrameFormat.ATTRIBUTES_OFFSET;
import static dev.kafko.internal.log.FrameFormat.BASE_OFFSET_OFFSET;
import static dev.kafko.internal.log.FrameFormat.CODEC_MASK;
import static dev.kafko.internal.log.FrameFormat.FIRST_TIMESTAMP_OFFSET;
import static dev.kafko.internal.log.FrameFormat.HEADER_SIZE;
import static dev.kafko.internal.log.FrameFormat.RECORDS_LENGTH_OFFSET;
import static dev.kafko.internal.log.FrameFormat.RECORD_COUNT_OFFSET;

import dev.kafko.Compression;
import dev.kafko.KafkoRecord;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Internal: turns the records section of one CRC-checked frame into {@link LogRecord}s, inflating
 * it first when the frame is compressed. The records of an uncompressed frame slice the buffer they
 * were decoded from (usually a read-only view of the mapped segment), so a read copies no record
 * bytes. Stateless; any thread. Malformed bytes raise {@link IllegalArgumentException}, which the
 * caller reports as a {@link dev.kafko.CorruptLogException} naming the file and position.
 */
final class FrameDecoder {

    private FrameDecoder() {
    }

    /**
     * Appends the records of the frame at {@code buf[pos, pos + length)} whose offset is at least
     * {@code from} to {@code out}, at most {@code max} of them; returns how many were added.
     */
    static int decode(byte[] buf, int pos, int length, long from, int max, String topic, int partition,
            List<KafkoRecord> out) {
        return decode(ByteBuffer.wrap(buf).order(ByteOrder.LITTLE_ENDIAN), pos, length, from, max, topic, partition,
                out);
    }

    /**
     * Appends the records of the frame at {@code buf[pos, pos + length)} (absolute indexes of a
     * little-endian buffer, which the records keep: its bytes must never change) whose offset is at
     * least {@code from} to {@code out}, at most {@code max} of them; returns how many were added.
     */
    static int decode(ByteBuffer buf, int pos, int length, long from, int max, String topic, int partition,
            List<KafkoRecord> out) {
        byte[] header = new byte[HEADER_SIZE];
        buf.get(pos, header);
        if (FrameFormat.isGap(header)) {
            return 0; // offsets whose records compaction removed
        }
        ByteBuffer section = section(buf, pos, length);
        return decodeSection(header, section, section == buf ? pos + HEADER_SIZE : 0, from, max, topic, partition,
                out);
    }

    /**
     * The records section of the frame at {@code buf[pos, pos + length)}: {@code buf} itself for an
     * uncompressed frame (the section starts after the header), else a new buffer of the inflated
     * records (the section starts at 0), which the records decoded from it keep.
     */
    static ByteBuffer section(ByteBuffer buf, int pos, int length) {
        int recordsLength = buf.getInt(pos + RECORDS_LENGTH_OFFSET);
        int codecId = buf.get(pos + ATTRIBUTES_OFFSET) & CODEC_MASK;
        Compression compression = Compression.fromId(codecId);
        if (compression == null) {
            throw new IllegalArgumentException("unknown codec id " + codecId);
        }
        if (compression == Compression.NONE) {
            if (recordsLength != length - HEADER_SIZE) {
                throw new IllegalArgumentException("records length " + recordsLength + " does not match frame length "
                        + length);
            }
            return buf;
        }
        byte[] src;
        int off;
        if (buf.hasArray()) {
            src = buf.array();
            off = buf.arrayOffset() + pos + HEADER_SIZE;
        } else {
            src = new byte[length - HEADER_SIZE];
            buf.get(pos + HEADER_SIZE, src);
            off = 0;
        }
        Codec codec = Codec.of(compression);
        return ByteBuffer.wrap(codec.decompress(src, off, length - HEADER_SIZE, recordsLength))
                .order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Appends the records of a frame whose header is {@code header[0, HEADER_SIZE)} and whose records
     * section ({@link #section}) starts at {@code section[start]}, as {@link #decode} does; not for a gap frame,
     * which the caller passes over (it has no records section).
     */
    static int decodeSection(byte[] header, ByteBuffer section, int start, long from, int max, String topic,
            int partition, List<KafkoRecord> out) {
        return decodeSection(header, section, start, from, max, topic, partition, out, new int[] {0, 0});
    }

    /**
     * {@link #decodeSection(byte[], ByteBuffer, int, long, int, String, int, List)} from a cursor: {@code
     * cursor} holds the index of a record of the frame and its position relative to {@code start}, at or
     * before the record of offset {@code from} (a reader's previous read of this frame ended there; {0, 0}
     * for the first record), and gets the index and position of the record after the last one added: a
     * reader polling through a large frame does not walk it from its first record at every poll.
     */
    static int decodeSection(byte[] header, ByteBuffer section, int start, long from, int max, String topic,
            int partition, List<KafkoRecord> out, int[] cursor) {
        return decodeRecords(section, start, start + FrameFormat.getInt(header, RECORDS_LENGTH_OFFSET),
                FrameFormat.getLong(header, BASE_OFFSET_OFFSET), FrameFormat.getInt(header, RECORD_COUNT_OFFSET),
                FrameFormat.getLong(header, FIRST_TIMESTAMP_OFFSET), FrameFormat.hasHoles(header), from, max, topic,
                partition, out, cursor);
    }

    private static int decodeRecords(ByteBuffer b, int start, int end, long base, int count, long firstTs,
            boolean holes, long from, int max, String topic, int partition, List<KafkoRecord> out, int[] cursor) {
        int added = 0;
        int i = cursor[0];
        int p = start + cursor[1];
        if (i < 0 || i > count || p < start || p > end || base + i > Math.max(from, base)) {
            throw malformed("cursor at record " + i + ", position " + cursor[1] + " is outside the frame");
        }
        for (; i < count && added < max; i++) {
            // the body's length, then (when 8 bytes are left) its first byte, the timestamp delta, and its second
            long w = end - p >= 8 ? b.getLong(p) : -1L;
            int body = end - p >= 8 ? (int) w : end - p >= 4 ? b.getInt(p) : -1;
            if (body < 0 || body > end - p - 4) {
                if (holes && body < 0 && end - p >= 4 && body != Integer.MIN_VALUE && i > 0 && -body < count - i) {
                    // a hole: the offsets of removed records, between two records
                    i += -body - 1;
                    p += 4;
                    continue;
                }
                throw malformed(end - p < 4 ? "record " + i + " of " + count + " runs past the records section"
                        : "record " + i + " has a body length " + body + " out of bounds");
            }
            int bodyEnd = p + 4 + body;
            long offset = base + i;
            if (offset >= from) {
                LogRecord r = shortFieldsRecord(b, w, p, bodyEnd, offset, firstTs, topic, partition);
                out.add(r != null ? r : record(b, p + 4, bodyEnd, offset, firstTs, topic, partition));
                added++;
            }
            p = bodyEnd;
        }
        if (holes && i == count && p != end) {
            // holes that claim more offsets than they leave records for
            throw malformed((end - p) + " bytes of the records section are left after its last offset");
        }
        cursor[0] = i;
        cursor[1] = p - start;
        return added;
    }

    /**
     * The record of {@code offset} whose body is {@code b[p + 4, bodyEnd)} when its timestamp delta, key length
     * and header count are one-byte varints and its value length one or two bytes (every record of a value below
     * 16 KiB, a key below 127 bytes and fewer than 128 headers written within 63 ms of its frame's first), read
     * from {@code w} (the little-endian long at {@code p}) and two more reads; otherwise null, and {@link #record}
     * decodes it, or fails, with every field checked. The same positions as {@link #record} wherever this
     * returns one.
     */
    private static @Nullable LogRecord shortFieldsRecord(ByteBuffer b, long w, int p, int bodyEnd, long offset,
            long firstTs, String topic, int partition) {
        int t = (byte) (w >>> 32);
        int k = (byte) (w >>> 40) - 1;
        // the key leaves two bytes of the body at least: the value's length and the header count
        if (t < 0 || k < -1 || Math.max(k, 0) > bodyEnd - p - 8) {
            return null;
        }
        int keyPos = p + 6;
        int at = keyPos + Math.max(k, 0);
        int lengthBytes = b.getShort(at);
        int v = (byte) lengthBytes;
        int valuePos = at + 1;
        if (v < 0) {
            int high = lengthBytes >> 8;
            if (high < 0 || bodyEnd - at < 3) {
                return null;
            }
            v = v & 0x7F | high << 7;
            valuePos = at + 2;
        }
        v--;
        int valueLen = Math.max(v, 0);
        // the value leaves one byte of the body at least: the header count
        if (valueLen >= bodyEnd - valuePos) {
            return null;
        }
        int headersAt = valuePos + valueLen;
        int headerCount = b.get(headersAt);
        int headersPos = headersAt + 1;
        if (headerCount < 0 || (headerCount == 0 ? headersPos : skipHeaders(b, headersPos, bodyEnd, headerCount))
                != bodyEnd) {
            return null;
        }
        return new LogRecord(topic, partition, offset, firstTs + ((t >>> 1) ^ -(t & 1)), b, k < 0 ? -1 : keyPos,
                Math.max(k, 0), v < 0 ? -1 : valuePos, valueLen, headersPos, headerCount);
    }

    /** The record of {@code offset} whose body is {@code b[q, bodyEnd)}. */
    private static LogRecord record(ByteBuffer b, int q, int bodyEnd, long offset, long firstTs, String topic,
            int partition) {
        long zz;
        byte first = q < bodyEnd ? b.get(q) : -1;
        if (first >= 0) {
            // one byte: records of one frame are seldom more than 63 ms apart
            zz = first;
            q++;
        } else {
            int[] cur = {q};
            zz = readVarlong(b, cur, bodyEnd);
            q = cur[0];
        }
        long ts = firstTs + ((zz >>> 1) ^ -(zz & 1));
        long r = varint(b, q, bodyEnd);
        int k = (int) (r >>> 32) - 1;
        q = (int) r;
        int keyPos = -1;
        if (k >= 0) {
            keyPos = q;
            q = skip(q, k, bodyEnd);
        }
        r = varint(b, q, bodyEnd);
        int v = (int) (r >>> 32) - 1;
        q = (int) r;
        int valuePos = -1;
        if (v >= 0) {
            valuePos = q;
            q = skip(q, v, bodyEnd);
        }
        r = varint(b, q, bodyEnd);
        int headerCount = (int) (r >>> 32);
        q = (int) r;
        int headersPos = q;
        if (headerCount > 0) {
            q = skipHeaders(b, q, bodyEnd, headerCount);
        }
        if (q != bodyEnd) {
            throw malformed("record at offset " + offset + " has " + (bodyEnd - q) + " unexpected trailing bytes");
        }
        return new LogRecord(topic, partition, offset, ts, b, keyPos, Math.max(k, 0), valuePos, Math.max(v, 0),
                headersPos, headerCount);
    }

    /** The position after the {@code count} headers at {@code q}. */
    private static int skipHeaders(ByteBuffer b, int q, int bodyEnd, int count) {
        for (int h = 0; h < count; h++) {
            long r = varint(b, q, bodyEnd);
            q = skip((int) r, (int) (r >>> 32), bodyEnd);
            r = varint(b, q, bodyEnd);
            int hv = (int) (r >>> 32) - 1;
            q = (int) r;
            if (hv >= 0) {
                q = skip(q, hv, bodyEnd);
            }
        }
        return q;
    }

    private static IllegalArgumentException malformed(String detail) {
        return new IllegalArgumentException(detail);
    }

    /** The position {@code n} bytes past {@code at}, which must not pass {@code end}. */
    private static int skip(int at, int n, int end) {
        if (n < 0 || n > end - at) {
            throw malformed("a length of " + n + " runs past the record");
        }
        return at + n;
    }

    /**
     * Reads an unsigned varint at {@code q}: its value (never negative) in the high 32 bits of the result,
     * the position after it in the low 32. Lengths below 16 KiB take one or two reads.
     */
    private static long varint(ByteBuffer b, int q, int end) {
        if (q < end) {
            byte x = b.get(q);
            if (x >= 0) {
                return (long) x << 32 | q + 1;
            }
            if (q + 1 < end) {
                byte y = b.get(q + 1);
                if (y >= 0) {
                    return (long) (x & 0x7F | y << 7) << 32 | q + 2;
                }
            }
        }
        int[] cur = {q};
        int v = readVarint(b, cur, end);
        return (long) v << 32 | cur[0];
    }

    /** Reads an unsigned varint at {@code cur[0]}, advancing it; the result is never negative. */
    static int readVarint(ByteBuffer b, int[] cur, int end) {
        int p = cur[0];
        if (p < end) {
            byte x = b.get(p);
            if (x >= 0) {
                // one byte: every length below 128
                cur[0] = p + 1;
                return x;
            }
        }
        long v = readVarlong(b, cur, end);
        if (v < 0 || v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("varint out of range: " + v);
        }
        return (int) v;
    }

    static long readVarlong(ByteBuffer b, int[] cur, int end) {
        int p = cur[0];
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (p >= end) {
                throw new IllegalArgumentException("varint runs past the record");
            }
            byte x = b.get(p++);
            v |= (long) (x & 0x7F) << shift;
            if (x >= 0) {
                cur[0] = p;
                return v;
            }
        }
        throw new IllegalArgumentException("varint longer than 10 bytes");
    }
}
