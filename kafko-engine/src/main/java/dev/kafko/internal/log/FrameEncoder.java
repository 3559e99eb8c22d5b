package dev.kafko.internal.log;

import static dev.kafko.internal.log.FrameFormat.ATTRIBUTES_OFFSET;
import static dev.kafko.internal.log.FrameFormat.BASE_OFFSET_OFFSET;
import static dev.kafko.internal.log.FrameFormat.CRC_OFFSET;
import static dev.kafko.internal.log.FrameFormat.FIRST_TIMESTAMP_OFFSET;
import static dev.kafko.internal.log.FrameFormat.FRAME_MAGIC;
import static dev.kafko.internal.log.FrameFormat.FRAME_VERSION;
import static dev.kafko.internal.log.FrameFormat.HEADER_SIZE;
import static dev.kafko.internal.log.FrameFormat.LENGTH_OFFSET;
import static dev.kafko.internal.log.FrameFormat.MAGIC_OFFSET;
import static dev.kafko.internal.log.FrameFormat.MAX_RECORDS_LENGTH;
import static dev.kafko.internal.log.FrameFormat.MAX_TIMESTAMP_OFFSET;
import static dev.kafko.internal.log.FrameFormat.RECORDS_LENGTH_OFFSET;
import static dev.kafko.internal.log.FrameFormat.RECORD_COUNT_OFFSET;
import static dev.kafko.internal.log.FrameFormat.VERSION_OFFSET;

import dev.kafko.Compression;
import dev.kafko.Header;
import dev.kafko.Headers;
import dev.kafko.OutgoingRecord;
import dev.kafko.RecordTooLargeException;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * Internal: encodes one append into one frame (layout in {@link FrameFormat}) in a reusable buffer.
 * Owned by the log's writer: one thread at a time, no allocation once the buffers have grown to
 * the largest frame seen.
 */
final class FrameEncoder implements AutoCloseable {

    private final Compression compression;
    /** Created on the first append, so that a log whose codec is missing still opens for reading. */
    private Codec.@Nullable Compressor compressor;
    private final int maxRecordBytes;
    private final CRC32C crc = new CRC32C();
    private final String partitionName;
    /** The encoded frame: {@code frame[0, length)}. */
    private byte[] frame = new byte[INITIAL_FRAME_BYTES];
    /** The uncompressed records section when a codec is in use. */
    private byte[] records = new byte[0];
    private int length;
    private long maxTimestamp;
    /**
     * The batch being encoded, and the index of the first of its records not yet encoded (-1 when no
     * batch is): a buffer that must grow grows at once to what the rest of the batch may take (see
     * {@link #grownFor}).
     */
    private @Nullable List<OutgoingRecord> batch;
    private int batchRest = -1;

    FrameEncoder(String partitionName, Compression compression, int maxRecordBytes) {
        this.partitionName = partitionName;
        this.compression = compression;
        this.maxRecordBytes = maxRecordBytes;
    }

    /**
     * The frame buffer's first size: it grows with the frames this partition writes (a lingering chain
     * takes 64 KiB), so that an idle partition holds 1 KiB, not 64 (10,000 partitions held 665 MB).
     */
    private static final int INITIAL_FRAME_BYTES = 1024;

    /** Buffers above this size are dropped after use, so one huge batch does not pin memory per partition. */
    private static final int KEEP_BUFFER_BYTES = 4 << 20;

    /** What a buffer is dropped to: the next encode grows it as it needs (see {@link #grow}). */
    private static final byte[] NO_BYTES = new byte[0];

    /**
     * Drops buffers a rare huge frame grew beyond {@link #KEEP_BUFFER_BYTES}. Allocates nothing: it runs after the
     * frame was published, where an {@link OutOfMemoryError} would fail a send whose records are in the log.
     */
    void trim() {
        if (frame.length > KEEP_BUFFER_BYTES) {
            frame = NO_BYTES;
        }
        if (records.length > KEEP_BUFFER_BYTES) {
            records = NO_BYTES;
        }
    }

    /** The buffer holding the last encoded frame, valid until the next encode. */
    byte[] buffer() {
        return frame;
    }

    int length() {
        return length;
    }

    long maxTimestamp() {
        return maxTimestamp;
    }

    /** Encodes {@code batch} as one frame whose first record gets {@code baseOffset}; returns its length. */
    int encode(List<OutgoingRecord> batch, long baseOffset, long now) {
        prepareCodec();
        int n = batch.size();
        if (n == 0) {
            throw new IllegalArgumentException("an append needs at least one record");
        }
        long first = timestampOf(batch.get(0), now);
        int start = compressor == null ? HEADER_SIZE : 0;
        int pos = start;
        long max = Long.MIN_VALUE;
        this.batch = batch;
        try {
            for (int i = 0; i < n; i++) {
                OutgoingRecord r = batch.get(i);
                long ts = timestampOf(r, now);
                max = Math.max(max, ts);
                batchRest = i + 1;
                pos = encodeRecord(r, ts - first, pos, start);
            }
        } finally {
            batchRest = -1;
            this.batch = null;
        }
        return finish(baseOffset, n, first, max, pos - start, compression.id());
    }

    /**
     * Encodes the kept records {@code batch} of a compacted segment as one frame with holes ({@link FrameFormat}):
     * {@code holesBefore[i]} offsets of removed records before record {@code i} (0 for the first, which gets
     * {@code baseOffset}); the frame's newest timestamp is at least {@code maxTimestamp}, the removed records'.
     * Returns its length.
     */
    int encodeWithHoles(List<OutgoingRecord> batch, int[] holesBefore, long baseOffset, long maxTimestamp) {
        prepareCodec();
        int n = batch.size();
        if (n == 0 || holesBefore[0] != 0) {
            throw new IllegalArgumentException("a frame with holes begins with a record");
        }
        long first = batch.get(0).timestamp();
        int start = compressor == null ? HEADER_SIZE : 0;
        int pos = start;
        long max = maxTimestamp;
        long count = n;
        this.batch = batch;
        try {
            for (int i = 0; i < n; i++) {
                if (holesBefore[i] > 0) {
                    FrameFormat.putInt(ensureRecords(pos + 4L), pos, -holesBefore[i]);
                    pos += 4;
                    count += holesBefore[i];
                }
                OutgoingRecord r = batch.get(i);
                max = Math.max(max, r.timestamp());
                batchRest = i + 1;
                pos = encodeRecord(r, r.timestamp() - first, pos, start);
            }
        } finally {
            batchRest = -1;
            this.batch = null;
        }
        if (count > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a frame covers at most " + Integer.MAX_VALUE + " offsets, was " + count);
        }
        return finish(baseOffset, (int) count, first, max, pos - start,
                count > n ? compression.id() | FrameFormat.HOLES_FLAG : compression.id());
    }

    /** Encodes a single record as one frame; avoids the list for the one-record path. */
    int encode(OutgoingRecord record, long baseOffset, long now) {
        prepareCodec();
        long ts = timestampOf(record, now);
        int start = compressor == null ? HEADER_SIZE : 0;
        int end = encodeRecord(record, 0, start, start);
        return finish(baseOffset, 1, ts, ts, end - start, compression.id());
    }

    /**
     * Encodes a gap frame ({@link FrameFormat}): {@code count} offsets from {@code baseOffset} whose records
     * compaction removed, the newest of them written at {@code maxTimestamp}; returns its length.
     */
    int encodeGap(long baseOffset, int count, long firstTimestamp, long maxTimestamp) {
        if (count < 1) {
            throw new IllegalArgumentException("a gap covers at least one offset, was " + count);
        }
        ensureFrame(HEADER_SIZE);
        byte[] f = frame;
        FrameFormat.putInt(f, LENGTH_OFFSET, HEADER_SIZE);
        FrameFormat.putShort(f, MAGIC_OFFSET, FRAME_MAGIC);
        f[VERSION_OFFSET] = FRAME_VERSION;
        f[ATTRIBUTES_OFFSET] = (byte) FrameFormat.GAP_FLAG;
        FrameFormat.putLong(f, BASE_OFFSET_OFFSET, baseOffset);
        FrameFormat.putInt(f, RECORD_COUNT_OFFSET, count);
        FrameFormat.putLong(f, FIRST_TIMESTAMP_OFFSET, firstTimestamp);
        FrameFormat.putLong(f, MAX_TIMESTAMP_OFFSET, maxTimestamp);
        FrameFormat.putInt(f, RECORDS_LENGTH_OFFSET, 0);
        FrameFormat.putInt(f, CRC_OFFSET, FrameFormat.frameCrc(crc, f, 0, HEADER_SIZE));
        length = HEADER_SIZE;
        this.maxTimestamp = maxTimestamp;
        return HEADER_SIZE;
    }

    /** Loads the codec on first use; throws {@link dev.kafko.CompressionUnavailableException} when it is missing. */
    private void prepareCodec() {
        if (compressor == null && compression != Compression.NONE) {
            Codec codec = Codec.of(compression);
            compressor = codec == null ? null : codec.newCompressor();
        }
    }

    private static long timestampOf(OutgoingRecord r, long now) {
        return r.timestamp() == OutgoingRecord.NO_TIMESTAMP ? now : r.timestamp();
    }

    private int finish(long baseOffset, int count, long firstTimestamp, long maxTs, int recordsLength, int attributes) {
        int total;
        if (compressor == null) {
            total = HEADER_SIZE + recordsLength;
        } else {
            int bound = compressor.maxCompressedLength(recordsLength);
            ensureFrame(HEADER_SIZE + (long) bound);
            int written = compressor.compress(records, 0, recordsLength, frame, HEADER_SIZE, bound);
            total = HEADER_SIZE + written;
        }
        byte[] f = frame;
        FrameFormat.putInt(f, LENGTH_OFFSET, total);
        FrameFormat.putShort(f, MAGIC_OFFSET, FRAME_MAGIC);
        f[VERSION_OFFSET] = FRAME_VERSION;
        f[ATTRIBUTES_OFFSET] = (byte) attributes;
        FrameFormat.putLong(f, BASE_OFFSET_OFFSET, baseOffset);
        FrameFormat.putInt(f, RECORD_COUNT_OFFSET, count);
        FrameFormat.putLong(f, FIRST_TIMESTAMP_OFFSET, firstTimestamp);
        FrameFormat.putLong(f, MAX_TIMESTAMP_OFFSET, maxTs);
        FrameFormat.putInt(f, RECORDS_LENGTH_OFFSET, recordsLength);
        FrameFormat.putInt(f, CRC_OFFSET, FrameFormat.frameCrc(crc, f, 0, total));
        length = total;
        maxTimestamp = maxTs;
        return total;
    }

    /** At least the bytes {@link #encodeRecord} writes for {@code r}. */
    private static long bound(OutgoingRecord r) {
        byte[] key = r.key();
        byte[] value = r.value();
        Headers headers = r.headers();
        long bound = 4L + 10 + 5 + 5 + 5 + (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
        for (int i = 0, n = headers.size(); i < n; i++) {
            Header h = headers.get(i);
            bound += 15L + 3L * h.key().length() + (h.value() == null ? 0 : h.value().length);
        }
        return bound;
    }

    /** Writes one record at {@code pos} of the records buffer; returns the position after it. */
    private int encodeRecord(OutgoingRecord r, long timestampDelta, int pos, int sectionStart) {
        byte[] key = r.key();
        byte[] value = r.value();
        Headers headers = r.headers();
        long bound = bound(r);
        // the bound counts up to ~20 bytes a header more than the record takes: over the most only when the record's
        // smallest size (what a caller checked with AppendSizes) is over too, so that a batch of exactly the most fits
        if ((long) pos - sectionStart + bound > MAX_RECORDS_LENGTH + 64L
                && (long) pos - sectionStart + encodedSize(r) > MAX_RECORDS_LENGTH) {
            throw new RecordTooLargeException("append to " + partitionName + " is larger than a frame may be ("
                    + MAX_RECORDS_LENGTH + " bytes before compression); nothing was written");
        }
        byte[] b = ensureRecords(pos + bound);
        int p = putVarlong(b, pos + 4, (timestampDelta << 1) ^ (timestampDelta >> 63));
        int timestampBytes = p - pos - 4;
        p = putBytes(b, p, key);
        p = putBytes(b, p, value);
        int n = headers.size();
        p = putVarint(b, p, n);
        for (int i = 0; i < n; i++) {
            Header h = headers.get(i);
            p = putUtf8(b, p, h.key());
            p = putBytes(b, p, h.value());
        }
        int body = p - pos - 4;
        // the size checked does not depend on the neighbours' timestamps: see encodedSize
        long checked = body + 4L - timestampBytes + 1;
        if (checked > maxRecordBytes) {
            throw new RecordTooLargeException("a record of " + checked + " bytes (key, value and headers encoded)"
                    + " exceeds maxRecordBytes " + maxRecordBytes + " of " + partitionName + "; nothing was written");
        }
        FrameFormat.putInt(b, pos, body);
        if (p - sectionStart > MAX_RECORDS_LENGTH) {
            throw new RecordTooLargeException("append to " + partitionName + " is larger than a frame may be ("
                    + MAX_RECORDS_LENGTH + " bytes before compression); nothing was written");
        }
        return p;
    }

    private byte[] ensureRecords(long needed) {
        if (compressor == null) {
            return ensureFrame(needed);
        }
        if (needed > records.length) {
            records = Arrays.copyOf(records, grownFor(records.length, needed));
        }
        return records;
    }

    private byte[] ensureFrame(long needed) {
        if (needed > frame.length) {
            frame = Arrays.copyOf(frame, grownFor(frame.length, needed));
        }
        return frame;
    }

    /**
     * The new size of a buffer of {@code current} bytes that must hold {@code needed}: while a batch is
     * encoded, what the rest of it may take besides (one copy, where growing record by record doubled
     * the buffer several times, and a 256 MiB batch needed three times its size of heap for the last
     * copy); otherwise doubled.
     */
    private int grownFor(int current, long needed) {
        List<OutgoingRecord> b = batch;
        if (batchRest < 0 || b == null) {
            return grow(current, needed);
        }
        long total = needed;
        for (int i = batchRest, n = b.size(); i < n && total <= MAX_RECORDS_LENGTH + HEADER_SIZE + 64L; i++) {
            total += bound(b.get(i));
        }
        return (int) Math.min(Math.max(total, Math.max(1024, needed)), Integer.MAX_VALUE - 16);
    }

    private static int grow(int current, long needed) {
        long next = Math.max(needed, Math.max(1024, (long) current * 2));
        return (int) Math.min(next, Integer.MAX_VALUE - 16);
    }

    private static int putBytes(byte[] b, int p, byte @Nullable [] bytes) {
        if (bytes == null) {
            b[p] = 0;
            return p + 1;
        }
        p = putVarint(b, p, bytes.length + 1);
        System.arraycopy(bytes, 0, b, p, bytes.length);
        return p + bytes.length;
    }

    static int putVarint(byte[] b, int p, int v) {
        while ((v & ~0x7F) != 0) {
            b[p++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        b[p++] = (byte) v;
        return p;
    }

    static int putVarlong(byte[] b, int p, long v) {
        while ((v & ~0x7FL) != 0) {
            b[p++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        b[p++] = (byte) v;
        return p;
    }

    /**
     * The size of {@code r} checked against {@code maxRecordBytes}: its encoding in a frame with the
     * timestamp delta counted as one byte (its smallest), so that the check does not depend on the
     * records it is batched with.
     */
    static long encodedSize(OutgoingRecord r) {
        long size = 4 + 1 + bytesFieldSize(r.key()) + bytesFieldSize(r.value());
        Headers headers = r.headers();
        int n = headers.size();
        size += varintSize(n);
        for (int i = 0; i < n; i++) {
            Header h = headers.get(i);
            int k = utf8Length(h.key());
            size += varintSize(k) + k + bytesFieldSize(h.value());
        }
        return size;
    }

    /**
     * The bytes of {@code r}'s timestamp delta in a frame whose first record is {@code first}: 1 to 10,
     * exact when both timestamps are known at the call (both explicit, or both left to the clock, which
     * gives them one value), and 10 (the most) when only one of them is.
     */
    static int timestampDeltaBytes(OutgoingRecord first, OutgoingRecord r) {
        boolean firstClock = first.timestamp() == OutgoingRecord.NO_TIMESTAMP;
        if (firstClock != (r.timestamp() == OutgoingRecord.NO_TIMESTAMP)) {
            return 10;
        }
        long delta = firstClock ? 0 : r.timestamp() - first.timestamp();
        long v = (delta << 1) ^ (delta >> 63);
        int n = 1;
        while ((v & ~0x7FL) != 0) {
            v >>>= 7;
            n++;
        }
        return n;
    }

    private static long bytesFieldSize(byte @Nullable [] b) {
        return b == null ? 1 : varintSize(b.length + 1) + (long) b.length;
    }

    private static int varintSize(int v) {
        int n = 1;
        while ((v & ~0x7F) != 0) {
            v >>>= 7;
            n++;
        }
        return n;
    }

    /** Writes a varint byte length then the UTF-8 bytes of {@code s}, without allocating. */
    private static int putUtf8(byte[] b, int p, String s) {
        int n = s.length();
        p = putVarint(b, p, utf8Length(s));
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                b[p++] = (byte) c;
            } else if (c < 0x800) {
                b[p++] = (byte) (0xC0 | (c >> 6));
                b[p++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                b[p++] = (byte) (0xF0 | (cp >> 18));
                b[p++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                b[p++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                b[p++] = (byte) (0x80 | (cp & 0x3F));
            } else if (Character.isSurrogate(c)) {
                // a lone surrogate is written as '?', like String.getBytes(UTF_8) does
                b[p++] = (byte) '?';
            } else {
                b[p++] = (byte) (0xE0 | (c >> 12));
                b[p++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                b[p++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        return p;
    }

    /** The number of bytes {@link #putUtf8} writes for {@code s} after the length. */
    private static int utf8Length(String s) {
        int n = s.length();
        int utf8 = 0;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                utf8++;
            } else if (c < 0x800) {
                utf8 += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                utf8 += 4;
                i++;
            } else {
                utf8 += Character.isSurrogate(c) ? 1 : 3;
            }
        }
        return utf8;
    }

    /**
     * The log closed (nothing is encoded again: its appends are refused first): the codec's context goes, and
     * the buffers go back to a fresh encoder's, so that a handle kept to a deleted topic or a closed instance
     * does not pin up to {@link #KEEP_BUFFER_BYTES} of frame a partition.
     */
    @Override
    public void close() {
        // nothing allocated: the log's close runs this first, and a heap that ran out here kept every channel open
        frame = NO_BYTES;
        records = NO_BYTES;
        if (compressor != null) {
            compressor.close();
        }
    }
}
