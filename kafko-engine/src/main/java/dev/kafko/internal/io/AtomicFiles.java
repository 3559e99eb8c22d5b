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
        Path tmp = target.resolveSibling(target.getFileName() + FileNames.TMP_SUFFIX);
        try (FileChannel ch = io.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            while (content.hasRemaining()) {
                ch.write(content);
            }
            // the payload is on disk before the rename can make it visible under the real name
            ch.force(true);
        }
        // a rename is atomic: readers see the old file or the new one
        io.atomicMove(tmp, target);
        // the rename itself is durable only once the directory entry is
        io.fsyncDirectory(target.getParent());
    }
}
