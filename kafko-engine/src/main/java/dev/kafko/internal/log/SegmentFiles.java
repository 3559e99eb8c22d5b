package dev.kafko.internal.log;

import static dev.kafko.internal.log.FrameFormat.SEGMENT_HEADER_SIZE;

import dev.kafko.KafkoException;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.StorageErrors;
import dev.kafko.internal.io.Failures;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Internal: segment files by path, before and beside their {@link SegmentFile}: the 16-byte header of a
 * new one ({@link FrameFormat}'s table), its creation, the opening of an existing one, and an fsync
 * through a channel of its own. Stateless; run by the thread opening the log ({@link LogLoader}) and by
 * the log's writer (a roll, a seal).
 */
final class SegmentFiles {

    /** Logs as {@link SegmentFile}, whose lines these were (a logging configuration may name it). */
    private static final System.Logger LOG = System.getLogger(SegmentFile.class.getName());

    private SegmentFiles() {
    }

    /**
     * Releases every file of a log that closes, or that failed to open: the channels, then the mappings
     * ({@link SegmentFile#closeWithLog}), so that a handle kept to a deleted topic or a closed instance keeps
     * neither. A channel whose close fails does not keep the others open: each one is closed, and the first
     * failure is thrown with the others suppressed in it.
     */
    static void closeAll(Segment[] segs) {
        Throwable first = null;
        for (Segment s : segs) {
            try {
                s.file().closeChannel();
            } catch (RuntimeException | Error e) {
                first = Failures.suppress(first, e);
            }
        }
        for (Segment s : segs) {
            try {
                s.file().closeWithLog();
            } catch (RuntimeException | Error e) {
                first = Failures.suppress(first, e);
            }
        }
        Failures.rethrow(first);
    }

    /** {@link #closeAll} after {@code primary} failed: what the closing throws is suppressed in it. */
    static void closeAllAfter(Segment[] segs, Throwable primary) {
        try {
            closeAll(segs);
        } catch (RuntimeException | Error e) {
            Failures.suppress(primary, e);
        }
    }

    /**
     * Closes the channel of each of {@code segs} after {@code primary} failed the open that opened them: a close
     * that fails keeps no later one open, and is suppressed in {@code primary}, which the caller throws.
     */
    static void closeAfter(List<Segment> segs, Throwable primary) {
        for (Segment s : segs) {
            closeAfter(s.file(), primary);
        }
    }

    /** {@link #closeAfter(List, Throwable)} of one file. */
    static void closeAfter(SegmentFile file, Throwable primary) {
        try {
            file.closeChannel();
        } catch (RuntimeException | Error e) {
            Failures.suppress(primary, e);
        }
    }

    /** The 16-byte header of a segment file starting at {@code baseOffset}. */
    static byte[] header(long baseOffset) {
        byte[] h = new byte[SEGMENT_HEADER_SIZE];
        FrameFormat.putInt(h, FrameFormat.SEGMENT_MAGIC_OFFSET, FrameFormat.SEGMENT_MAGIC);
        FrameFormat.putShort(h, FrameFormat.SEGMENT_VERSION_OFFSET, FrameFormat.SEGMENT_VERSION);
        FrameFormat.putLong(h, FrameFormat.SEGMENT_BASE_OFFSET_OFFSET, baseOffset);
        return h;
    }

    /**
     * Opens an existing file. When {@code writable}, it is mapped and the channel stays open for appends
     * past {@code size}; otherwise nothing is mapped (the first {@link SegmentFile#view} maps it, budget
     * permitting), and the channel is kept among the {@link UnmappedReads}' for the reads that check the file
     * on open.
     */
    static SegmentFile open(FileIo io, Path path, boolean writable, long allocationLimit) {
        try {
            FileChannel ch = writable
                    ? io.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)
                    : io.open(path, StandardOpenOption.READ);
            try {
                long size = ch.size();
                if (!writable) {
                    SegmentFile file = new SegmentFile(io, path, null, SegmentFile.UNMAPPED, size, allocationLimit);
                    file.keepForReads(ch);
                    return file;
                }
                MappedByteBuffer[] windows = MappedWindows.map(ch, new MappedByteBuffer[0], 0, size, true);
                return new SegmentFile(io, path, ch, windows, size, allocationLimit);
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
        } catch (IOException e) {
            throw StorageErrors.wrap("open segment", path, e);
        }
    }

    /**
     * Creates a new file holding only {@code header} (written with {@code pwrite}, so a full disk is an
     * {@code IOException}), open for appends; no block is allocated ahead until the first append.
     */
    static SegmentFile create(FileIo io, Path path, byte[] header, long allocationLimit) {
        try {
            FileChannel ch = io.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            boolean written = false;
            try {
                ByteBuffer b = ByteBuffer.wrap(header);
                while (b.hasRemaining()) {
                    ch.write(b, b.position());
                }
                written = true;
            } finally {
                if (!written) {
                    // no file without its header: a reopen would take it for a damaged segment
                    abandon(io, path, ch);
                }
            }
            return new SegmentFile(io, path, ch, new MappedByteBuffer[0], header.length, allocationLimit);
        } catch (IOException | RuntimeException e) {
            throw e instanceof KafkoException k ? k : StorageErrors.wrap("create segment", path, e);
        }
    }

    /** Closes and deletes a file whose creation failed; what fails here is left to the failure reported. */
    private static void abandon(FileIo io, Path path, FileChannel ch) {
        try {
            ch.close();
        } catch (IOException | RuntimeException e) {
            // the creation's own failure is what the caller hears of
        }
        try {
            io.deleteIfExists(path);
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "cannot delete " + path + ", left without its header after a failed"
                    + " creation: " + e);
        }
    }

    /** Forces the segment file {@code log} to disk, its size included, through a channel of its own. */
    static void force(FileIo io, Path log) {
        try (FileChannel ch = io.open(log, StandardOpenOption.WRITE)) {
            ch.force(true);
        } catch (IOException e) {
            throw StorageErrors.wrap("fsync", log, e);
        }
    }
}
