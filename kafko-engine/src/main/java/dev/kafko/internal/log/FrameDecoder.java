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
     * section ({@link #section}) starts at {@code section[start]}, as {@link #decode} does.
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
                FrameFormat.getLong(header, FIRST_TIMESTAMP_OFFSET), from, max, topic, partition, out, cursor);
    }

    private static int decodeRecords(ByteBuffer b, int start, int end, long base, int count, long firstTs, long from,
            int max, String topic, int partition, List<KafkoRecord> out, int[] cursor) {
        int added = 0;
        int[] cur = new int[1];
        int i = cursor[0];
        int p = start + cursor[1];
        if (i < 0 || i > count || p < start || p > end || base + i > Math.max(from, base)) {
            throw new IllegalArgumentException("cursor at record " + i + ", position " + cursor[1] + " is outside the frame");
        }
        for (; i < count && added < max; i++) {
            if (end - p < 4) {
                throw new IllegalArgumentException("record " + i + " of " + count + " runs past the records section");
            }
            int body = b.getInt(p);
            int bodyEnd = p + 4 + body;
            if (body < 0 || bodyEnd > end || bodyEnd < 0) {
                throw new IllegalArgumentException("record " + i + " has a body length " + body + " out of bounds");
            }
            long offset = base + i;
            if (offset >= from) {
                cur[0] = p + 4;
                long zz = readVarlong(b, cur, bodyEnd);
                long ts = firstTs + ((zz >>> 1) ^ -(zz & 1));
                int k = readVarint(b, cur, bodyEnd) - 1;
                int keyPos = k < 0 ? -1 : skip(cur, k, bodyEnd);
                int v = readVarint(b, cur, bodyEnd) - 1;
                int valuePos = v < 0 ? -1 : skip(cur, v, bodyEnd);
                int headerCount = readVarint(b, cur, bodyEnd);
                int headersPos = cur[0];
                for (int h = 0; h < headerCount; h++) {
                    skip(cur, readVarint(b, cur, bodyEnd), bodyEnd);
                    int hv = readVarint(b, cur, bodyEnd) - 1;
                    if (hv >= 0) {
                        skip(cur, hv, bodyEnd);
                    }
                }
                if (cur[0] != bodyEnd) {
                    throw new IllegalArgumentException("record at offset " + offset + " has " + (bodyEnd - cur[0])
                            + " unexpected trailing bytes");
                }
                out.add(new LogRecord(topic, partition, offset, ts, b, keyPos, Math.max(k, 0), valuePos, Math.max(v, 0),
                        headersPos, headerCount));
                added++;
            }
            p = bodyEnd;
        }
        cursor[0] = i;
        cursor[1] = p - start;
        return added;
    }

    private static int skip(int[] cur, int n, int end) {
        int at = cur[0];
        if (n < 0 || n > end - at) {
            throw new IllegalArgumentException("a length of " + n + " runs past the record");
        }
        cur[0] = at + n;
        return at;
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
