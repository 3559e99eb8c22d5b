package dev.kafko.internal.log;

import dev.kafko.internal.io.FileIo;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Internal: what one compaction of a log prepared ({@link Compaction#prepare}): the new files of the
 * segments it rewrites, written and checked beside the old ones, which {@link PartitionLog#applyCompaction} puts in
 * their place, or {@link #discard} deletes. Immutable; handed from the thread that prepared it to the log's writer.
 */
public final class CompactionPlan {

    /**
     * The new file of one or more neighbouring segments ({@code olds}, oldest first; more than one are merged into one
     * at the first one's base offset): {@code tmp}, whose scan found {@code index}, {@code size} and
     * {@code maxTimestamp}.
     */
    record Rewrite(List<Segment> olds, Path tmp, OffsetIndex index, int size, long maxTimestamp, long removedRecords) {

        Rewrite {
            olds = List.copyOf(olds);
        }

        Segment first() {
            return olds.get(0);
        }

        Segment last() {
            return olds.get(olds.size() - 1);
        }

        /** The bytes of the segments it replaces. */
        long oldSize() {
            long n = 0;
            for (Segment s : olds) {
                n += s.size();
            }
            return n;
        }
    }

    private final List<Rewrite> rewrites;
    private final long cleanableEnd;
    private final boolean partial;

    CompactionPlan(List<Rewrite> rewrites, long cleanableEnd, boolean partial) {
        this.rewrites = List.copyOf(rewrites);
        this.cleanableEnd = cleanableEnd;
        this.partial = partial;
    }

    List<Rewrite> rewrites() {
        return rewrites;
    }

    /** The offset compaction looked up to (the first record it did not consider); -1 when it considered none. */
    public long cleanableEnd() {
        return cleanableEnd;
    }

    /**
     * Whether the pass stopped before the end of the cleanable segments because their keys did not all fit in its
     * budget: a next pass goes on from {@link #cleanableEnd()}.
     */
    public boolean partial() {
        return partial;
    }

    /** Whether the plan rewrites no segment. */
    public boolean isEmpty() {
        return rewrites.isEmpty();
    }

    /** The records the plan removes. */
    public long removedRecords() {
        long n = 0;
        for (Rewrite r : rewrites) {
            n += r.removedRecords();
        }
        return n;
    }

    /**
     * Deletes the new files of the plan that were not put in place: a plan not applied (the partition closed, the
     * segments deleted meanwhile); any thread. What cannot be deleted now, the next open deletes.
     */
    public void discard(FileIo io) {
        for (Rewrite r : rewrites) {
            try {
                io.deleteIfExists(r.tmp());
            } catch (IOException e) {
                System.getLogger(CompactionPlan.class.getName()).log(System.Logger.Level.WARNING, "cannot delete "
                        + r.tmp() + ", a compacted segment not put in place (the next open deletes it): " + e);
            }
        }
    }
}
