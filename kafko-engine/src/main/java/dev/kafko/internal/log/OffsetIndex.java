package dev.kafko.internal.log;

import java.util.Arrays;

/**
 * Internal: the sparse offset and time index of one segment, in memory. The writer adds an entry
 * for the first frame that starts at least {@code indexIntervalBytes} after the previous entry;
 * readers on any thread look entries up concurrently. Each entry holds the frame's offset relative
 * to the segment base, its byte position, and the largest timestamp of every record before it in
 * the segment (so a timestamp lookup can start at the last entry below the target).
 * Persisted by {@link IndexFiles}.
 */
final class OffsetIndex {

    /** Packed entries: relative offset in the high 32 bits, position in the low 32 bits. */
    private volatile long[] entries;
    /** Per entry: the largest timestamp of the records before that entry's frame. */
    private volatile long[] maxTimestampsBefore;
    /** Published last, after the arrays it counts. */
    private volatile int count;

    OffsetIndex() {
        this(new long[16], new long[16], 0);
    }

    OffsetIndex(long[] entries, long[] maxTimestampsBefore, int count) {
        this.entries = entries;
        this.maxTimestampsBefore = maxTimestampsBefore;
        this.count = count;
    }

    /** Adds an entry. Writer only. */
    void add(int relativeOffset, int position, long maxTimestampBefore) {
        int n = count;
        long[] e = entries;
        long[] t = maxTimestampsBefore;
        if (n == e.length) {
            e = Arrays.copyOf(e, n * 2);
            t = Arrays.copyOf(t, n * 2);
            entries = e;
            maxTimestampsBefore = t;
        }
        e[n] = ((long) relativeOffset << 32) | (position & 0xFFFFFFFFL);
        t[n] = maxTimestampBefore;
        count = n + 1;
    }

    int count() {
        return count;
    }

    int relativeOffset(int i) {
        return (int) (entries[i] >>> 32);
    }

    int position(int i) {
        return (int) entries[i];
    }

    long maxTimestampBefore(int i) {
        return maxTimestampsBefore[i];
    }

    /** The last entry whose relative offset is at most {@code relativeOffset}, or -1. */
    int floorEntry(long relativeOffset) {
        int n = count;
        long[] e = entries;
        int lo = 0;
        int hi = n - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if ((e[mid] >>> 32) <= relativeOffset) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /**
     * The last entry before which every record is older than {@code timestamp}, or -1; a search for the
     * first record at or after {@code timestamp} may start at its position.
     */
    int floorEntryForTimestamp(long timestamp) {
        int n = count;
        long[] t = maxTimestampsBefore;
        int lo = 0;
        int hi = n - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (t[mid] < timestamp) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** Whether both indexes hold the same entries. */
    boolean sameEntries(OffsetIndex other) {
        int n = count;
        if (other.count != n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (entries[i] != other.entries[i] || maxTimestampsBefore[i] != other.maxTimestampsBefore[i]) {
                return false;
            }
        }
        return true;
    }
}
