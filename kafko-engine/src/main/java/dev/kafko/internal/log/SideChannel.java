package dev.kafko.internal.log;

import dev.kafko.internal.io.FileIo;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.jspecify.annotations.Nullable;

/**
 * Internal: a read-only channel of a segment file beside the writer's own, opened on first use. A
 * thread interrupted in one of its calls closes only this channel, never the writer's, and the next
 * {@link #get} opens another. Any thread; after {@link #close} (when the file is sealed or closed)
 * {@link #get} returns null.
 */
final class SideChannel {

    private final FileIo io;
    private final Path path;
    private @Nullable FileChannel channel;
    private boolean closed;

    SideChannel(FileIo io, Path path) {
        this.io = io;
        this.path = path;
    }

    /** The channel, opened now if need be; null when closed or when it cannot be opened. */
    synchronized @Nullable FileChannel get() {
        if (channel == null && !closed) {
            try {
                channel = io.open(path, StandardOpenOption.READ);
            } catch (IOException e) {
                return null;
            }
        }
        return channel;
    }

    /** Closes {@code ch} after a failed call, so that the next {@link #get} opens a fresh channel. */
    void forget(FileChannel ch) {
        synchronized (this) {
            if (channel == ch) {
                channel = null;
            }
        }
        closeQuietly(ch);
    }

    /**
     * {@code fdatasync} of the file through this channel, any error ignored. Only for data the writer
     * forces again through its own channel before it acknowledges anything: Linux reports a writeback
     * error once to every open file description, so an error met here is still reported to the
     * writer's {@code fsync}.
     */
    void forceQuietly() {
        FileChannel ch = get();
        if (ch == null) {
            return;
        }
        try {
            ch.force(false);
        } catch (IOException e) {
            forget(ch);
        }
    }

    /** Closes the channel; later calls to {@link #get} return null. */
    void close() {
        FileChannel ch;
        synchronized (this) {
            closed = true;
            ch = channel;
            channel = null;
        }
        if (ch != null) {
            closeQuietly(ch);
        }
    }

    private static void closeQuietly(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException e) {
            // read-only: nothing was lost
        }
    }
}
