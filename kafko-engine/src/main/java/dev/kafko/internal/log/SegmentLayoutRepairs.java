package dev.kafko.internal.log;

import static dev.kafko.internal.log.FrameFormat.SEGMENT_HEADER_SIZE;

import dev.kafko.CorruptLogException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.io.StorageErrors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.NavigableSet;

/**
 * Internal: the segment files an open deletes, for {@link LogLoader} on the thread opening the log: the segments
 * after a roll a crash cut short, empty stray files named inside another segment's offsets, and the segments a merge
 * of compacted segments that a crash cut short replaced. Each deletion is warned about and made durable with a
 * directory fsync before the open goes on.
 */
final class SegmentLayoutRepairs {

    /** The loader's logger: these warnings are part of what an open reports. */
    private static final System.Logger LOG = PlainNumbersLogger.of(LogLoader.class);

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
     * {@code .index} file (the active segment included: its index files are a clean close's, and a roll deletes
     * them before the next segment exists) is never treated so, nor is one whose own index files were written and
     * are lost or damaged: its data was durable before they existed. A segment file named inside the offsets of the
     * segment before it (whose frames run past its base) is no rolled segment but a stray file: it is passed over,
     * and the segment before it is compared with the one after it. The segment before the first looked at (the last
     * with index files, or the one before the last {@link Seals#MAX_PENDING}) is read for this past a damaged header
     * too: its frames, from the offset its name gives, still tell where its offsets run. A segment looked at whose
     * header was never written (an empty file, or zeros in its place: a power loss kept its name, made durable by
     * the directory fsync of a retention or a compaction while its seal was pending, but not its bytes, never
     * fsynced) ends where its frames from its name's offset end, at its base when it has none: a roll cut short,
     * not a damaged segment whose offsets every read would fail at.
     * A stray file in front of every other segment cannot be told from a rolled segment this way.
     */
    static int afterCutShortRoll(String name, Path dir, long[] bases, TopicConfig config, FileIo io) {
        int last = bases.length - 1;
        if (Files.exists(FileNames.indexFile(dir, bases[last]))) {
            // the active segment's index files are a clean close's, deleted durably at any roll after it (see
            // PartitionDirectory#dropActiveIndexFiles): no roll since, so no seal was cut short
            return bases.length;
        }
        int from = last;
        while (from > 0 && last - from < Seals.MAX_PENDING
                && !Files.exists(FileNames.indexFile(dir, bases[from - 1]))) {
            from--;
        }
        // a segment file named inside the offsets of the segment before it is no rolled segment (a roll names the
        // next segment at the offset after the last frame) but a stray file, which LogLoader's stray check deals
        // with: it is skipped, and the segment before it is compared with the one after it
        int previous = from - 1;
        long previousEnd = from > 0 && from < last ? framesEnd(dir, bases[previous], true, config, io) : -1;
        for (int i = from; i <= last; i++) {
            if (i < last && previousEnd > bases[i]) {
                continue;
            }
            if (previous < from || previousEnd < 0 || previousEnd >= bases[i]) {
                if (i < last) {
                    previous = i;
                    previousEnd = framesEnd(dir, bases[i], false, config, io);
                }
                continue;
            }
            long base = bases[previous];
            for (int j = last; j > previous; j--) {
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
            return previous + 1;
        }
        return bases.length;
    }

    /**
     * Finishes the merges of compacted segments that a crash cut short ({@link Compaction}): a
     * {@linkplain FileNames#swapFile swap file} is the whole new file of neighbouring segments, which got that name
     * only once it was written, fsynced and checked, and some of whose old files may be deleted already. The segment
     * files inside its offsets after its first are deleted (and taken out of {@code bases}), then the first one's
     * index files, then it is renamed to the first one's name. A swap file that does not read back whole fails the
     * open with {@link CorruptLogException}: its old files may be gone, and nothing else holds their records.
     */
    static void finishMerges(String name, Path dir, List<Path> swaps, NavigableSet<Long> bases, TopicConfig config,
            FileIo io) {
        for (Path swap : swaps) {
            long base = FileNames.baseOffsetOf(swap.getFileName().toString());
            SegmentFile file = SegmentFiles.open(io, swap, false, config.segmentBytes());
            long end;
            try {
                String damage = LogLoader.headerDamage(file, base);
                LogLoader.Scan scan = damage != null ? null
                        : LogLoader.scan(file, base, (int) file.fileSize(), config.indexIntervalBytes());
                if (scan == null || scan.stopReason() != null || scan.validEnd() != file.fileSize()) {
                    throw new CorruptLogException(swap + ": the merged file of compacted segments that a crash left"
                            + " unfinished does not read back whole (" + (scan == null ? damage : scan.stopReason() == null
                            ? "its frames end at position " + scan.validEnd() : scan.stopReason()) + "); the segments it"
                            + " replaces may be deleted already, so " + name + " is not opened");
                }
                end = scan.nextOffset();
            } finally {
                file.closeChannel();
            }
            NavigableSet<Long> merged = bases.subSet(base, false, end, false);
            LOG.log(System.Logger.Level.WARNING, "{0}: finishing a merge of compacted segments that a crash cut short:"
                    + " {1} holds offsets {2} to {3}; deleting the {4} segment files after the first that it replaces",
                    name, swap, base, end - 1, merged.size());
            try {
                for (long b : merged) {
                    io.deleteIfExists(FileNames.segmentFile(dir, b));
                    IndexFiles.delete(io, dir, b);
                }
                merged.clear();
                IndexFiles.delete(io, dir, base);
                io.atomicMove(swap, FileNames.segmentFile(dir, base));
                bases.add(base);
                io.fsyncDirectory(dir);
            } catch (IOException e) {
                throw StorageErrors.wrap("finish a merge of compacted segments", swap, e);
            }
        }
    }

    /**
     * The offset after the last frame of the segment at {@code base}: from its index files when they agree with the
     * file (a sealed segment's), else from a scan of its frames. A segment whose header is damaged gives -1 (never
     * a roll cut short), unless {@code pastDamagedHeader}: then its frames are scanned all the same, from the offset
     * its name gives, as {@code LogLoader} scans a sealed one's for its timestamps. A header never written (a file
     * shorter than a header, or zeros in its place: a power loss kept the name of a segment never fsynced, and none or
     * not all of its bytes) is no damage: its frames are scanned so too, and a file without any gives {@code base}.
     */
    private static long framesEnd(Path dir, long base, boolean pastDamagedHeader, TopicConfig config, FileIo io) {
        SegmentFile file = SegmentFiles.open(io, FileNames.segmentFile(dir, base), false, config.segmentBytes());
        try {
            if (LogLoader.headerDamage(file, base) != null) {
                long size = Math.min(file.fileSize(), Integer.MAX_VALUE);
                // a header never written (an empty file, or zeros where it goes) is what a power loss leaves of a
                // rolled segment that was never fsynced: no damage, but a segment that kept none of its frames
                boolean neverWritten = size < SEGMENT_HEADER_SIZE || LogLoader.isZero(file, 0, SEGMENT_HEADER_SIZE);
                if (!pastDamagedHeader && !neverWritten) {
                    return -1;
                }
                return size > SEGMENT_HEADER_SIZE
                        ? LogLoader.scan(file, base, (int) size, config.indexIntervalBytes()).nextOffset() : base;
            }
            int size = (int) file.fileSize();
            IndexFiles.Snapshot snap = IndexFiles.load(io, dir, base, size);
            if (snap != null && snap.segmentSize() == size && IndexChecks.endsAgree(file, base, snap)) {
                return snap.nextOffset();
            }
            return LogLoader.scan(file, base, size, config.indexIntervalBytes()).nextOffset();
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
