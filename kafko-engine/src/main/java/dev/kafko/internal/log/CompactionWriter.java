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

/**
 * Internal: writes the frames of a rewritten segment: runs of kept records, and one gap frame per run of removed
 * offsets, into a file of at most a given size. One compaction's thread.
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
    private long runBase;
    private long runBytes;
    private long gapBase = -1;
    private int gapCount;
    private long gapFirstTimestamp;
    private long gapMaxTimestamp;

    /** A writer of the file of {@code ch}, whose records begin at {@code base}, of at most {@code limit} bytes. */
    CompactionWriter(FileChannel ch, FrameEncoder encoder, long base, long limit) {
        this.ch = ch;
        this.limit = limit;
        this.encoder = encoder;
        write(SegmentFiles.header(base), SEGMENT_HEADER_SIZE);
    }

    void keep(KafkoRecord r) {
        endGap();
        if (run.isEmpty()) {
            runBase = r.offset();
        }
        OutgoingRecord record = new OutgoingRecord(r.key(), r.value(), r.headers(), r.timestamp());
        run.add(record);
        // as the frame holds it: key, value and headers (a record of large headers and a small value too)
        runBytes += FrameEncoder.encodedSize(record);
        if (runBytes >= FRAME_BYTES || run.size() >= FRAME_RECORDS) {
            endRun();
        }
    }

    void gap(long base, int count, long firstTimestamp, long maxTimestamp) {
        endRun();
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

    private void endRun() {
        if (run.isEmpty()) {
            return;
        }
        // the length first: the encode may grow the buffer, and buffer() is the new one only after it
        int length = encoder.encode(run, runBase, 0);
        write(encoder.buffer(), length);
        run.clear();
        runBytes = 0;
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
