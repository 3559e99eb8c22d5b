package dev.kafko.internal.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;

/** A {@link FileIo} for tests: the real file system, with every channel it opens wrapped as the test says. */
public class WrappingFileIo implements FileIo {

    /** Wraps the real channel opened on {@code path} with {@code options}. */
    @FunctionalInterface
    public interface Wrapper {
        FileChannel wrap(Path path, OpenOption[] options, FileChannel real);
    }

    private final Wrapper wrapper;

    public WrappingFileIo(Wrapper wrapper) {
        this.wrapper = wrapper;
    }

    @Override
    public FileChannel open(Path path, OpenOption... options) throws IOException {
        return wrapper.wrap(path, options, FileIo.SYSTEM.open(path, options));
    }

    @Override
    public void atomicMove(Path source, Path target) throws IOException {
        FileIo.SYSTEM.atomicMove(source, target);
    }

    @Override
    public void deleteIfExists(Path path) throws IOException {
        FileIo.SYSTEM.deleteIfExists(path);
    }

    @Override
    public void fsyncDirectory(Path dir) throws IOException {
        FileIo.SYSTEM.fsyncDirectory(dir);
    }
}
