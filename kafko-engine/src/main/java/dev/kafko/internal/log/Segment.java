package dev.kafko.internal.log;

import static dev.kafko.internal.log.FrameFormat.BASE_OFFSET_OFFSET;
import static dev.kafko.internal.log.FrameFormat.HEADER_SIZE;
import static dev.kafko.internal.log.FrameFormat.LENGTH_OFFSET;
import static dev.kafko.internal.log.FrameFormat.RECORD_COUNT_OFFSET;
import static dev.kafko.internal.log.FrameFormat.SEGMENT_HEADER_SIZE;

import dev.kafko.CorruptLogException;
import dev.kafko.KafkoRecord;
import dev.kafko.internal.io.FileIo;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * Internal: one segment: its file, its in-memory index, and the offsets and timestamps it holds.
 * {@link #write} and {@link #publish} are called by the log's writer only (its roll, seal and deletion are
 * {@link Rolls}', {@link Seals}' and {@link Retention}'s); the read methods, and {@link TimestampLookup}'s,
 * may be called from any thread and see every frame published before they started (the byte size is
 * published, with a release write, after the frame's bytes are stored; the log publishes its end offset
 * with a volatile write after that).
 */
final class Segment {

    private static final System.Logger LOG = System.getLogger(Segment.class.getName());

    private static final VarHandle SIZE;
    private static final VarHandle NEXT_OFFSET;
    private static final VarHandle MAX_TIMESTAMP;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            SIZE = l.findVarHandle(Segment.class, "size", int.class);
            NEXT_OFFSET = l.findVarHandle(Segment.class, "nextOffset", long.class);
            MAX_TIMESTAMP = l.findVarHandle(Segment.class, "maxTimestamp", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long baseOffset;
    private final SegmentFile file;
    private final OffsetIndex index;
    private final int indexInterval;
    private volatile int size;
    private volatile long nextOffset;
    private volatile long maxTimestamp;
    /** Whether a read found the index lying (told once). */
    private volatile boolean indexDisagreed;
    /** Clock time the age-based roll counts from; writer only. */
    private long ageBase;
    private int bytesSinceIndexEntry;
    /** Why this segment's header cannot be trusted, or null; set by the loader before the log is shared. */
    private @Nullable String headerDamage;

    Segment(long baseOffset, SegmentFile file, OffsetIndex index, int indexInterval, int size, long nextOffset,
            long maxTimestamp, long ageBase, int bytesSinceIndexEntry) {
        this.baseOffset = baseOffset;
        this.file = file;
        this.index = index;
        this.indexInterval = indexInterval;
        this.size = size;
        this.nextOffset = nextOffset;
        this.maxTimestamp = maxTimestamp;
        this.ageBase = ageBase;
        this.bytesSinceIndexEntry = bytesSinceIndexEntry;
    }

    long baseOffset() {
        return baseOffset;
    }

    /**
     * Marks a sealed segment whose 16-byte header failed its checks: every read of it then fails with
     * {@link CorruptLogException}, while the rest of the log stays readable. Loader only, before the
     * log is shared.
     */
    void markHeaderDamaged(String reason) {
        headerDamage = reason;
    }

    int size() {
        return size;
    }

    long nextOffset() {
        return nextOffset;
    }

    long maxTimestamp() {
        return maxTimestamp;
    }

    long ageBase() {
        return ageBase;
    }

    boolean isEmpty() {
        return size <= SEGMENT_HEADER_SIZE;
    }

    Path path() {
        return file.path();
    }

    SegmentFile file() {
        return file;
    }

    OffsetIndex index() {
        return index;
    }

    /**
     * Stores a whole encoded frame after the last one, past what is published: until {@link #publish},
     * no reader sees it and the next write stores over it, so a write that fails half-way (or never
     * returns: a thread out of stack) changes nothing anyone sees. Writer only.
     */
    void write(byte[] frame, int length, long now) {
        file.checkSpace(now);
        file.write(size, frame, 0, length);
    }

    /** Publishes the frame {@link #write} stored. Writer only. */
    void publish(int length, long frameBase, int count, long frameMaxTimestamp, long now) {
        int pos = size;
        long before = maxTimestamp;
        if (pos == SEGMENT_HEADER_SIZE) {
            ageBase = now;
        }
        // publish: the bytes are stored before the size that makes them visible to readers. Release
        // writes, no fence each (a volatile write's fence after every frame cost a few per cent of a
        // single-record append): no reader needs them in an order the log's end offset, written after
        // them with a volatile write, does not give
        SIZE.setRelease(this, pos + length);
        NEXT_OFFSET.setRelease(this, frameBase + count);
        MAX_TIMESTAMP.setRelease(this, Math.max(before, frameMaxTimestamp));
        if (bytesSinceIndexEntry >= indexInterval) {
            index.add((int) (frameBase - baseOffset), pos, before);
            bytesSinceIndexEntry = 0;
        }
        bytesSinceIndexEntry += length;
    }

    /** Forces the appended bytes to disk. Writer only. */
    void flush() {
        file.force();
    }

    /**
     * Writes the index files of this segment as it stands, forcing their data when {@code forceData} (a
     * seal, once the segment's data is durable: {@link PendingSeal}), otherwise without any fsync (a clean
     * close, a seal without fsyncs: they are checked against the segment on open and rebuilt when they do
     * not match). The log's writer, or the one thread sealing the segment.
     */
    void writeIndexFiles(FileIo io, Path dir, boolean forceData) {
        IndexFiles.write(io, dir, baseOffset, index, nextOffset, size, maxTimestamp, forceData);
    }

    /**
     * Reads records from {@code offset} on into {@code out}: at most {@code maxRecords}, and frames
     * of at most about {@code maxBytes} (always at least one frame). Returns the offset after what was read:
     * after the last record added, or after the last gap frame passed when that came later (a compacted
     * segment's offsets without records); {@code offset} when nothing was read ({@code offset} at or past
     * this segment's published frames). A read from below {@link #nextOffset()} returns no record at or past it,
     * and no offset past it. Any thread.
     *
     * <p>A reader that keeps {@code verified} starts where its previous read ended without looking
     * the offset up, and checks no frame's CRC twice. A reader following the writer of this segment
     * (within {@link TailCopies#COPY_READ_TAIL} of its end, with at least {@link TailCopies#COPY_READ_MIN} bytes to read)
     * copies what it needs with a {@code pread}: large frames are written with {@code pwrite}, so
     * the mapping has not faulted their pages in, and a fault for every 4 KiB page costs several
     * times the copy. Everything else is read through the mapping, without a copy.
     *
     * @throws CorruptLogException when a frame holding {@code offset} fails its checks, or when
     *     {@code offset} is below {@link #nextOffset()} but no frame holds it (a damaged sealed
     *     segment lost it): never 0 records, so that the caller does not move on to a later offset
     */
    long read(long offset, int maxRecords, int maxBytes, String topic, int partition, ArrayList<KafkoRecord> out,
            @Nullable VerifiedFrame verified) {
        checkHeader();
        // the next offset before the size: the writer publishes them in the other order, so every
        // offset below next is in a frame below end
        long next = nextOffset;
        int end = size;
        // a sealed segment whose frames run past the next segment's base (a stray file named inside its offsets)
        // returns none of those offsets: they are read from the next segment. Neither records nor offsets past it,
        // however few records the offsets before it hold (a compacted frame's holes and gap frames hold none)
        long stop = offset < next ? next : Long.MAX_VALUE;
        if (offset < next && next - offset < maxRecords) {
            maxRecords = (int) (next - offset);
        }
        byte[] h = new byte[HEADER_SIZE];
        int pos = verified == null ? -1 : verified.positionOf(this, offset);
        boolean remembered = pos >= 0 && pos <= end;
        if (!remembered) {
            pos = locate(offset, next, end, h);
        }
        if (pos < 0 || pos >= end) {
            // a frame remembered to end where the segment's data ends, though offsets up to next belong
            // here: a damaged segment lost them, which the lookup reports (else every poll read nothing)
            return remembered ? read(offset, maxRecords, maxBytes, topic, partition, out, null) : offset;
        }
        ByteBuffer copy;
        int copyStart;
        if (verified != null && verified.copyHolds(this, pos)) {
            // a poll that stopped inside the copy the previous one made reads on from it
            copy = verified.copy;
            copyStart = verified.copyStart;
        } else {
            copy = TailCopies.copyOf(file, pos, end, TailCopies.wanted(maxRecords, maxBytes, verified), h);
            copyStart = pos;
            if (verified != null) {
                verified.keepCopy(this, pos, copy);
            }
        }
        int start = pos;
        int total = 0;
        long records = 0;
        long expected = offset;
        while (pos < end && records < maxRecords) {
            // a bad header after good frames ends this read; the next read reports it
            int len = total == 0 ? readHeader(pos, end, h, copy, copyStart) : tryReadHeader(pos, end, h, copy, copyStart);
            if (len < 0 || (total > 0 && (long) total + len > maxBytes)) {
                break;
            }
            long base = FrameFormat.getLong(h, BASE_OFFSET_OFFSET);
            long frameEnd = base + FrameFormat.getInt(h, RECORD_COUNT_OFFSET);
            if (total == 0 && (offset < base || offset >= frameEnd)) {
                if (remembered) {
                    // the frame after the remembered one does not start at the offset: look it up (a
                    // damaged segment lost offsets, which the lookup reports)
                    return read(offset, maxRecords, maxBytes, topic, partition, out, null);
                }
                throw corrupt(pos, "the frame found for offset " + offset + " holds offsets " + base + " to "
                        + (frameEnd - 1), null);
            }
            if (total > 0 && (base != expected || base >= stop)) {
                // a frame that does not go on where the one before it ended (damage the CRC cannot see, such
                // as a frame renumbered and its CRC recomputed) ends this read; the next one, there, reports it.
                // So does one of the next segment's offsets
                break;
            }
            expected = frameEnd;
            if (!FrameFormat.isGap(h)) {
                records += frameEnd - Math.max(base, offset);
            }
            total += len;
            pos += len;
        }
        out.ensureCapacity(out.size() + (int) Math.min(records, maxRecords));
        // the records slice one view of the mapping (or the copy, then the mapping past it): one CRC pass
        int limit = start + total;
        ByteBuffer view = copy != null ? copy : file.view(start, total);
        int viewStart = copy != null ? copyStart : start;
        ByteBuffer scratch = view.duplicate();
        CRC32C crc = new CRC32C();
        int added = 0;
        long readTo = offset;
        for (int p = start; p < limit && added < maxRecords; ) {
            header(p, h, copy, copyStart);
            int len = FrameFormat.getInt(h, LENGTH_OFFSET);
            if (len < HEADER_SIZE || len > limit - p) {
                throw corrupt(p, "frame length " + len + " changed under the reader", null);
            }
            int before = out.size();
            try {
                ByteBuffer section = verified == null ? null : verified.sectionOf(this, p);
                int sectionStart;
                if (section != null) {
                    // a frame this reader inflated or copied, and checked, before: read on from its section
                    sectionStart = verified.sectionStart;
                } else {
                    boolean ownCopy = false;
                    if (p + len > viewStart + view.capacity()) {
                        // the view ends at a mapping window's end: a new one from this frame on
                        view = bytes(p, len, limit - p);
                        viewStart = p;
                        scratch = view.duplicate();
                        ownCopy = !view.isDirect();
                    }
                    int at = p - viewStart;
                    if (verified == null || !verified.is(this, p)) {
                        verifyCrc(crc, scratch, view.getInt(at + FrameFormat.CRC_OFFSET), at, len, p);
                    }
                    section = FrameDecoder.section(view, at, len);
                    sectionStart = section == view ? at + HEADER_SIZE : 0;
                    if (verified != null && (section != view || ownCopy)) {
                        verified.keepSection(this, p, section, sectionStart);
                    }
                }
                if (FrameFormat.isGap(h)) {
                    // offsets whose records compaction removed: passed over, none added
                    readTo = Math.min(stop, FrameFormat.getLong(h, BASE_OFFSET_OFFSET)
                            + FrameFormat.getInt(h, RECORD_COUNT_OFFSET));
                } else {
                    int[] cursor = verified == null ? new int[] {0, 0} : verified.cursorFor(this, p, offset);
                    added += FrameDecoder.decodeSection(h, section, sectionStart, offset, maxRecords - added, topic,
                            partition, out, cursor);
                    // where the decode stopped: after its last record, or the frame's end (past a trailing hole)
                    readTo = Math.max(readTo, FrameFormat.getLong(h, BASE_OFFSET_OFFSET) + cursor[0]);
                    if (verified != null) {
                        verified.cursorAt(readTo);
                    }
                    if (readTo > stop) {
                        // a frame across the next segment's base: its records from there on are that segment's
                        int keep = out.size();
                        while (keep > before && out.get(keep - 1).offset() >= stop) {
                            keep--;
                        }
                        added -= out.size() - keep;
                        out.subList(keep, out.size()).clear();
                        readTo = stop;
                        if (verified != null) {
                            verified.cursorAt(Long.MAX_VALUE); // past the records dropped: no read starts there
                        }
                    }
                }
            } catch (CorruptLogException | IllegalArgumentException e) {
                if (added == 0) {
                    throw e instanceof CorruptLogException c ? c : corrupt(p, e.getMessage(), e);
                }
                // the intact records before a damaged frame are returned; the next read, at the damaged
                // frame, reports it
                out.subList(before, out.size()).clear();
                break;
            }
            if (verified != null) {
                long base = FrameFormat.getLong(h, BASE_OFFSET_OFFSET);
                verified.set(this, p, len, base, base + FrameFormat.getInt(h, RECORD_COUNT_OFFSET));
            }
            p += len;
        }
        boolean lastFrameRead = added == 0 || verified != null && readTo >= verified.endOffset;
        if (verified != null && copy != null && verified.copy == copy
                && verified.position + verified.length >= copyStart + copy.capacity() && lastFrameRead) {
            // read to its end: the next read starts past it, so the reader does not keep it alive
            verified.keepCopy(this, 0, null);
        }
        if (verified != null && verified.section != null
                && (lastFrameRead || verified.sectionOf(verified.segment, verified.position) == null)) {
            // the kept section is of a frame read to its end: the next read starts past it
            verified.keepSection(null, 0, null, 0);
        }
        return readTo;
    }

    /**
     * Copies the frame header at {@code pos} into {@code h}: from {@code copy} (which starts at
     * {@code copyStart}) when it holds the header, else from the mapping.
     */
    private void header(int pos, byte[] h, @Nullable ByteBuffer copy, int copyStart) {
        if (copy != null && pos - copyStart <= copy.capacity() - HEADER_SIZE) {
            copy.get(pos - copyStart, h, 0, HEADER_SIZE);
        } else {
            file.read(pos, h, 0, HEADER_SIZE);
        }
    }

    /**
     * Published bytes from {@code pos} as a little-endian buffer whose index 0 is {@code pos}: a view
     * of the mapping of up to {@code want} bytes, or, when the {@code len}-byte frame at {@code pos}
     * straddles two mapping windows, a copy of that frame.
     */
    ByteBuffer bytes(int pos, int len, int want) {
        ByteBuffer view = file.view(pos, want);
        if (view.capacity() >= len) {
            return view;
        }
        byte[] copy = new byte[len];
        file.read(pos, copy, 0, len);
        return ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * The position of the frame holding {@code offset}, or -1 when {@code offset} is at or past the
     * segment's end; throws when the offset belongs to this segment but no frame holds it.
     */
    private int locate(long offset, long next, int end, byte[] h) {
        int entry = index.floorEntry(offset - baseOffset);
        int indexed = entry < 0 ? SEGMENT_HEADER_SIZE : Math.max(SEGMENT_HEADER_SIZE, index.position(entry));
        if (indexed == SEGMENT_HEADER_SIZE) {
            return locate(offset, next, end, h, indexed);
        }
        try {
            return locate(offset, next, end, h, indexed);
        } catch (CorruptLogException e) {
            if (entryHolds(indexed, offset, end, h)) {
                throw e; // the entry leads to a frame at or before the offset: the damage lies after it
            }
            // an index entry that lies between the ends a clean open checks (IndexChecks), or whose frame's header
            // was damaged: the frames from an earlier entry that holds tell whether the offset is there (a damaged
            // frame fails again, as it did, after the frames of an index interval, not of the whole segment)
            int pos = locate(offset, next, end, h, heldEntryBefore(entry, end, h));
            if (!indexDisagreed) {
                indexDisagreed = true;
                LOG.log(System.Logger.Level.WARNING, "the index of " + file.path() + " disagrees with it at offset "
                        + offset + " (" + e.getMessage() + "); reads there scan its frames from an earlier entry."
                        + " Delete the segment's .index and .timeindex files while the log is closed: the next open"
                        + " rebuilds them");
            }
            return pos;
        }
    }

    /**
     * The position of the last entry before {@code entry} at which a plausible frame header of the offset it claims
     * starts, or the segment's first frame: where a search may start when {@code entry} does not hold.
     */
    int heldEntryBefore(int entry, int end, byte[] h) {
        for (int i = entry - 1; i >= 0; i--) {
            int pos = index.position(i);
            long claimed = baseOffset + index.relativeOffset(i);
            if (pos > SEGMENT_HEADER_SIZE && entryHolds(pos, claimed, end, h)
                    && FrameFormat.getLong(h, BASE_OFFSET_OFFSET) == claimed) {
                return pos;
            }
        }
        return SEGMENT_HEADER_SIZE;
    }

    /** Whether a plausible frame header of an offset at most {@code offset} starts at {@code pos}. */
    private boolean entryHolds(int pos, long offset, int end, byte[] h) {
        return heldLength(pos, offset, end, h) >= 0;
    }

    /**
     * The length of the frame at {@code pos} when a plausible frame header of an offset at most {@code offset} starts
     * there (read into {@code h}), else -1.
     */
    int heldLength(int pos, long offset, int end, byte[] h) {
        int len;
        try {
            len = readHeader(pos, end, h);
        } catch (CorruptLogException e) {
            return -1;
        }
        return FrameFormat.getLong(h, BASE_OFFSET_OFFSET) <= offset ? len : -1;
    }

    private int locate(long offset, long next, int end, byte[] h, int from) {
        int pos = from;
        long framesEnd = -1;
        while (pos < end) {
            int len = readHeader(pos, end, h);
            long base = FrameFormat.getLong(h, BASE_OFFSET_OFFSET);
            if (offset < base) {
                // the frames jump over the offset (a damaged header, read before its CRC is checked)
                throw lost(offset, framesEnd < 0 ? offset : framesEnd, base);
            }
            framesEnd = base + FrameFormat.getInt(h, RECORD_COUNT_OFFSET);
            if (offset < framesEnd) {
                return pos;
            }
            pos += len;
        }
        if (offset < next) {
            // a sealed segment ends where the next one begins; its lost tail has no frames
            throw lost(offset, framesEnd < 0 ? baseOffset : framesEnd, next);
        }
        return -1;
    }

    /**
     * A read through the mapping of a file that something else cut short while the log was open: the JVM turns the
     * fault into an {@link InternalError}, the reader gets a {@link CorruptLogException} naming the file.
     */
    CorruptLogException cutUnder(long offset, InternalError e) {
        return new CorruptLogException("cannot read offset " + offset + " from " + file.path()
                + ": the file holds less than the log wrote to it (cut or replaced by something else while the log"
                + " was open): " + e.getMessage(), e);
    }

    private CorruptLogException lost(long offset, long from, long to) {
        return new CorruptLogException("no frame holds offset " + offset + ": offsets " + from + " to " + (to - 1)
                + " are missing from the log, after the last frame of segment " + file.path()
                + " and before the next segment (its tail was damaged, or a segment file was lost)");
    }

    void checkHeader() {
        String damage = headerDamage;
        if (damage != null) {
            throw corrupt(0, damage, null);
        }
    }

    /** Reads and checks the frame header at {@code pos}; returns the frame length. */
    int readHeader(int pos, int end, byte[] h) {
        return readHeader(pos, end, h, null, 0);
    }

    /** {@link #readHeader(int, int, byte[])} from {@code copy} (starting at {@code copyStart}) when not null. */
    private int readHeader(int pos, int end, byte[] h, @Nullable ByteBuffer copy, int copyStart) {
        int len = tryReadHeader(pos, end, h, copy, copyStart);
        if (len < 0) {
            throw corrupt(pos, "invalid frame header (segment has " + end + " bytes)", null);
        }
        return len;
    }

    /**
     * Reads the frame header at {@code pos} (from {@code copy}, which starts at {@code copyStart}, when it
     * holds it; else from the mapping); returns the frame length, or -1 when it is not a valid header.
     */
    private int tryReadHeader(int pos, int end, byte[] h, @Nullable ByteBuffer copy, int copyStart) {
        if (end - pos < HEADER_SIZE) {
            return -1;
        }
        header(pos, h, copy, copyStart);
        int len = FrameFormat.getInt(h, LENGTH_OFFSET);
        return FrameFormat.plausibleHeader(h, 0, len) && len <= end - pos ? len : -1;
    }

    /** Checks the CRC of the frame at {@code scratch[at, at + len)}; moves {@code scratch}'s position and limit. */
    void verifyCrc(CRC32C crc, ByteBuffer scratch, int stored, int at, int len, long filePos) {
        if (len < HEADER_SIZE || len > scratch.capacity() - at
                || FrameFormat.frameCrc(crc, scratch, at, len) != stored) {
            throw corrupt(filePos, "CRC32C mismatch", null);
        }
    }

    CorruptLogException corrupt(long pos, String reason, @Nullable Throwable cause) {
        return new CorruptLogException("corrupt frame in " + file.path() + " at position " + pos + ": " + reason, cause);
    }
}
