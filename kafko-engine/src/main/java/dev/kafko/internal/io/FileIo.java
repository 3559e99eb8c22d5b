package dev.kafko.internal.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;

/**
 * Internal: the file-system operations the engine's storage performs, in one narrow seam so that
 * tests can fail the Nth write, fsync or rename, or make a short write, and then reopen the log.
 * Every file the engine reads or writes is opened through an instance of this interface.
 * Implementations are thread-safe.
 */
public interface FileIo {

    /** The real file system. */
    FileIo SYSTEM = new SystemFileIo();

    /** Opens a channel; writes and {@link FileChannel#force(boolean)} go through the returned channel. */
    FileChannel open(Path path, OpenOption... options) throws IOException;

    /** Renames {@code source} to {@code target} atomically, replacing {@code target}. */
    void atomicMove(Path source, Path target) throws IOException;

    /** Deletes the file if it exists. */
    void deleteIfExists(Path path) throws IOException;

    /** Forces a directory's entries (creations, renames, deletions) to disk. */
    void fsyncDirectory(Path dir) throws IOException;

    /**
     * The bytes an unprivileged writer may still write on the file system that holds {@code path}
     * ({@code statvfs}'s available blocks; ext4 counts the blocks its delayed allocations reserved as
     * used), or 0 when that cannot be told (the path is gone, say).
     */
    default long usableSpace(Path path) {
        return path.toFile().getUsableSpace();
    }
}
