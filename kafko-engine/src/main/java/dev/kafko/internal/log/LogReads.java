package dev.kafko.internal.log;

import dev.kafko.CorruptLogException;
import dev.kafko.KafkoRecord;
import dev.kafko.OffsetOutOfRangeException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the reads of a log's records, for {@link PartitionLog#read}: the segment that holds the offset, found in
 * the segments published after the end offset read first, and read from there, never on into a later segment; a
 * read whose segment a compaction replaced, or merged into the one before it, under it (the old file released) reads
 * again from the segment put in its place ({@link Compaction#apply}). Stateless; any thread, concurrently with the
 * log's writer, its retention and its compactions.
 */
final class LogReads {

    private LogReads() {
    }

    /** See {@link PartitionLog#read(long, int, int, VerifiedFrame)}; the caller checked that the log is usable. */
    static ReadResult read(PartitionLog log, long offset, int maxRecords, int maxBytes,
            @Nullable VerifiedFrame verified) {
        // the end first: every segment holding an offset below it is in the array read after it
        long end = log.endOffset();
        Segment[] segs = log.segments();
        long start = segs[0].baseOffset();
        if (offset < start || offset > end) {
            throw new OffsetOutOfRangeException("offset " + offset + " is out of range for " + log.topic() + "-"
                    + log.partition() + ": log start " + start + ", log end " + end);
        }
        if (offset == end || maxRecords <= 0) {
            return new ReadResult(List.of(), offset);
        }
        ArrayList<KafkoRecord> out = new ArrayList<>(0);
        while (true) {
            int i = segmentIndex(segs, offset);
            long next;
            try {
                // never on to a later segment: an offset a damaged segment lost fails there, it is not skipped
                next = segs[i].read(offset, maxRecords, maxBytes, log.topic(), log.partition(), out, verified);
            } catch (InternalError e) {
                throw segs[i].cutUnder(offset, e);
            } catch (OffsetOutOfRangeException | CorruptLogException e) {
                // compaction replaced the segment (and released the old file) while it was read: the same offsets
                // are in the new one
                Segment[] now = log.swappedSegments();
                if (now == segs || !replacedUnder(now, segs[i]) || offset < now[0].baseOffset()) {
                    throw e;
                }
                segs = now;
                out.clear();
                continue;
            }
            return new ReadResult(out, next);
        }
    }

    /**
     * Whether {@code read} is no longer in {@code now}, but a segment that holds its base offset is (it replaced it, or
     * merged it with its neighbours).
     */
    private static boolean replacedUnder(Segment[] now, Segment read) {
        Segment there = now[segmentIndex(now, read.baseOffset())];
        return there != read && there.baseOffset() <= read.baseOffset() && read.baseOffset() < there.nextOffset();
    }

    /** The index of the segment of {@code segs} that holds {@code offset} (the first one below its base). */
    private static int segmentIndex(Segment[] segs, long offset) {
        int lo = 0;
        int hi = segs.length - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (segs[mid].baseOffset() <= offset) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }
}
