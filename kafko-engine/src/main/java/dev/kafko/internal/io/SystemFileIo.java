package dev.kafko.internal.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Internal: {@link FileIo} on the real file system. Its channels survive interrupted threads (see
 * {@link InterruptSafeChannel}).
 */
final class SystemFileIo implements FileIo {

    /** {@code FileChannel.open}. */
    private static final InterruptSafeChannel.Opener OPENER = new InterruptSafeChannel.Opener() {
        @Override
        public FileChannel open(Path path, OpenOption... options) throws IOException {
            return FileChannel.open(path, options);
        }
    };

    @Override
    public FileChannel open(Path path, OpenOption... options) throws IOException {
        return InterruptSafeChannel.open(OPENER, path, options);
    }

    @Override
    public void atomicMove(Path source, Path target) throws IOException {
        Files.move(source, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public void deleteIfExists(Path path) throws IOException {
        Files.deleteIfExists(path);
    }

    @Override
    public void fsyncDirectory(Path dir) throws IOException {
        // Linux lets a directory be opened read-only and forced; that makes its entries durable.
        try (FileChannel ch = open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
