package dev.kafko.internal.log;

import dev.kafko.OffsetOutOfRangeException;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.StorageErrors;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the reads of a sealed segment file that is not mapped (the {@link MappingBudget} had no room
 * for it, or it was not read through a view yet): positional reads ({@code pread}) into heap buffers.
 * Any thread. A copy is the reader's own, and nothing writes it after the read: its bytes never change,
 * as those of a view of the mapping never do, so records may slice it.
 *
 * <p>File descriptors stay bounded: the channels are kept in one process-wide cache of at most
 * {@value #MAX_OPEN}, least recently used first out. A consumer reading an unmapped segment reads it
 * frame after frame, and opening the file for each read would cost two more system calls per read (the
 * loader reads a few frame headers of each sealed segment); one channel per unmapped
 * segment, for as long as the log is open, would be as many descriptors as segments (the cause of the
 * mapping limit, moved to the descriptor limit). A channel closed under a read (evicted, or closed by
 * another reader's interrupt) is opened again and the read starts over; a reader interrupted in the read
 * has its interrupt status cleared for the retry and set again afterwards, so an unmapped segment reads
 * on an interrupted thread as a mapped one does. {@link #close} (the file is released: deleted, or closed
 * with its log) closes its channel at once, so a deleted file's blocks are not held; a read after it
 * fails with {@link OffsetOutOfRangeException}, which a consumer handles as retention moving the log start.
 */
final class UnmappedReads {

    /** Channels kept open at most, over every unmapped segment of the process. */
    static final int MAX_OPEN = 64;
    /** A read that found its channel closed this many times opens one of its own. */
    private static final int CACHED_ATTEMPTS = 3;
    /** The open channels, least recently used first; guards {@link #closed} too. */
    private static final LinkedHashMap<UnmappedReads, FileChannel> OPEN = new LinkedHashMap<>(16, 0.75f, true);

    private final FileIo io;
    private final Path path;
    /** Set when the file is released; under {@link #OPEN}'s lock. */
    private boolean closed;

    UnmappedReads(FileIo io, Path path) {
        this.io = io;
        this.path = path;
    }

    /** A little-endian heap copy of the {@code len} bytes at {@code pos} (index 0 is {@code pos}). */
    ByteBuffer copy(long pos, int len) {
        ByteBuffer dst = ByteBuffer.allocate(len);
        readFully(dst, pos);
        return dst.clear().order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Copies {@code len} bytes at {@code pos} into {@code dst[off, off + len)}. */
    void read(long pos, byte[] dst, int off, int len) {
        readFully(ByteBuffer.wrap(dst, off, len), pos);
    }

    /** Keeps {@code ch}, a read-only channel of the file the caller opened, for the reads that follow. */
    void keep(FileChannel ch) {
        FileChannel evicted;
        synchronized (OPEN) {
            if (closed || OPEN.putIfAbsent(this, ch) != null) {
                evicted = ch;
            } else {
                evicted = evictEldest();
            }
        }
        closeQuietly(evicted);
    }

    /** Closes this file's cached channel, if it has one, without ending its reads: the next read opens one again. */
    void dropCached() {
        FileChannel ch;
        synchronized (OPEN) {
            ch = OPEN.remove(this);
        }
        closeQuietly(ch);
    }

    /** The file is released: its channel is closed, and every later read fails. Idempotent. */
    void close() {
        FileChannel ch;
        synchronized (OPEN) {
            closed = true;
            ch = OPEN.remove(this);
        }
        closeQuietly(ch);
    }

    /** Fills {@code dst} (from its position) with the bytes at {@code pos}; its position ends at its limit. */
    private void readFully(ByteBuffer dst, long pos) {
        int start = dst.position();
        boolean interrupted = false;
        try {
            for (int attempt = 1; ; attempt++) {
                boolean cached = attempt <= CACHED_ATTEMPTS;
                FileChannel ch = cached ? channel() : open();
                try {
                    dst.position(start);
                    while (dst.hasRemaining()) {
                        if (ch.read(dst, pos + dst.position() - start) < 0) {
                            throw new EOFException("end of file at " + (pos + dst.position() - start));
                        }
                    }
                    return;
                } catch (ClosedChannelException e) {
                    // evicted, released, or closed by an interrupt (this thread's: cleared for the retry)
                    interrupted |= e instanceof ClosedByInterruptException && Thread.interrupted();
                    forget(ch);
                    if (!cached) {
                        throw failure(dst.remaining(), pos, e);
                    }
                } catch (IOException e) {
                    forget(ch);
                    throw failure(dst.remaining(), pos, e);
                } finally {
                    if (!cached) {
                        closeQuietly(ch);
                    }
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The cached channel of this file, opened now if need be. */
    private FileChannel channel() {
        synchronized (OPEN) {
            checkOpen();
            FileChannel ch = OPEN.get(this);
            if (ch != null) {
                return ch;
            }
        }
        FileChannel ch = open();
        boolean released;
        FileChannel kept;
        @Nullable FileChannel extra;
        synchronized (OPEN) {
            released = closed;
            @Nullable FileChannel other = released ? null : OPEN.putIfAbsent(this, ch);
            kept = other != null ? other : ch;
            extra = released || other != null ? ch : evictEldest();
        }
        // closed outside the lock: a close waits for the reads in progress on that channel
        closeQuietly(extra);
        if (released) {
            throw deleted();
        }
        return kept;
    }

    /** A channel of the file; the caller closes it or keeps it. */
    private FileChannel open() {
        try {
            return io.open(path, StandardOpenOption.READ);
        } catch (IOException e) {
            synchronized (OPEN) {
                checkOpen();
            }
            throw StorageErrors.wrap("open segment for reading", path, e);
        }
    }

    /** Removes {@code ch} from the cache (if it is this file's) and closes it. */
    private void forget(FileChannel ch) {
        synchronized (OPEN) {
            OPEN.remove(this, ch);
        }
        closeQuietly(ch);
    }

    /** Under {@link #OPEN}'s lock, after an insertion: the least recently used channel past the bound, or null. */
    private static @Nullable FileChannel evictEldest() {
        if (OPEN.size() <= MAX_OPEN) {
            return null;
        }
        Iterator<Map.Entry<UnmappedReads, FileChannel>> it = OPEN.entrySet().iterator();
        FileChannel eldest = it.next().getValue();
        it.remove();
        return eldest;
    }

    /** Under {@link #OPEN}'s lock. */
    private void checkOpen() {
        if (closed) {
            throw deleted();
        }
    }

    private OffsetOutOfRangeException deleted() {
        return new OffsetOutOfRangeException("segment " + path + " was deleted (by retention, or with its topic)"
                + " or closed while being read");
    }

    private RuntimeException failure(int len, long pos, IOException e) {
        synchronized (OPEN) {
            checkOpen();
        }
        return StorageErrors.wrap("read " + len + " bytes at position " + pos + " of segment", path, e);
    }

    /** Channels open now, over every file: for tests. */
    static int openChannels() {
        synchronized (OPEN) {
            return OPEN.size();
        }
    }

    private static void closeQuietly(@Nullable FileChannel ch) {
        if (ch == null) {
            return;
        }
        try {
            ch.close();
        } catch (IOException e) {
            // read-only: nothing was lost
        }
    }
}
