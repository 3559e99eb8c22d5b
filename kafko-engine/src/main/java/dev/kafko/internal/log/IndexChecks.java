package dev.kafko.internal.log;

import static dev.kafko.internal.log.FrameFormat.BASE_OFFSET_OFFSET;
import static dev.kafko.internal.log.FrameFormat.HEADER_SIZE;
import static dev.kafko.internal.log.FrameFormat.LENGTH_OFFSET;
import static dev.kafko.internal.log.FrameFormat.MAX_TIMESTAMP_OFFSET;
import static dev.kafko.internal.log.FrameFormat.RECORD_COUNT_OFFSET;
import static dev.kafko.internal.log.FrameFormat.SEGMENT_HEADER_SIZE;

import org.jspecify.annotations.Nullable;

/**
 * Internal: checks what a segment's index files say against the segment itself, reading frame
 * headers only (never a whole frame, never a CRC). Stateless; called by the thread opening the log.
 *
 * <p>An index file that passed its own checks (magic, CRC, order) can still describe another
 * segment, or lie about where this one ends: a clean open that took its {@code nextOffset} on
 * trust would hide records past it, or hand out offsets that are already taken. So the frames after the
 * last entry must run, header by header, exactly to the segment's end and to the index's {@code nextOffset}.
 * The entries before it are checked in full for the active segment (one header per index entry, per
 * {@code indexIntervalBytes} of frames: a clean open touches every page of it, cheap when it is in the page
 * cache, a read of the whole segment when it is not), and at both ends for a sealed one ({@link #endsAgree}):
 * checking every entry of every sealed segment read the whole log at each open, one {@code pread} a page
 * (1.7 s a GiB cached, 4.6 s not, here), while the index files of a sealed segment were written once, after
 * its data was fsynced, and their CRC covers every entry. An entry between the ends that lies all the same
 * (a file forged with a valid CRC) is found by the reads it leads astray, which then find their offset by the
 * frames from an earlier entry that holds, or from the segment's start (once logged, with how to have the index
 * rebuilt); it never yields a wrong record, since a read checks each frame's CRC and offset. A timestamp lookup,
 * which starts at an entry too, first checks that a frame header of the offset the entry claims is there, and
 * otherwise starts at such an earlier entry: one pointing past its frame would have skipped the records between.
 * The maximum timestamp an entry keeps of the records before it is taken on trust, as it was when every entry's
 * position was checked: one that lies lower (under a valid CRC) starts the lookup past records at the timestamp,
 * which it then skips; checking it would cost every lookup a scan of an index interval.
 */
final class IndexChecks {

    private IndexChecks() {
    }

    /** Whether every index entry points at a plausible frame header of the offset it claims. */
    static boolean entriesAgree(SegmentFile file, long base, IndexFiles.Snapshot snap) {
        byte[] h = new byte[HEADER_SIZE];
        for (int i = 0; i < snap.index().count(); i++) {
            if (!entryAgrees(file, base, snap, i, h)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a sealed segment's index describes it, read at a few headers whatever its size: its first and
     * last entries point at plausible frame headers of the offsets they claim, and the frames after the last
     * entry end exactly at the segment's end and the index's {@code nextOffset} ({@link #tailDisagreement}).
     */
    static boolean endsAgree(SegmentFile file, long base, IndexFiles.Snapshot snap) {
        int n = snap.index().count();
        byte[] h = new byte[HEADER_SIZE];
        return (n == 0 || entryAgrees(file, base, snap, 0, h) && entryAgrees(file, base, snap, n - 1, h))
                && tailDisagreement(file, base, snap) == null;
    }

    /** Whether entry {@code i} points at a plausible frame header of the offset it claims; {@code h} is scratch. */
    private static boolean entryAgrees(SegmentFile file, long base, IndexFiles.Snapshot snap, int i, byte[] h) {
        OffsetIndex index = snap.index();
        int pos = index.position(i);
        if (pos < SEGMENT_HEADER_SIZE || pos > snap.segmentSize() - HEADER_SIZE) {
            return false;
        }
        file.read(pos, h, 0, HEADER_SIZE);
        int len = FrameFormat.getInt(h, LENGTH_OFFSET);
        return FrameFormat.plausibleHeader(h, 0, len) && len <= snap.segmentSize() - pos
                && FrameFormat.getLong(h, BASE_OFFSET_OFFSET) == base + index.relativeOffset(i);
    }

    /**
     * How the end the index records disagrees with the frames after its last entry (walked by their
     * headers up to {@code snap.segmentSize()}), or {@code null} when the frames end exactly at that
     * size, at the index's {@code nextOffset}, with no timestamp above its {@code maxTimestamp}. Call
     * after {@link #entriesAgree} or {@link #endsAgree}.
     */
    static @Nullable String tailDisagreement(SegmentFile file, long base, IndexFiles.Snapshot snap) {
        OffsetIndex index = snap.index();
        int n = index.count();
        int size = snap.segmentSize();
        int pos = n == 0 ? SEGMENT_HEADER_SIZE : index.position(n - 1);
        long next = n == 0 ? base : base + index.relativeOffset(n - 1);
        long maxTs = n == 0 ? Long.MIN_VALUE : index.maxTimestampBefore(n - 1);
        byte[] h = new byte[HEADER_SIZE];
        while (pos < size) {
            if (size - pos < HEADER_SIZE) {
                return "a torn frame header at position " + pos + ", before the recorded size of " + size + " bytes";
            }
            file.read(pos, h, 0, HEADER_SIZE);
            int len = FrameFormat.getInt(h, LENGTH_OFFSET);
            if (!FrameFormat.plausibleHeader(h, 0, len) || FrameFormat.getLong(h, BASE_OFFSET_OFFSET) != next
                    || len > size - pos) {
                return "no valid frame of offset " + next + " at position " + pos + ", before the recorded size of "
                        + size + " bytes";
            }
            maxTs = Math.max(maxTs, FrameFormat.getLong(h, MAX_TIMESTAMP_OFFSET));
            next += FrameFormat.getInt(h, RECORD_COUNT_OFFSET);
            pos += len;
        }
        if (next != snap.nextOffset()) {
            return "its frames end at offset " + next + ", the index says " + snap.nextOffset();
        }
        if (maxTs > snap.maxTimestamp()) {
            return "a timestamp of " + maxTs + " above the index's maximum of " + snap.maxTimestamp();
        }
        return null;
    }
}
