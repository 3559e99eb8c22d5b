package dev.kafko.internal.log;

import static dev.kafko.internal.log.Compaction.FRAME_BYTES;
import static dev.kafko.internal.log.Compaction.FRAME_RECORDS;
import static dev.kafko.internal.log.FrameFormat.SEGMENT_HEADER_SIZE;

import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.Arrays;

/**
 * Internal: writes the frames of a rewritten segment into a file of at most a given size: runs of kept records, with
 * the offsets of removed records between two of them as holes ({@link FrameFormat}: four bytes each), and the removed
 * offsets before and after a run as gap frames. One compaction's thread.
 */
final class CompactionWriter {

    /**
     * Thrown when the frames would make the file longer than its limit: kept records of a few bytes each, between
     * removed ones, each take a frame's header and a gap frame, and a topic's codec changed to a weaker one expands
     * what it holds.
     */
    static final class TooLarge extends RuntimeException {
        /** The segments of a merge that the writer had taken whole when it overflowed. */
        final int fitting;

        TooLarge(long limit, int fitting) {
            super("the compacted segment would be longer than " + limit + " bytes", null, false, false);
            this.fitting = fitting;
        }
    }

    private final FileChannel ch;
    private final long limit;
    /** How many of the segments written had been taken whole (their kept records perhaps not yet written). */
    int fitting;
    private final FrameEncoder encoder;
    private long position;
    private final ArrayList<OutgoingRecord> run = new ArrayList<>();
    private int[] holesBefore = new int[64];
    private long runBase;
    private long runBytes;
    /** The newest timestamp of the records removed between the run's records. */
    private long runMaxTimestamp = Long.MIN_VALUE;
    /** The next offset: the frames written and pending cover the offsets before it. */
    private long next;
    /** Offsets of removed records after the run's last record: a hole if a kept record follows, else a gap frame. */
    private int pending;
    private long pendingFirstTimestamp;
    private long pendingMaxTimestamp = Long.MIN_VALUE;
    /** The timestamp of offsets whose records an old segment's frame held as a hole ({@link #frameRead}). */
    private long holeTimestamp = Long.MIN_VALUE;
    private long gapBase = -1;
    private int gapCount;
    private long gapFirstTimestamp;
    private long gapMaxTimestamp;

    /** A writer of the file of {@code ch}, whose records begin at {@code base}, of at most {@code limit} bytes. */
    CompactionWriter(FileChannel ch, FrameEncoder encoder, long base, long limit) {
        this.ch = ch;
        this.limit = limit;
        this.next = base;
        this.encoder = encoder;
        write(SegmentFiles.header(base), SEGMENT_HEADER_SIZE);
    }

    /**
     * Notes the newest timestamp of the frame of the old segment whose records come next: the timestamp given to the
     * offsets of its holes (their records' own are not kept), so that the segment's newest timestamp does not change.
     */
    void frameRead(long maxTimestamp) {
        holeTimestamp = maxTimestamp;
    }

    /** Writes {@code r}, kept, after the offsets before it (removed ones that no frame read held: holes). */
    void keep(KafkoRecord r) {
        if (r.offset() > next) {
            gap(next, Math.toIntExact(r.offset() - next), holeTimestamp, holeTimestamp);
        }
        int holes = 0;
        if (run.isEmpty()) {
            endGap();
            runBase = r.offset();
        } else {
            holes = pending;
            runMaxTimestamp = Math.max(runMaxTimestamp, pendingMaxTimestamp);
            pending = 0;
            pendingMaxTimestamp = Long.MIN_VALUE;
        }
        OutgoingRecord record = new OutgoingRecord(r.key(), r.value(), r.headers(), r.timestamp());
        if (run.size() == holesBefore.length) {
            holesBefore = Arrays.copyOf(holesBefore, holesBefore.length * 2);
        }
        holesBefore[run.size()] = holes;
        run.add(record);
        next = r.offset() + 1;
        // as the frame holds it: key, value and headers (a record of large headers and a small value too)
        runBytes += FrameEncoder.encodedSize(record) + (holes > 0 ? 4 : 0);
        if (runBytes >= FRAME_BYTES || run.size() >= FRAME_RECORDS) {
            endRun();
        }
    }

    /**
     * Notes {@code count} offsets from {@code base} whose records are removed, the newest written at
     * {@code maxTimestamp}: a hole in the frame being written if a kept record follows in it, else a gap frame.
     */
    void gap(long base, int count, long firstTimestamp, long maxTimestamp) {
        if (base > next) {
            gap(next, Math.toIntExact(base - next), holeTimestamp, holeTimestamp);
        }
        if (!run.isEmpty()) {
            // the frame covers the offsets from its base to a kept record after these: at most Integer.MAX_VALUE
            if (base + count - runBase < Integer.MAX_VALUE) {
                if (pending == 0) {
                    pendingFirstTimestamp = firstTimestamp;
                }
                pending += count;
                pendingMaxTimestamp = Math.max(pendingMaxTimestamp, maxTimestamp);
                next = base + count;
                return;
            }
            // the frame's offsets would not fit its count: the run ends here (its pending holes begin a gap frame,
            // which these offsets join)
            endRun();
        }
        next = base + count;
        if (gapBase >= 0 && (long) gapCount + count > Integer.MAX_VALUE) {
            endGap();
        }
        if (gapBase < 0) {
            gapBase = base;
            gapCount = count;
            gapFirstTimestamp = firstTimestamp;
            gapMaxTimestamp = maxTimestamp;
        } else {
            gapCount += count;
            gapMaxTimestamp = Math.max(gapMaxTimestamp, maxTimestamp);
        }
    }

    /** Writes what is pending; returns the file's size. */
    int finish() {
        endRun();
        endGap();
        return (int) position; // at most the limit, an int
    }

    /** Writes the run of kept records as one frame; the removed offsets after its last record begin a gap frame. */
    private void endRun() {
        if (run.isEmpty()) {
            return;
        }
        // the length first: the encode may grow the buffer, and buffer() is the new one only after it
        int length = encoder.encodeWithHoles(run, holesBefore, runBase, runMaxTimestamp);
        write(encoder.buffer(), length);
        run.clear();
        runBytes = 0;
        runMaxTimestamp = Long.MIN_VALUE;
        if (pending > 0) {
            gapBase = next - pending;
            gapCount = pending;
            gapFirstTimestamp = pendingFirstTimestamp;
            gapMaxTimestamp = pendingMaxTimestamp;
            pending = 0;
            pendingMaxTimestamp = Long.MIN_VALUE;
        }
    }

    private void endGap() {
        if (gapBase < 0) {
            return;
        }
        int length = encoder.encodeGap(gapBase, gapCount, gapFirstTimestamp, gapMaxTimestamp);
        write(encoder.buffer(), length);
        gapBase = -1;
    }

    private void write(byte[] bytes, int length) {
        if (position + length > limit) {
            throw new TooLarge(limit, fitting);
        }
        ByteBuffer b = ByteBuffer.wrap(bytes, 0, length);
        try {
            while (b.hasRemaining()) {
                position += ch.write(b, position);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
