package dev.kafko.internal.log;

import static dev.kafko.internal.log.FrameFormat.HEADER_SIZE;
import static dev.kafko.internal.log.FrameFormat.LENGTH_OFFSET;

import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * Internal: what a reader following the writer of a segment copies with {@code pread} instead of reading the
 * mapping ({@link TailReads} says why), for {@link Segment#read}. Any thread.
 */
final class TailCopies {

    /** Reads of the segment being written that find at least this many bytes copy them with {@code pread}. */
    static final int COPY_READ_MIN = SegmentFile.CHANNEL_WRITE_MIN;
    /** A read's {@code pread} copies at most this many bytes (or one larger frame); the mapping serves the rest. */
    static final int COPY_READ_MAX = 1 << 20;
    /** Only a reader this close to the segment's end copies: that is where the writer's frames are fresh. */
    static final int COPY_READ_TAIL = 4 << 20;

    /**
     * About how many bytes a read of {@code maxRecords} records needs: at the size per record of the
     * frame the reader decoded last, plus some slack for a frame cut at the end (read through the
     * mapping), within {@code maxBytes} and {@link #COPY_READ_MAX}.
     */
    static int wanted(int maxRecords, int maxBytes, @Nullable VerifiedFrame verified) {
        long want = COPY_READ_MAX;
        if (verified != null && verified.segment != null) {
            long count = Math.max(1, verified.endOffset - verified.baseOffset);
            want = (long) maxRecords * ((verified.length + count - 1) / count) + Math.min(verified.length, 2 * COPY_READ_MIN);
        }
        return (int) Math.min(want, Math.min(maxBytes, COPY_READ_MAX));
    }

    /**
     * A {@code pread} copy of the published bytes from {@code pos} (about {@code wanted} of them, and
     * at least the whole frame at {@code pos}), or null when they are
     * to be read through the mapping: a sealed segment, fewer than {@link #COPY_READ_MIN} bytes, a
     * header that does not check (the mapping path reports it), or a failed {@code pread}.
     */
    static @Nullable ByteBuffer copyOf(SegmentFile file, int pos, int end, int wanted, byte[] h) {
        if (end - pos < COPY_READ_MIN || end - pos > COPY_READ_TAIL || !file.isWritable()) {
            return null;
        }
        int want = Math.min(end - pos, Math.max(COPY_READ_MIN, wanted));
        ByteBuffer copy = file.readCopy(pos, want);
        if (copy == null) {
            return null;
        }
        copy.get(0, h, 0, HEADER_SIZE);
        int len = FrameFormat.getInt(h, LENGTH_OFFSET);
        if (!FrameFormat.plausibleHeader(h, 0, len) || len > end - pos) {
            return null;
        }
        return len <= want ? copy : file.readCopy(pos, len);
    }

    private TailCopies() {
    }
}
