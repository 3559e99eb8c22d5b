package dev.kafko.internal.log;

import dev.kafko.internal.io.FileIo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * Internal: {@code pread}s of a segment file that is being written, for readers following the
 * writer. Large frames are written with {@code pwrite}, so the mapping has not faulted their pages
 * in; a reader that took a fault for each fresh 4 KiB page would pay several times what a copy of
 * the same bytes costs. The reads go through a read-only channel of their own, opened on first use:
 * an interrupted reader closes only that one (never the writer's), and the next read opens another.
 * Any thread; {@link #close} (when the file is sealed or closed) makes every later read return null.
 */
final class TailReads {

    private final SideChannel channel;

    TailReads(FileIo io, Path path) {
        this.channel = new SideChannel(io, path);
    }

    /**
     * A little-endian copy of the {@code len} bytes at {@code pos} (published bytes: they never
     * change), or null when closed or the read failed (the caller reads the mapping instead).
     */
    @Nullable ByteBuffer copy(long pos, int len) {
        FileChannel ch = channel.get();
        if (ch == null) {
            return null;
        }
        ByteBuffer dst = ByteBuffer.allocate(len).order(ByteOrder.LITTLE_ENDIAN);
        try {
            while (dst.hasRemaining()) {
                if (ch.read(dst, pos + dst.position()) < 0) {
                    return null;
                }
            }
        } catch (IOException e) {
            // closed by close(), or by this thread's interrupt (whose flag stays set)
            channel.forget(ch);
            return null;
        }
        return dst.clear();
    }

    /** Closes the channel; later reads return null. */
    void close() {
        channel.close();
    }
}
