package dev.kafko.internal.log;

import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.io.StorageErrors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;

/**
 * Internal: how one log deletes the segments its retention limits give up ({@link RetentionRule} says
 * which): out of the log first (readers that hold the old segments keep reading their mappings), then
 * their files, then a directory fsync; a deletion that failed leaves the log holding the segments still on
 * disk. Writer only: every method runs on the log's writer, inside {@link PartitionLog#applyRetention}.
 */
final class Retention {

    private final PartitionLog log;
    private final FileIo io;
    private final Path dir;
    private final Clock clock;
    private final Seals seals;
    private final PartitionDirectory directory;
    private final Rolls rolls;

    Retention(PartitionLog log, FileIo io, Path dir, Clock clock, Seals seals,
            PartitionDirectory directory, Rolls rolls) {
        this.log = log;
        this.io = io;
        this.dir = dir;
        this.clock = clock;
        this.seals = seals;
        this.directory = directory;
        this.rolls = rolls;
    }

    /** {@link PartitionLog#applyRetention(int)}, inside its writer call; a failure is recorded as the log's and thrown. */
    int apply(int maxSegments) {
        Segment[] segs = log.segments();
        long now = clock.millis();
        int n = Math.min(maxSegments, RetentionRule.deletable(segs, log.sizeBytes(), log.config(), now));
        if (n <= 0) {
            return 0;
        }
        long deleted = 0;
        for (int i = 0; i < n; i++) {
            deleted += segs[i].size();
        }
        if (n == segs.length) {
            try {
                if (directory.markerOnDisk()) {
                    directory.dropCleanMarker(); // the roll is the first change to the files since a clean open
                }
                rolls.roll(segs[n - 1], now);
            } catch (RuntimeException e) {
                throw log.fail(e);
            }
            segs = log.segments();
        }
        try {
            // a seal may still be using a segment about to be deleted: the pending seals are those
            // of the last rolled segments, so wait for the oldest ones until none of them is
            seals.awaitUntil(segs.length - 1 - n);
        } catch (RuntimeException e) {
            throw log.fail(e);
        }
        // readers that already hold the old array keep reading the deleted segments' mappings;
        // new readers see the new start and get OffsetOutOfRangeException below it
        log.replaceSegments(Arrays.copyOfRange(segs, n, segs.length), -deleted);
        seals.deletedBelow(log.segments()[0].baseOffset());
        int i = 0;
        try {
            for (; i < n; i++) {
                delete(segs[i]);
            }
            // the deletions are durable: a power loss does not bring the segments back
            directory.fsync("fsync directory after deleting segments");
        } catch (RuntimeException e) {
            keepUndeleted(segs, i, n);
            throw log.fail(e);
        }
        return n;
    }

    /** Deletes the files of {@code segment}; concurrent readers keep reading the mapping they hold. */
    private void delete(Segment segment) {
        segment.file().closeChannel();
        Path file = FileNames.segmentFile(dir, segment.baseOffset());
        try {
            io.deleteIfExists(file);
        } catch (IOException e) {
            throw StorageErrors.wrap("delete segment", file, e);
        }
        IndexFiles.delete(io, dir, segment.baseOffset());
    }

    /**
     * A retention whose deletion of {@code segs[failed]} failed: the log goes on holding the segments from the
     * first one whose file is still there, as a reopen finds them, so that no segment the log forgot comes back
     * at the next open beside a gap.
     */
    private void keepUndeleted(Segment[] segs, int failed, int n) {
        int from = failed < n && Files.exists(FileNames.segmentFile(dir, segs[failed].baseOffset())) ? failed
                : failed + 1;
        if (from >= n) {
            return;
        }
        Segment[] segments = log.segments();
        Segment[] kept = new Segment[n - from + segments.length];
        System.arraycopy(segs, from, kept, 0, n - from);
        System.arraycopy(segments, 0, kept, n - from, segments.length);
        long size = 0;
        for (int k = from; k < n; k++) {
            size += segs[k].size();
        }
        log.replaceSegments(kept, size);
    }
}
