package dev.kafko.internal.log;

import static dev.kafko.internal.log.FrameFormat.SEGMENT_HEADER_SIZE;

import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.io.StorageErrors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Internal: the segment files an open deletes, for {@link LogLoader} on the thread opening the log: the segments
 * after a roll a crash cut short, and empty stray files named inside another segment's offsets. Each deletion is
 * warned about and made durable with a directory fsync before the open goes on.
 */
final class SegmentLayoutRepairs {

    /** The loader's logger: these warnings are part of what an open reports. */
    private static final System.Logger LOG = System.getLogger(LogLoader.class.getName());

    private SegmentLayoutRepairs() {
    }

    /**
     * How many segments survive a roll cut short by a crash: all of them when no roll was cut short.
     * Rolled segments are sealed in the background, in roll order, at most
     * {@link Seals#MAX_PENDING} at a time, and a seal writes the segment's {@code .index}
     * file only after its data is durable. So the seals a crash cut short are those of the segments
     * before the active one that have no {@code .index} file and follow the last one that has (at
     * most that many). The oldest of them whose frames end before the next segment's base lost its
     * unsynced tail. No later segment can hold a record that was flushed (a flush waits for every
     * pending seal), so every later segment is deleted, and this one becomes the active segment, cut
     * at its last complete frame like any torn tail. A segment followed by one with an
     * {@code .index} file is never treated so, nor is one whose own index files were written and
     * are lost or damaged: its data was durable before they existed.
     */
    static int afterCutShortRoll(String name, Path dir, long[] bases, TopicConfig config, FileIo io) {
        int last = bases.length - 1;
        int from = last;
        while (from > 0 && last - from < Seals.MAX_PENDING
                && !Files.exists(FileNames.indexFile(dir, bases[from - 1]))) {
            from--;
        }
        for (int i = from; i < last; i++) {
            long base = bases[i];
            if (!endsShort(dir, base, bases[i + 1], config, io)) {
                continue;
            }
            for (int j = last; j > i; j--) {
                Path later = FileNames.segmentFile(dir, bases[j]);
                LOG.log(System.Logger.Level.WARNING, "{0}: a roll was cut short by a crash: {1} was never sealed and"
                        + " lost its tail; deleting {2}, which held nothing flushed", name,
                        FileNames.segmentFile(dir, base), later);
                try {
                    io.deleteIfExists(later);
                    IndexFiles.delete(io, dir, bases[j]);
                } catch (IOException e) {
                    throw StorageErrors.wrap("delete a segment after a roll cut short", later, e);
                }
            }
            try {
                io.fsyncDirectory(dir);
            } catch (IOException e) {
                throw StorageErrors.wrap("delete the segments after a roll cut short", dir, e);
            }
            return i + 1;
        }
        return bases.length;
    }

    /**
     * Whether the frames of the segment at {@code base} end before {@code nextBase} (a readable header only).
     * Frames that run past it are no cut roll (a roll ends a segment exactly at the next one's base) but a
     * segment file named inside this one's offsets, which {@code LogLoader.openSealed} reports as an overlap.
     */
    private static boolean endsShort(Path dir, long base, long nextBase, TopicConfig config, FileIo io) {
        SegmentFile file = SegmentFiles.open(io, FileNames.segmentFile(dir, base), false, config.segmentBytes());
        try {
            return LogLoader.headerDamage(file, base) == null
                    && LogLoader.scan(file, base, (int) file.fileSize(), config.indexIntervalBytes()).nextOffset() < nextBase;
        } finally {
            file.closeChannel();
        }
    }

    /**
     * Whether the segment file at {@code base} holds nothing past its header but zeros: an empty file named like a
     * segment. A file with any other byte after its header (a copy of another segment, a damaged one) is never
     * taken for empty, whatever its frames say: it stays, and its reads fail as a damaged segment's do.
     */
    static boolean holdsNothing(Path dir, long base, TopicConfig config, FileIo io) {
        SegmentFile file = SegmentFiles.open(io, FileNames.segmentFile(dir, base), false, config.segmentBytes());
        try {
            long size = file.fileSize();
            return size <= SEGMENT_HEADER_SIZE || LogLoader.isZero(file, SEGMENT_HEADER_SIZE, size - SEGMENT_HEADER_SIZE);
        } finally {
            file.closeChannel();
        }
    }

    /** Deletes the stray segment at {@code base} (and its index files), durably, with a warning. */
    static void dropStray(String name, Path dir, long base, long previous, long framesEnd, FileIo io) {
        Path stray = FileNames.segmentFile(dir, base);
        LOG.log(System.Logger.Level.WARNING, "{0}: {1} holds no record and is named inside the offsets of {2}, whose"
                + " frames run to offset {3}: deleting it (a stray file?)", name,
                stray, FileNames.segmentFile(dir, previous), framesEnd);
        try {
            io.deleteIfExists(stray);
            IndexFiles.delete(io, dir, base);
            io.fsyncDirectory(dir);
        } catch (IOException e) {
            throw StorageErrors.wrap("delete a stray segment", stray, e);
        }
    }
}
