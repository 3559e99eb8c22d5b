package dev.kafko.internal.log;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Internal: the byte layout of a segment file and of the frames in it, as named constants and the
 * little-endian accessors every reader and writer uses. Stateless; any thread.
 *
 * <p>A segment file starts with a 16-byte header, then holds frames back to back. Bytes after the
 * last frame are zeros (blocks allocated ahead of the writer); a frame whose length field is 0
 * marks the end of the log. All numbers are little-endian.
 *
 * <pre>
 * segment header (16 bytes)
 *  offset size field
 *   0      4   magic           0x4B464B53 ("KFKS" read as big-endian bytes 'S','K','F','K')
 *   4      2   version         1
 *   6      2   reserved        0
 *   8      8   baseOffset      offset of the first record; equals the 20-digit file name
 *
 * frame (one append of one or more records)
 *  offset size field
 *   0      4   length          bytes of the whole frame, this field included; 0 = end of log
 *   4      4   crc             CRC32C over bytes [0, 4) and [8, length)
 *   8      2   magic           0x4B46
 *  10      1   version         1
 *  11      1   attributes      bits 0-2: codec id (0 none, 1 lz4, 2 zstd); bit 3: gap; bit 4: holes; bits 5-7: 0
 *  12      8   baseOffset      offset of the first record
 *  20      4   recordCount     at least 1: the offsets it covers (with holes or a gap, more than its records)
 *  24      8   firstTimestamp  timestamp of the first record (epoch ms)
 *  32      8   maxTimestamp    largest timestamp in the frame
 *  40      4   recordsLength   length of the records section before compression
 *  44      -   records         recordsLength bytes (codec none) or the codec's block (to length)
 *
 * record (inside the records section, after decompression)
 *   int32      bodyLength      bytes of the record after this field
 *   varlong    timestampDelta  zigzag, relative to firstTimestamp
 *   varint     keyLength + 1   0 = null key (distinct from an empty key)
 *   bytes      key
 *   varint     valueLength + 1 0 = null value (a tombstone)
 *   bytes      value
 *   varint     headerCount
 *   per header: varint keyLength, UTF-8 key, varint valueLength + 1 (0 = null), value
 *
 * hole (inside the records section of a frame with attribute bit 4, between two records)
 *   int32      -count          the offsets after the record before it whose records compaction removed
 * </pre>
 *
 * <p>A gap frame (attribute bit 3) holds no records: it stands for {@code recordCount} offsets from
 * {@code baseOffset} whose records compaction removed, so that the frames of a segment still cover every
 * offset from its base to the next segment's, and a missing frame is still damage. Its codec is 0, its
 * {@code recordsLength} 0 and its length {@link #HEADER_SIZE}; its timestamps are those of the records it
 * replaced (the segment's newest timestamp, which retention goes by, does not change).
 *
 * <p>A frame with holes (attribute bit 4, written only by compaction) holds, between two of its records, the
 * offsets of removed records as a hole: four bytes for any number of offsets, where a gap frame would end the frame
 * and take a header of its own, and a third frame the records after it. Its {@code recordCount} counts every offset
 * from its base to the end of its last record, holes included; its {@code maxTimestamp} also counts the timestamps
 * of the records its holes replaced.
 *
 * <p>Varints are unsigned LEB128 (7 bits per byte, low groups first); zigzag maps signed to unsigned.
 */
final class FrameFormat {

    static final int SEGMENT_MAGIC = 0x4B464B53;
    static final short SEGMENT_VERSION = 1;
    static final int SEGMENT_HEADER_SIZE = 16;
    static final int SEGMENT_MAGIC_OFFSET = 0;
    static final int SEGMENT_VERSION_OFFSET = 4;
    static final int SEGMENT_BASE_OFFSET_OFFSET = 8;

    static final int LENGTH_OFFSET = 0;
    static final int CRC_OFFSET = 4;
    static final int MAGIC_OFFSET = 8;
    static final int VERSION_OFFSET = 10;
    static final int ATTRIBUTES_OFFSET = 11;
    static final int BASE_OFFSET_OFFSET = 12;
    static final int RECORD_COUNT_OFFSET = 20;
    static final int FIRST_TIMESTAMP_OFFSET = 24;
    static final int MAX_TIMESTAMP_OFFSET = 32;
    static final int RECORDS_LENGTH_OFFSET = 40;
    static final int HEADER_SIZE = 44;

    static final short FRAME_MAGIC = 0x4B46;
    static final byte FRAME_VERSION = 1;
    static final int CODEC_MASK = 0x07;
    /** The attribute bit of a gap frame (see the class comment). */
    static final int GAP_FLAG = 0x08;
    /** The attribute bit of a frame whose records section may hold holes (see the class comment). */
    static final int HOLES_FLAG = 0x10;

    /** The largest records section (before compression) a frame may hold; larger batches are refused. */
    static final int MAX_RECORDS_LENGTH = 256 * 1024 * 1024;
    /** The largest frame on disk. */
    static final int MAX_FRAME_LENGTH = MAX_RECORDS_LENGTH + (MAX_RECORDS_LENGTH >>> 6) + 1024;

    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private FrameFormat() {
    }

    /** Whether the frame header in {@code h} is a gap frame's (see the class comment). */
    static boolean isGap(byte[] h) {
        return h[ATTRIBUTES_OFFSET] == GAP_FLAG;
    }

    /** Whether the frame header in {@code h} is of a frame whose records section may hold holes. */
    static boolean hasHoles(byte[] h) {
        return (h[ATTRIBUTES_OFFSET] & HOLES_FLAG) != 0;
    }

    static short getShort(byte[] b, int pos) {
        return (short) SHORT.get(b, pos);
    }

    static void putShort(byte[] b, int pos, short v) {
        SHORT.set(b, pos, v);
    }

    static int getInt(byte[] b, int pos) {
        return (int) INT.get(b, pos);
    }

    static void putInt(byte[] b, int pos, int v) {
        INT.set(b, pos, v);
    }

    static long getLong(byte[] b, int pos) {
        return (long) LONG.get(b, pos);
    }

    static void putLong(byte[] b, int pos, long v) {
        LONG.set(b, pos, v);
    }

    /** The CRC32C a frame of {@code length} bytes at {@code pos} must carry. */
    static int frameCrc(CRC32C crc, byte[] b, int pos, int length) {
        crc.reset();
        crc.update(b, pos + LENGTH_OFFSET, 4);
        crc.update(b, pos + MAGIC_OFFSET, length - MAGIC_OFFSET);
        return (int) crc.getValue();
    }

    /**
     * The CRC32C a frame of {@code length} bytes at absolute index {@code pos} of {@code b} must
     * carry; moves {@code b}'s position and limit (pass a duplicate of a shared buffer). On a direct
     * buffer (a mapped segment) the checksum runs over the mapping itself, with no copy.
     */
    static int frameCrc(CRC32C crc, ByteBuffer b, int pos, int length) {
        crc.reset();
        b.limit(pos + CRC_OFFSET).position(pos + LENGTH_OFFSET);
        crc.update(b);
        b.limit(pos + length).position(pos + MAGIC_OFFSET);
        crc.update(b);
        return (int) crc.getValue();
    }

    /**
     * Whether the fixed fields of a frame header at {@code pos} are plausible: magic, version, a
     * known codec (with or without holes; or a gap frame's attributes, length and records length), a length within bounds and a positive
     * record count. The CRC is checked separately.
     */
    static boolean plausibleHeader(byte[] b, int pos, int length) {
        return length >= HEADER_SIZE && length <= MAX_FRAME_LENGTH
                && getShort(b, pos + MAGIC_OFFSET) == FRAME_MAGIC
                && b[pos + VERSION_OFFSET] == FRAME_VERSION
                && ((b[pos + ATTRIBUTES_OFFSET] & ~(CODEC_MASK | HOLES_FLAG)) == 0
                        || b[pos + ATTRIBUTES_OFFSET] == GAP_FLAG && length == HEADER_SIZE
                        && getInt(b, pos + RECORDS_LENGTH_OFFSET) == 0)
                && getInt(b, pos + RECORD_COUNT_OFFSET) > 0
                && getInt(b, pos + RECORDS_LENGTH_OFFSET) >= 0
                && getInt(b, pos + RECORDS_LENGTH_OFFSET) <= MAX_RECORDS_LENGTH;
    }
}
