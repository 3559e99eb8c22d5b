package dev.kafko.internal.log;

import dev.kafko.internal.io.FileIo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Internal: stores into, reads from and maps the fixed windows ({@value SegmentFile#WINDOW_SIZE} bytes
 * each, the last one perhaps shorter) in which {@link SegmentFile} maps a segment. Stateless.
 */
final class MappedWindows {

    /** Logs as {@link SegmentFile}, whose lines these were (a logging configuration may name it). */
    private static final System.Logger LOG = System.getLogger(SegmentFile.class.getName());

    private MappedWindows() {
    }

    /** Stores {@code len} bytes of {@code src} at {@code pos}, which the windows map. Writer only. */
    static void store(MappedByteBuffer[] w, long pos, byte[] src, int off, int len) {
        while (len > 0) {
            int k = (int) (pos / SegmentFile.WINDOW_SIZE);
            int at = (int) (pos % SegmentFile.WINDOW_SIZE);
            int n = Math.min(len, SegmentFile.WINDOW_SIZE - at);
            w[k].put(at, src, off, n);
            pos += n;
            off += n;
            len -= n;
        }
    }

    /** Copies {@code len} published bytes at {@code pos} into {@code dst}. Any thread. */
    static void read(MappedByteBuffer[] w, Path path, long pos, byte[] dst, int off, int len) {
        while (len > 0) {
            int k = (int) (pos / SegmentFile.WINDOW_SIZE);
            int at = (int) (pos % SegmentFile.WINDOW_SIZE);
            int n = Math.min(len, SegmentFile.WINDOW_SIZE - at);
            if (k >= w.length || at + n > w[k].capacity()) {
                throw new IllegalStateException("read of " + path + " at " + pos + " is past its mapped bytes");
            }
            w[k].get(at, dst, off, n);
            pos += n;
            off += n;
            len -= n;
        }
    }

    /**
     * A read-only little-endian view of published bytes from {@code pos}: index 0 is the byte at
     * {@code pos}, and it holds {@code len} bytes, or fewer when the range runs past the end of the
     * window holding {@code pos} (the caller then copies what straddles the windows with
     * {@link #read}). Any thread. The view shares the mapping: it stays readable after the file is
     * deleted, and its bytes never change, since a published byte is never overwritten nor truncated.
     */
    static ByteBuffer view(MappedByteBuffer[] w, Path path, long pos, int len) {
        int k = (int) (pos / SegmentFile.WINDOW_SIZE);
        int at = (int) (pos % SegmentFile.WINDOW_SIZE);
        if (k >= w.length || at >= w[k].capacity()) {
            throw new IllegalStateException("read of " + path + " at " + pos + " is past its mapped bytes");
        }
        int n = Math.min(len, w[k].capacity() - at);
        return w[k].slice(at, n).asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Maps the first {@code size} bytes of a sealed file read-only, through a channel of its own (a mapping
     * outlives the channel it was made through); null when that fails: the caller then reads with copies,
     * which report what is wrong with the file. Any thread.
     */
    static MappedByteBuffer @Nullable [] mapReadOnly(FileIo io, Path path, long size) {
        try (FileChannel ch = io.open(path, StandardOpenOption.READ)) {
            return map(ch, new MappedByteBuffer[0], 0, size, false);
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "mapping " + path + " failed: " + e);
            return null;
        }
    }

    /**
     * Maps (or remaps) every window that overlaps {@code [from, to)}; a writable mapping past the
     * end of the file grows the file (see {@link SegmentFile}).
     */
    static MappedByteBuffer[] map(FileChannel ch, MappedByteBuffer[] old, long from, long to, boolean writable)
            throws IOException {
        if (to <= from) {
            return old;
        }
        int last = (int) ((to - 1) / SegmentFile.WINDOW_SIZE);
        MappedByteBuffer[] w = Arrays.copyOf(old, Math.max(old.length, last + 1));
        FileChannel.MapMode mode = writable ? FileChannel.MapMode.READ_WRITE : FileChannel.MapMode.READ_ONLY;
        for (int k = (int) (from / SegmentFile.WINDOW_SIZE); k <= last; k++) {
            long start = (long) k * SegmentFile.WINDOW_SIZE;
            long size = Math.min(SegmentFile.WINDOW_SIZE, to - start);
            w[k] = ch.map(mode, start, size);
        }
        return w;
    }
}
