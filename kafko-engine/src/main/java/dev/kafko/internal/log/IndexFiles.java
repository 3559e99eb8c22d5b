package dev.kafko.internal.log;

import dev.kafko.internal.io.AtomicFiles;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.io.StorageErrors;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * Internal: writes and reads the {@code .index} and {@code .timeindex} files of a segment. They are
 * written when a segment is sealed (data fsynced) and at a clean close (not fsynced), each through
 * a temp file and an atomic rename, never with a directory fsync of their own (the caller fsyncs the
 * directory once for all of them): they are caches that are never trusted on open. A file that fails any check (its CRC, its counts,
 * its agreement with the segment's size and frames) is ignored and the index is rebuilt from the
 * segment, so a crash that leaves one empty, old or torn costs a scan, never a record.
 * Stateless; any thread. All numbers little-endian.
 *
 * <pre>
 * .index
 *  offset size field
 *   0      4   magic          0x4B464B49
 *   4      2   version        1
 *   6      2   reserved       0
 *   8      8   baseOffset     of the segment
 *  16      8   nextOffset     offset after the segment's last record
 *  24      4   segmentSize    bytes of the segment file this index describes
 *  28      4   entryCount     n
 *  32      8   maxTimestamp   largest record timestamp in the segment (Long.MIN_VALUE when empty)
 *  40      4   crc            CRC32C over bytes [0, 40) and [44, 44 + 8n)
 *  44     8n   entries        int32 relativeOffset, int32 position
 *
 * .timeindex
 *   0      4   magic          0x4B464B54
 *   4      2   version        1
 *   6      2   reserved       0
 *   8      8   baseOffset     of the segment
 *  16      4   entryCount     n (the same entries as .index)
 *  20      4   crc            CRC32C over bytes [0, 20) and [24, 24 + 12n)
 *  24    12n   entries        int64 maxTimestampBefore, int32 relativeOffset
 * </pre>
 */
final class IndexFiles {

    static final int INDEX_MAGIC = 0x4B464B49;
    static final int TIME_INDEX_MAGIC = 0x4B464B54;
    static final short VERSION = 1;
    static final int INDEX_HEADER_SIZE = 44;
    static final int INDEX_CRC_OFFSET = 40;
    static final int INDEX_ENTRY_SIZE = 8;
    static final int TIME_HEADER_SIZE = 24;
    static final int TIME_CRC_OFFSET = 20;
    static final int TIME_ENTRY_SIZE = 12;

    /** What an index file said about its segment. */
    record Snapshot(OffsetIndex index, long nextOffset, int segmentSize, long maxTimestamp) {
    }

    private IndexFiles() {
    }

    /**
     * Writes both files of the segment at {@code base}, forcing their data when {@code forceData};
     * their directory entries become durable with the caller's next directory fsync.
     */
    static void write(FileIo io, Path dir, long base, OffsetIndex index, long nextOffset, int segmentSize,
            long maxTimestamp, boolean forceData) {
        int n = index.count();
        byte[] idx = new byte[INDEX_HEADER_SIZE + n * INDEX_ENTRY_SIZE];
        FrameFormat.putInt(idx, 0, INDEX_MAGIC);
        FrameFormat.putShort(idx, 4, VERSION);
        FrameFormat.putLong(idx, 8, base);
        FrameFormat.putLong(idx, 16, nextOffset);
        FrameFormat.putInt(idx, 24, segmentSize);
        FrameFormat.putInt(idx, 28, n);
        FrameFormat.putLong(idx, 32, maxTimestamp);
        byte[] time = new byte[TIME_HEADER_SIZE + n * TIME_ENTRY_SIZE];
        FrameFormat.putInt(time, 0, TIME_INDEX_MAGIC);
        FrameFormat.putShort(time, 4, VERSION);
        FrameFormat.putLong(time, 8, base);
        FrameFormat.putInt(time, 16, n);
        for (int i = 0; i < n; i++) {
            FrameFormat.putInt(idx, INDEX_HEADER_SIZE + i * INDEX_ENTRY_SIZE, index.relativeOffset(i));
            FrameFormat.putInt(idx, INDEX_HEADER_SIZE + i * INDEX_ENTRY_SIZE + 4, index.position(i));
            FrameFormat.putLong(time, TIME_HEADER_SIZE + i * TIME_ENTRY_SIZE, index.maxTimestampBefore(i));
            FrameFormat.putInt(time, TIME_HEADER_SIZE + i * TIME_ENTRY_SIZE + 8, index.relativeOffset(i));
        }
        FrameFormat.putInt(idx, INDEX_CRC_OFFSET, crc(idx, INDEX_CRC_OFFSET));
        FrameFormat.putInt(time, TIME_CRC_OFFSET, crc(time, TIME_CRC_OFFSET));
        Path indexFile = FileNames.indexFile(dir, base);
        Path timeFile = FileNames.timeIndexFile(dir, base);
        try {
            AtomicFiles.replace(io, indexFile, ByteBuffer.wrap(idx), forceData);
        } catch (IOException e) {
            throw StorageErrors.wrap("write index", indexFile, e);
        }
        try {
            AtomicFiles.replace(io, timeFile, ByteBuffer.wrap(time), forceData);
        } catch (IOException e) {
            throw StorageErrors.wrap("write time index", timeFile, e);
        }
    }

    /**
     * Reads both files of the segment at {@code base}; {@code null} when either is missing or fails
     * a check of its own (magic, version, base, CRC, counts, order). The caller still checks the
     * result against the segment itself. A file whose size is not the one its entry count gives it
     * (garbage appended, a file system that grew it) is refused having read only its header, so it
     * costs no heap of its size.
     */
    static @Nullable Snapshot load(FileIo io, Path dir, long base) {
        return load(io, dir, base, Integer.MAX_VALUE);
    }

    /**
     * {@link #load(FileIo, Path, long)} for a segment file of {@code segmentFileSize} bytes: index files
     * whose entry count says more entries than frames fit in it (each entry points at a frame of at least
     * a frame header) are refused unread too.
     */
    static @Nullable Snapshot load(FileIo io, Path dir, long base, long segmentFileSize) {
        long maxEntries = Math.max(0, (segmentFileSize - FrameFormat.SEGMENT_HEADER_SIZE) / FrameFormat.HEADER_SIZE);
        Path indexFile = FileNames.indexFile(dir, base);
        Path timeIndexFile = FileNames.timeIndexFile(dir, base);
        byte[] idx = readAll(io, indexFile, INDEX_HEADER_SIZE, 28, INDEX_ENTRY_SIZE, maxEntries);
        byte[] time = idx == null ? null
                : readAll(io, timeIndexFile, TIME_HEADER_SIZE, 16, TIME_ENTRY_SIZE, maxEntries);
        if (idx == null || time == null) {
            // the index is rebuilt and written at the next close: a directory in either file's place (too short
            // to be read as one, or never read for a missing index) would fail that close and every open after
            // it, where this one succeeded; it fails this one, as one that reads it does. Checked only here, so
            // an open that loads its indexes makes no extra call per segment
            refuseDirectory(indexFile);
            refuseDirectory(timeIndexFile);
            return null;
        }
        int n = FrameFormat.getInt(idx, 28);
        if (FrameFormat.getInt(idx, 0) != INDEX_MAGIC || FrameFormat.getShort(idx, 4) != VERSION
                || FrameFormat.getLong(idx, 8) != base || n < 0 || idx.length != INDEX_HEADER_SIZE + (long) n * 8
                || FrameFormat.getInt(idx, INDEX_CRC_OFFSET) != crc(idx, INDEX_CRC_OFFSET)
                || FrameFormat.getInt(time, 0) != TIME_INDEX_MAGIC || FrameFormat.getShort(time, 4) != VERSION
                || FrameFormat.getLong(time, 8) != base || FrameFormat.getInt(time, 16) != n
                || time.length != TIME_HEADER_SIZE + (long) n * 12
                || FrameFormat.getInt(time, TIME_CRC_OFFSET) != crc(time, TIME_CRC_OFFSET)) {
            return null;
        }
        long nextOffset = FrameFormat.getLong(idx, 16);
        int segmentSize = FrameFormat.getInt(idx, 24);
        long[] entries = new long[Math.max(16, n)];
        long[] times = new long[Math.max(16, n)];
        long prevRel = -1;
        int prevPos = -1;
        long prevTime = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            int rel = FrameFormat.getInt(idx, INDEX_HEADER_SIZE + i * 8);
            int pos = FrameFormat.getInt(idx, INDEX_HEADER_SIZE + i * 8 + 4);
            long t = FrameFormat.getLong(time, TIME_HEADER_SIZE + i * 12);
            if (rel <= prevRel || pos <= prevPos || t < prevTime || pos >= segmentSize
                    || FrameFormat.getInt(time, TIME_HEADER_SIZE + i * 12 + 8) != rel) {
                return null;
            }
            entries[i] = ((long) rel << 32) | (pos & 0xFFFFFFFFL);
            times[i] = t;
            prevRel = rel;
            prevPos = pos;
            prevTime = t;
        }
        if (nextOffset < base || segmentSize < FrameFormat.SEGMENT_HEADER_SIZE) {
            return null;
        }
        return new Snapshot(new OffsetIndex(entries, times, n), nextOffset, segmentSize, FrameFormat.getLong(idx, 32));
    }

    private static void refuseDirectory(Path file) {
        if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
            throw StorageErrors.wrap("read index", file, new FileSystemException(file.toString(), null,
                    "Is a directory"));
        }
    }

    /** Deletes both files of the segment at {@code base}, if present. */
    static void delete(FileIo io, Path dir, long base) {
        for (Path p : new Path[] {FileNames.indexFile(dir, base), FileNames.timeIndexFile(dir, base)}) {
            try {
                io.deleteIfExists(p);
            } catch (IOException e) {
                throw StorageErrors.wrap("delete", p, e);
            }
        }
    }

    private static int crc(byte[] b, int crcOffset) {
        CRC32C c = new CRC32C();
        c.update(b, 0, crcOffset);
        c.update(b, crcOffset + 4, b.length - crcOffset - 4);
        return (int) c.getValue();
    }

    /**
     * The bytes of an index file, or {@code null} when it is missing, shorter than its header, or not
     * exactly the size its header's entry count (at {@code countOffset}, at most {@code maxEntries}) gives
     * it: only the header is read then, whatever size the file has.
     */
    private static byte @Nullable [] readAll(FileIo io, Path file, int headerSize, int countOffset, int entrySize,
            long maxEntries) {
        try (FileChannel ch = io.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size < headerSize) {
                return null;
            }
            ByteBuffer header = ByteBuffer.allocate(headerSize);
            while (header.hasRemaining() && ch.read(header, header.position()) >= 0) {
                // read until full or end of file
            }
            if (header.hasRemaining()) {
                return null;
            }
            int n = FrameFormat.getInt(header.array(), countOffset);
            if (n < 0 || n > maxEntries || size != headerSize + (long) n * entrySize) {
                return null;
            }
            ByteBuffer buf = ByteBuffer.allocate((int) size);
            while (buf.hasRemaining() && ch.read(buf, buf.position()) >= 0) {
                // read until full or end of file
            }
            return buf.hasRemaining() ? null : buf.array();
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw StorageErrors.wrap("read index", file, e);
        }
    }
}
