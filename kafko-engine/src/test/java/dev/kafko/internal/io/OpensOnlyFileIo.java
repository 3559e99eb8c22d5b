package dev.kafko.internal.io;

import java.nio.file.Path;

/** A {@link FileIo} for tests of code that only opens files: every other call fails as unexpected. */
public abstract class OpensOnlyFileIo implements FileIo {

    @Override
    public void atomicMove(Path source, Path target) {
        throw new UnsupportedOperationException("atomicMove " + source + " -> " + target);
    }

    @Override
    public void deleteIfExists(Path path) {
        throw new UnsupportedOperationException("deleteIfExists " + path);
    }

    @Override
    public void fsyncDirectory(Path dir) {
        throw new UnsupportedOperationException("fsyncDirectory " + dir);
    }
}
