package dev.kafko.internal.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Internal: writes small files so that a crash leaves either the old or the new content, never a
 * mix and never an empty file. Stateless; any thread.
 */
public final class AtomicFiles {

    private AtomicFiles() {
    }

    /**
     * Writes {@code content} to {@code target}: temp file, fsync, atomic rename, fsync of the directory.
     */
    public static void write(FileIo io, Path target, ByteBuffer content) throws IOException {
        // the payload is on disk before the rename can make it visible under the real name
        Path tmp = writeTemp(io, target, content, true);
        // a rename is atomic: readers see the old file or the new one
        io.atomicMove(tmp, target);
        // the rename itself is durable only once the directory entry is
        io.fsyncDirectory(target.getParent());
    }

    /**
     * Writes {@code content} to {@code target} through a temp file and an atomic rename, without an
     * fsync of the directory (and of the file unless {@code forceData}): readers in this process see
     * the old file or the new one, but after a machine crash {@code target} may be old or missing,
     * and without {@code forceData} also empty or partly written. Only for files whose content is
     * checked when read (a CRC) and rebuilt when the check fails; the caller fsyncs the directory
     * once for several of them when the renames must become durable.
     */
    public static void replace(FileIo io, Path target, ByteBuffer content, boolean forceData) throws IOException {
        io.atomicMove(writeTemp(io, target, content, forceData), target);
    }

    private static Path writeTemp(FileIo io, Path target, ByteBuffer content, boolean force) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + FileNames.TMP_SUFFIX);
        try (FileChannel ch = io.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            while (content.hasRemaining()) {
                ch.write(content);
            }
            if (force) {
                ch.force(true);
            }
        }
        return tmp;
    }
}
