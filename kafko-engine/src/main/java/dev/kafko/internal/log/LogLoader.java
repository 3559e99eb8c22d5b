package dev.kafko.internal.log;

import static dev.kafko.internal.log.FrameFormat.BASE_OFFSET_OFFSET;
import static dev.kafko.internal.log.FrameFormat.HEADER_SIZE;
import static dev.kafko.internal.log.FrameFormat.LENGTH_OFFSET;
import static dev.kafko.internal.log.FrameFormat.MAX_TIMESTAMP_OFFSET;
import static dev.kafko.internal.log.FrameFormat.RECORD_COUNT_OFFSET;
import static dev.kafko.internal.log.FrameFormat.SEGMENT_HEADER_SIZE;

import dev.kafko.CorruptLogException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.io.StorageErrors;
import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * Internal: opens the segments of a partition directory and recovers them. Called once, by the
 * thread opening the log, before the log is shared.
 *
 * <p>Nothing on disk is trusted without a check. A sealed segment keeps the index files written
 * when it was sealed only if they pass their own checks and agree with the segment (size, next
 * offset, a valid frame header of the right offset at its first and last entries, and frames that run
 * from the last entry to its end; see {@link IndexChecks}); otherwise its index is
 * rebuilt by a CRC scan. The last (active) segment is CRC-scanned from its first frame unless the
 * clean-shutdown marker is present and its index files check out; the scan stops at the first frame
 * that is zero (the blocks allocated ahead of the writer), torn, or fails its CRC or offset
 * sequence, and the file is cut there.
 *
 * <p>Damage that cannot be cut is isolated, never skipped: a sealed segment whose frames end before
 * the next segment's base keeps that end (reads of the missing offsets fail in {@link Segment#read}),
 * and a sealed segment with a damaged header is kept with every read of it failing. A damaged
 * header of the active segment is rewritten from the file name when its first frame vouches for it.
 */
final class LogLoader {

    private static final System.Logger LOG = PlainNumbersLogger.of(LogLoader.class);

    /** What a CRC scan of a segment found. */
    record Scan(OffsetIndex index, int validEnd, long nextOffset, long maxTimestamp, int bytesSinceIndexEntry,
            @Nullable String stopReason) {
    }

    private LogLoader() {
    }

    /**
     * What {@link #load} found.
     *
     * @param segments oldest first; the last one is open for appends
     * @param markerKept whether the clean-shutdown marker is on disk and still true: it vouched for
     *     the active segment and its index files, and they checked out. The log must delete it
     *     durably before its first write.
     * @param directorySyncPending whether a file was created whose directory entry is not yet durable
     */
    record Loaded(List<Segment> segments, boolean markerKept, boolean directorySyncPending) {
    }

    /** Opens every segment in {@code dir}, creating the first one when there is none; oldest first. */
    static Loaded load(String name, Path dir, TopicConfig config, long now, FileIo io) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw StorageErrors.wrap("create partition directory", dir, e);
        }
        Path marker = dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE);
        boolean clean = Files.exists(marker);
        long[] bases = segmentBases(name, dir, config, io);
        int kept = bases.length >= 2 ? SegmentLayoutRepairs.afterCutShortRoll(name, dir, bases, config, io)
                : bases.length;
        if (kept < bases.length) {
            bases = Arrays.copyOf(bases, kept);
            clean = false;
        }
        List<Segment> segments = new ArrayList<>();
        boolean vouched = false;
        try {
            if (bases.length == 0) {
                segments.add(create(dir, 0, config, now, io));
            }
            boolean scanActive = false;
            long framesEnd = -1; // the furthest any sealed segment's frames run
            for (int i = 0; i < bases.length - 1; i++) {
                Sealed sealed = openSealed(name, dir, bases[i], bases[i + 1], clean, config, io);
                if (sealed.framesEnd() > bases[i + 1]
                        && SegmentLayoutRepairs.holdsNothing(dir, bases[i + 1], config, io)) {
                    // a stray file named inside the offsets of the segment before it, holding nothing: taken for
                    // the active segment, it would move the end back below records that were acknowledged (and
                    // new appends would take their offsets again); taken for a sealed one, the records it cuts
                    // from the segment before it would fail every read. Dropped, and that segment opened again
                    // against the next base (another stray may follow)
                    sealed.segment().file().closeChannel();
                    SegmentLayoutRepairs.dropStray(name, dir, bases[i + 1], bases[i], sealed.framesEnd(), io);
                    long[] rest = new long[bases.length - 1];
                    System.arraycopy(bases, 0, rest, 0, i + 1);
                    System.arraycopy(bases, i + 2, rest, i + 1, bases.length - i - 2);
                    bases = rest;
                    scanActive |= i == bases.length - 1;
                    i--;
                    continue;
                }
                framesEnd = Math.max(framesEnd, sealed.framesEnd());
                if (i + 1 == bases.length - 1 && framesEnd > bases[i + 1]) {
                    // a stray named inside a sealed segment's frames that holds bytes, last: as the active segment
                    // it would move the end back below records a sealed segment holds intact, and new appends would
                    // take their offsets again. Nothing tells what it holds, so the open refuses
                    sealed.segment().file().closeChannel();
                    throw new CorruptLogException(FileNames.segmentFile(dir, bases[i + 1]) + " is named inside the"
                            + " offsets of the segments before it, whose frames run to offset " + framesEnd
                            + " (a stray file?): opened as the active segment it would hide the records from offset "
                            + bases[i + 1] + " on; move it away and open " + name + " again");
                }
                segments.add(sealed.segment());
            }
            if (bases.length > 0) {
                Active active = openActive(name, dir, bases[bases.length - 1], clean && !scanActive, config, now,
                        io);
                segments.add(active.segment());
                vouched = active.fromIndex();
            }
        } catch (RuntimeException | Error e) {
            SegmentFiles.closeAfter(segments, e);
            throw e;
        }
        if (clean && !vouched) {
            try {
                // the marker no longer describes the files (the scan cut or re-indexed them): gone for good
                io.deleteIfExists(marker);
                io.fsyncDirectory(dir);
            } catch (IOException e) {
                RuntimeException failure = StorageErrors.wrap("delete clean-shutdown marker", marker, e);
                SegmentFiles.closeAfter(segments, failure);
                throw failure;
            }
        }
        if (!clean && bases.length > 0) {
            try {
                // the crashed run may have created segments whose names it never made durable (it rolled,
                // then crashed before a flush): all this open kept is durable from here on, as a consumer
                // of a topic under EVERY_BATCH, which reads it at once, takes it to be
                io.fsyncDirectory(dir);
            } catch (IOException e) {
                RuntimeException failure = StorageErrors.wrap("fsync directory after a crash recovery", dir, e);
                SegmentFiles.closeAfter(segments, failure);
                throw failure;
            }
        }
        return new Loaded(segments, clean && vouched, bases.length == 0);
    }

    /**
     * Creates an empty segment file at {@code base}. Its directory entry is not fsynced here: the
     * caller does that before anything written to it is promised durable (a flush, a close).
     */
    static Segment create(Path dir, long base, TopicConfig config, long now, FileIo io) {
        Path path = FileNames.segmentFile(dir, base);
        SegmentFile file = SegmentFiles.create(io, path, SegmentFiles.header(base), config.segmentBytes());
        return new Segment(base, file, new OffsetIndex(), config.indexIntervalBytes(), SEGMENT_HEADER_SIZE, base,
                Long.MIN_VALUE, now, config.indexIntervalBytes());
    }

    /** The opened active segment, and whether it was loaded from its index files (no scan). */
    private record Active(Segment segment, boolean fromIndex) { }

    /** A sealed segment, and the offset after its last frame (its index's, else what its scan found). */
    private record Sealed(Segment segment, long framesEnd) {
    }

    private static Sealed openSealed(String name, Path dir, long base, long nextBase, boolean clean, TopicConfig config,
                                     FileIo io) {
        SegmentFile file = SegmentFiles.open(io, FileNames.segmentFile(dir, base), false, config.segmentBytes());
        String damage = headerDamage(file, base);
        if (damage != null) {
            return new Sealed(openWithDamagedHeader(name, file, base, nextBase, damage, config), -1);
        }
        int size = (int) file.fileSize();
        IndexFiles.Snapshot snap = IndexFiles.load(io, dir, base, size);
        // the ends only, not every entry: that read the whole log at every open (see IndexChecks)
        if (snap != null && snap.segmentSize() == size && snap.nextOffset() == nextBase && IndexChecks.endsAgree(file, base, snap)) {
            return new Sealed(new Segment(base, file, snap.index(), config.indexIntervalBytes(), size,
                    snap.nextOffset(), snap.maxTimestamp(), Long.MIN_VALUE, 0), nextBase);
        }
        Scan scan = scan(file, base, size, config.indexIntervalBytes());
        if (scan.stopReason() == null && scan.nextOffset() == nextBase) {
            if (!clean && (Files.notExists(FileNames.indexFile(dir, base))
                    || Files.notExists(FileNames.timeIndexFile(dir, base)))) {
                // its seal, which writes them (each atomically) after the segment's fsync, was cut short by the
                // crash: common after a kill under load, and nothing is lost
                LOG.log(System.Logger.Level.INFO, "{0}: built the index of {1}, whose seal the last run did not"
                        + " finish", name, file.path());
            } else {
                LOG.log(System.Logger.Level.WARNING, "{0}: rebuilt the index of {1}", name, file.path());
            }
            // durable before an index file says it was sealed: a seal a crash cut short never fsynced
            // it, and no later flush would (a flush forces the active segment and the pending seals)
            SegmentFiles.force(io, file.path());
            // a rebuilt cache: if this write is lost in a crash, the next open rebuilds it again
            IndexFiles.write(io, dir, base, scan.index(), scan.nextOffset(), size, scan.maxTimestamp(), false);
        } else if (scan.nextOffset() < nextBase && scan.stopReason() == null && scan.validEnd() == size) {
            // every frame intact to the end of the file: what is missing lay between the two files
            LOG.log(System.Logger.Level.WARNING, "{0}: offsets {1} to {2} are missing: {3} ends intact at offset {1},"
                    + " but the next segment begins at offset {4} (a segment file between them was lost or deleted?);"
                    + " reads of them fail with CorruptLogException", name, scan.nextOffset(), nextBase - 1,
                    file.path(), nextBase);
        } else if (scan.nextOffset() < nextBase) {
            // frames missing before the next segment's base: damage, never an index that claims those offsets
            LOG.log(System.Logger.Level.WARNING, "{0}: {1} is damaged: its frames end at position {2} and offset {3},"
                    + " but the next segment begins at offset {4}{5}; offsets {3} to {6} are lost (reads of them"
                    + " fail with CorruptLogException)", name, file.path(), scan.validEnd(), scan.nextOffset(),
                    nextBase, scan.stopReason() == null ? "" : " (" + scan.stopReason() + ")", nextBase - 1);
        } else if (scan.nextOffset() > nextBase) {
            // a segment file named inside this one's offsets (a stray copy?): those offsets are read from it
            LOG.log(System.Logger.Level.WARNING, "{0}: {1} overlaps the next segment: its frames run to offset {2},"
                    + " past the next segment''s base offset {3}{4}; its offsets {3} to {5} are not read from it but"
                    + " from the next segment", name, file.path(), scan.nextOffset(), nextBase,
                    scan.stopReason() == null ? "" : " (then " + scan.stopReason() + ")", scan.nextOffset() - 1);
        } else {
            LOG.log(System.Logger.Level.WARNING, "{0}: {1} holds {2} bytes after its last frame at position {3} ({4});"
                    + " they are ignored, and no offset is lost", name, file.path(), size - scan.validEnd(),
                    scan.validEnd(), scan.stopReason());
        }
        // a sealed segment ends where the next one begins, even when its tail is damaged
        return new Sealed(new Segment(base, file, scan.index(), config.indexIntervalBytes(), size, nextBase,
                scan.maxTimestamp(), Long.MIN_VALUE, 0), scan.nextOffset());
    }

    /**
     * A sealed segment whose header failed its checks: the log still opens and every read of this
     * segment fails, so that the other segments stay readable. Its frames are CRC-scanned only for
     * the newest timestamp that retention goes by; the index files are neither trusted nor written.
     */
    private static Segment openWithDamagedHeader(String name, SegmentFile file, long base, long nextBase,
            String damage, TopicConfig config) {
        int size = (int) Math.min(file.fileSize(), Integer.MAX_VALUE);
        Scan scan = size > SEGMENT_HEADER_SIZE ? scan(file, base, size, config.indexIntervalBytes()) : null;
        LOG.log(System.Logger.Level.WARNING, "{0}: {1} has {2}; offsets {3} to {4} are unreadable (reads of them"
                + " fail with CorruptLogException)", name, file.path(), damage, base, nextBase - 1);
        Segment s = new Segment(base, file, new OffsetIndex(), config.indexIntervalBytes(), size, nextBase,
                scan == null ? Long.MIN_VALUE : scan.maxTimestamp(), Long.MIN_VALUE, 0);
        s.markHeaderDamaged(damage);
        return s;
    }

    private static Active openActive(String name, Path dir, long base, boolean clean, TopicConfig config, long now,
            FileIo io) {
        Path path = FileNames.segmentFile(dir, base);
        SegmentFile file = SegmentFiles.open(io, path, true, config.segmentBytes());
        // a file not closed cleanly is read with pread until it is recovered (see SegmentFile#readPositionally): its
        // scan reads past the last frame, into the hole the mapping grown ahead for readers may have left
        file.readPositionally(!clean);
        try {
            // what the index files said at the last clean close, when the segment was fsynced up to there
            IndexFiles.Snapshot recorded = IndexFiles.load(io, dir, base);
            int size = (int) Math.min(file.fileSize(), Integer.MAX_VALUE);
            if (size < SEGMENT_HEADER_SIZE
                    || (isZeroHeader(file) && scan(file, base, size, config.indexIntervalBytes()).nextOffset() == base)) {
                // torn while being created: it never held a frame (a zeroed header in front of frames
                // that start at the file name's offset is rewritten by repairHeader instead)
                file.truncateAndForce(0);
                file.write(0, SegmentFiles.header(base), 0, SEGMENT_HEADER_SIZE);
                size = SEGMENT_HEADER_SIZE;
            }
            boolean repaired = repairHeader(name, file, base, size, config);
            checkedSize(file, base);
            IndexFiles.Snapshot snap = clean && !repaired ? recorded : null;
            OffsetIndex index;
            long next;
            long maxTs;
            String disagreement = snap == null ? null : disagreement(file, base, size, snap);
            boolean fromIndex = snap != null && disagreement == null;
            if (clean && !repaired && !fromIndex) {
                // a clean close wrote them before its marker: lost, torn or wrong since (a power loss before their
                // writeback, or a hand), which warns as a sealed segment's missing index after a clean close does
                LOG.log(System.Logger.Level.WARNING, "{0}: the index files of {1} {2}; CRC-scanning it as after a crash",
                        name, path, disagreement != null ? "disagree with it (" + disagreement + ")"
                                : "written at the last clean close are missing or fail their checks");
            }
            if (fromIndex) {
                index = snap.index();
                next = snap.nextOffset();
                maxTs = snap.maxTimestamp();
            } else {
                file.readPositionally(true);
                Scan scan = scan(file, base, size, config.indexIntervalBytes());
                if (scan.validEnd() < size && scan.stopReason() == null) {
                    // zeros allocated ahead are routine
                    LOG.log(System.Logger.Level.INFO, "{0}: recovered {1}: kept {2} bytes up to offset {3}, cut {4}"
                            + " bytes of zeros allocated ahead", name, path, scan.validEnd(), scan.nextOffset(),
                            size - scan.validEnd());
                } else if (scan.validEnd() < size) {
                    // what was cut may have held records (never acknowledged ones, unless the disk lost them)
                    long data = nonZeroRun(file, scan.validEnd(), size);
                    LOG.log(System.Logger.Level.WARNING, "{0}: recovered {1}: kept {2} bytes up to offset {3}; cut {4}"
                            + " bytes at {2} holding {5} (the {6} bytes after them were zeros allocated ahead)", name,
                            path, scan.validEnd(), scan.nextOffset(), data, scan.stopReason(),
                            size - scan.validEnd() - data);
                }
                if (recorded != null && recorded.segmentSize() > scan.validEnd()
                        && recorded.nextOffset() > scan.nextOffset()) {
                    warnLostTail(name, path, recorded, scan);
                    // they describe data that is gone: no later open may warn about it again
                    IndexFiles.delete(io, dir, base);
                }
                // cut the torn or zero tail so that the next append continues right after the last good frame
                file.truncateAndForce(scan.validEnd());
                size = scan.validEnd();
                index = scan.index();
                next = scan.nextOffset();
                maxTs = scan.maxTimestamp();
            }
            file.readPositionally(false);
            // the age-based roll counts from the first record, never from the future
            long ageBase = Math.min(now, firstTimestamp(file, size, now));
            return new Active(new Segment(base, file, index, config.indexIntervalBytes(), size, next, maxTs, ageBase,
                    bytesAfterLastEntry(index, size, config)), fromIndex);
        } catch (RuntimeException e) {
            file.readPositionally(false);
            SegmentFiles.closeAfter(file, e);
            throw e;
        }
    }

    /** How the active segment disagrees with its index files (a clean open trusts them only when it does not). */
    private static @Nullable String disagreement(SegmentFile file, long base, int size, IndexFiles.Snapshot snap) {
        if (snap.segmentSize() != size) {
            return "the segment has " + size + " bytes, the index says " + snap.segmentSize();
        }
        if (!IndexChecks.entriesAgree(file, base, snap)) {
            return "an entry points at no frame of the offset it names";
        }
        return IndexChecks.tailDisagreement(file, base, snap);
    }

    /**
     * Warns that the active segment ends before what its index files recorded at a clean close. The
     * segment was fsynced up to there before they were written, and nothing but recovery cuts it
     * (recovery never cuts below a clean close), so those records were lost by the disk or a hand.
     */
    private static void warnLostTail(String name, Path path, IndexFiles.Snapshot recorded, Scan scan) {
        LOG.log(System.Logger.Level.WARNING, "{0}: {1} lost records: its index files (written at a clean close,"
                + " after the segment was fsynced) say it held {2} bytes up to offset {3}, but its frames end at"
                + " position {4} and offset {5}; offsets {5} to {6} are lost", name, path,
                Long.toString(recorded.segmentSize()), Long.toString(recorded.nextOffset()),
                Long.toString(scan.validEnd()), Long.toString(scan.nextOffset()),
                Long.toString(recorded.nextOffset() - 1));
    }

    /**
     * Rewrites (durably) a damaged header of the active segment when its frames vouch for the base
     * offset in the file name: the first frame passes its checks (CRC included) and starts at that
     * offset, or the segment holds no frame at all (only zeros follow the header). Returns whether it
     * did; otherwise a damaged header is left for {@link #checkedSize} to refuse.
     */
    private static boolean repairHeader(String name, SegmentFile file, long base, int size, TopicConfig config) {
        String damage = headerDamage(file, base);
        if (damage == null) {
            return false;
        }
        Scan scan = scan(file, base, size, config.indexIntervalBytes());
        boolean firstFrameValid = scan.nextOffset() > base;
        boolean noFrame = scan.validEnd() == SEGMENT_HEADER_SIZE && scan.stopReason() == null;
        if (!firstFrameValid && !noFrame) {
            return false;
        }
        file.write(0, SegmentFiles.header(base), 0, SEGMENT_HEADER_SIZE);
        file.force();
        LOG.log(System.Logger.Level.WARNING, "{0}: {1} had {2}; rewrote it from the file name ({3})", name,
                file.path(), damage, firstFrameValid ? "its first frame starts at offset " + base : "it holds no frame");
        return true;
    }

    /** The first timestamp of the segment's first frame, or {@code fallback} when it has none. */
    private static long firstTimestamp(SegmentFile file, int size, long fallback) {
        if (size < SEGMENT_HEADER_SIZE + HEADER_SIZE) {
            return fallback;
        }
        byte[] h = new byte[HEADER_SIZE];
        file.read(SEGMENT_HEADER_SIZE, h, 0, HEADER_SIZE);
        return FrameFormat.getLong(h, FrameFormat.FIRST_TIMESTAMP_OFFSET);
    }

    /** Bytes appended since the last index entry (the interval counter the writer continues from). */
    private static int bytesAfterLastEntry(OffsetIndex index, int size, TopicConfig config) {
        int n = index.count();
        return n == 0 ? config.indexIntervalBytes() : size - index.position(n - 1);
    }

    private static boolean isZeroHeader(SegmentFile file) {
        byte[] h = new byte[SEGMENT_HEADER_SIZE];
        file.read(0, h, 0, SEGMENT_HEADER_SIZE);
        for (byte b : h) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    /** Checks the segment header and returns the file size. */
    private static int checkedSize(SegmentFile file, long base) {
        String damage = headerDamage(file, base);
        if (damage != null) {
            throw new CorruptLogException("segment " + file.path() + " at position 0: " + damage);
        }
        return (int) file.fileSize();
    }

    /** What is wrong with the segment's size or 16-byte header, or {@code null} when they check out. */
    static @Nullable String headerDamage(SegmentFile file, long base) {
        long size = file.fileSize();
        if (size < SEGMENT_HEADER_SIZE || size > Integer.MAX_VALUE) {
            return "an impossible size of " + size + " bytes";
        }
        byte[] h = new byte[SEGMENT_HEADER_SIZE];
        file.read(0, h, 0, SEGMENT_HEADER_SIZE);
        if (FrameFormat.getInt(h, FrameFormat.SEGMENT_MAGIC_OFFSET) != FrameFormat.SEGMENT_MAGIC
                || FrameFormat.getShort(h, FrameFormat.SEGMENT_VERSION_OFFSET) != FrameFormat.SEGMENT_VERSION
                || FrameFormat.getLong(h, FrameFormat.SEGMENT_BASE_OFFSET_OFFSET) != base) {
            return "a bad segment header (magic, version or base offset " + base + ")";
        }
        return null;
    }

    /** CRC-scans the frames of a segment from its first frame, stopping at the first bad or zero one. */
    static Scan scan(SegmentFile file, long base, int size, int indexInterval) {
        OffsetIndex index = new OffsetIndex();
        CRC32C crc = new CRC32C();
        byte[] buf = new byte[64 * 1024];
        int pos = SEGMENT_HEADER_SIZE;
        long next = base;
        long maxTs = Long.MIN_VALUE;
        int sinceEntry = indexInterval;
        String stop = null;
        while (pos < size) {
            if (size - pos < HEADER_SIZE) {
                stop = isZero(file, pos, size - pos) ? null : "a torn frame header";
                break;
            }
            file.read(pos, buf, 0, HEADER_SIZE);
            int len = FrameFormat.getInt(buf, LENGTH_OFFSET);
            if (len == 0) {
                stop = isZero(file, pos, Math.min(size - pos, HEADER_SIZE)) ? null : "a frame of length 0";
                break;
            }
            if (!FrameFormat.plausibleHeader(buf, 0, len) || FrameFormat.getLong(buf, BASE_OFFSET_OFFSET) != next) {
                stop = "an invalid frame header or an offset out of sequence";
                break;
            }
            if (len > size - pos) {
                stop = "a torn frame (" + len + " bytes, " + (size - pos) + " on disk)";
                break;
            }
            if (len > buf.length) {
                buf = Arrays.copyOf(buf, len);
            }
            file.read(pos, buf, 0, len);
            if (FrameFormat.frameCrc(crc, buf, 0, len) != FrameFormat.getInt(buf, FrameFormat.CRC_OFFSET)) {
                stop = "a CRC32C mismatch";
                break;
            }
            if (sinceEntry >= indexInterval) {
                index.add((int) (next - base), pos, maxTs);
                sinceEntry = 0;
            }
            sinceEntry += len;
            maxTs = Math.max(maxTs, FrameFormat.getLong(buf, MAX_TIMESTAMP_OFFSET));
            next += FrameFormat.getInt(buf, RECORD_COUNT_OFFSET);
            pos += len;
        }
        return new Scan(index, pos, next, maxTs, sinceEntry, stop);
    }

    /**
     * The bytes from {@code from} up to the first 64 KiB-aligned block of zeros after it (or {@code size}):
     * what a torn write left, before the zeros written ahead of the writer.
     */
    private static long nonZeroRun(SegmentFile file, int from, int size) {
        byte[] b = new byte[64 * 1024];
        long lastNonZero = from - 1L;
        for (int pos = from; pos < size; ) {
            int n = Math.min(b.length - pos % b.length, size - pos);
            file.read(pos, b, 0, n);
            boolean any = false;
            for (int i = n - 1; i >= 0; i--) {
                if (b[i] != 0) {
                    lastNonZero = Math.max(lastNonZero, pos + (long) i);
                    any = true;
                    break;
                }
            }
            if (!any && pos > from) {
                break;
            }
            pos += n;
        }
        return lastNonZero - from + 1;
    }

    /** Whether the {@code len} bytes at {@code pos} are all zero (read 64 KiB at a time). */
    static boolean isZero(SegmentFile file, long pos, long len) {
        byte[] b = new byte[(int) Math.min(len, 64 * 1024)];
        byte[] zeros = new byte[b.length];
        for (long done = 0; done < len; ) {
            int n = (int) Math.min(b.length, len - done);
            file.read(pos + done, b, 0, n);
            if (Arrays.mismatch(b, 0, n, zeros, 0, n) >= 0) {
                return false;
            }
            done += n;
        }
        return true;
    }

    /**
     * The base offsets of the segment files in {@code dir}, sorted; removes leftovers of interrupted
     * steps. Index files without a segment are such leftovers, except that one newer than every
     * segment is evidence of a segment lost from the end (no step of kafko removes the newest
     * segment and leaves its index): that loss is warned about before the files go.
     */
    private static long[] segmentBases(String name, Path dir, TopicConfig config, FileIo io) {
        TreeSet<Long> bases = new TreeSet<>();
        List<Path> leftovers = new ArrayList<>();
        List<Path> swaps = new ArrayList<>(0);
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path p : files) {
                String n = p.getFileName().toString();
                if (FileNames.isSegmentFile(n)) {
                    bases.add(FileNames.baseOffsetOf(n));
                } else if (n.endsWith(FileNames.TMP_SUFFIX) || n.endsWith(FileNames.DELETED_SUFFIX)) {
                    leftovers.add(p);
                } else if (FileNames.isSwapFile(n)) {
                    swaps.add(p);
                }
            }
        } catch (IOException e) {
            throw StorageErrors.wrap("list partition directory", dir, e);
        } catch (DirectoryIteratorException e) {
            throw StorageErrors.wrap("list partition directory", dir, e.getCause());
        }
        if (!swaps.isEmpty()) {
            swaps.sort(null);
            SegmentLayoutRepairs.finishMerges(name, dir, swaps, bases, config, io);
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path p : files) {
                String n = p.getFileName().toString();
                boolean index = n.endsWith(FileNames.INDEX_SUFFIX) || n.endsWith(FileNames.TIME_INDEX_SUFFIX);
                if (index && FileNames.startsWithOffset(n) && !bases.contains(FileNames.baseOffsetOf(n))) {
                    leftovers.add(p);
                }
            }
        } catch (IOException e) {
            throw StorageErrors.wrap("list partition directory", dir, e);
        } catch (DirectoryIteratorException e) {
            throw StorageErrors.wrap("list partition directory", dir, e.getCause());
        }
        warnLostNewestSegment(name, dir, bases.isEmpty() ? -1 : bases.last(), leftovers, io);
        for (Path p : leftovers) {
            try {
                io.deleteIfExists(p);
            } catch (IOException e) {
                throw StorageErrors.wrap("delete leftover", p, e);
            }
        }
        // a loop, not a LongStream: opening a log at start-up need not load the stream's classes
        long[] result = new long[bases.size()];
        int i = 0;
        for (long base : bases) {
            result[i++] = base;
        }
        return result;
    }

    /** Warns about each segment newer than {@code lastBase} whose index files outlived it and say it held records. */
    private static void warnLostNewestSegment(String name, Path dir, long lastBase, List<Path> leftovers, FileIo io) {
        for (Path p : leftovers) {
            String n = p.getFileName().toString();
            if (!n.endsWith(FileNames.INDEX_SUFFIX) || FileNames.baseOffsetOf(n) <= lastBase) {
                continue;
            }
            long base = FileNames.baseOffsetOf(n);
            IndexFiles.Snapshot snap = IndexFiles.load(io, dir, base);
            if (snap != null && snap.nextOffset() > base) {
                LOG.log(System.Logger.Level.WARNING, "{0}: {1} is missing, but its index files say it held {2} bytes"
                        + " up to offset {4}; offsets {3} to {4} are lost", name, FileNames.segmentFile(dir, base),
                        Long.toString(snap.segmentSize()), Long.toString(base), Long.toString(snap.nextOffset() - 1));
            }
        }
    }
}
