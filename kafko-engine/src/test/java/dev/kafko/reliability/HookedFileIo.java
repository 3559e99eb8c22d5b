package dev.kafko.reliability;

import dev.kafko.internal.io.FileIo;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * A {@link FileIo} over the real file system that records every call and lets a test act before
 * and after each one (fail it, count it, snapshot the file). Thread-safe when the hooks are.
 */
final class HookedFileIo implements FileIo {

    /** What a test does around each call; every method may throw to fail the call. */
    interface Hooks {
        default void beforeOpen(Path path, boolean existed) throws IOException {
        }

        default void afterOpen(Path path, boolean existed) throws IOException {
        }

        default void beforeWrite(Path path, long bytes) throws IOException {
        }

        default void beforeForce(Path path) throws IOException {
        }

        default void beforeTruncate(Path path, long size) throws IOException {
        }

        default void afterForce(Path path) throws IOException {
        }

        default void beforeMove(Path source, Path target) throws IOException {
        }

        default void beforeDelete(Path path) throws IOException {
        }

        default void afterFsyncDirectory(Path dir) throws IOException {
        }

        /** In {@link #heldUnderAnotherName}, after {@code path} was found and before its parent is listed. */
        default void beforeListing(Path path) throws IOException {
        }

        /** After a channel of {@code path} closed (its descriptor released, as Linux does when close(2) fails). */
        default void afterClose(Path path) throws IOException {
        }
    }

    private final Hooks hooks;
    private final FileIo base;
    private final List<String> calls = new CopyOnWriteArrayList<>();

    HookedFileIo(Hooks hooks) {
        this(hooks, FileIo.SYSTEM);
    }

    /** Over {@code base} instead of the file system itself (one that skips fsyncs, for tests that make thousands). */
    HookedFileIo(Hooks hooks, FileIo base) {
        this.hooks = hooks;
        this.base = base;
    }

    HookedFileIo() {
        this(new Hooks() {
        });
    }

    /** Every call so far, as "operation path". */
    List<String> calls() {
        return calls;
    }

    @Override
    public FileChannel open(Path path, OpenOption... options) throws IOException {
        calls.add("open " + path);
        boolean existed = Files.exists(path);
        hooks.beforeOpen(path, existed);
        FileChannel ch = base.open(path, options);
        try {
            hooks.afterOpen(path, existed);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
        return new ForwardingFileChannel(ch, path, hooks);
    }

    @Override
    public void atomicMove(Path source, Path target) throws IOException {
        calls.add("move " + source + " " + target);
        hooks.beforeMove(source, target);
        base.atomicMove(source, target);
    }

    @Override
    public void deleteIfExists(Path path) throws IOException {
        calls.add("delete " + path);
        hooks.beforeDelete(path);
        base.deleteIfExists(path);
    }

    @Override
    public void fsyncDirectory(Path dir) throws IOException {
        calls.add("fsyncDirectory " + dir);
        base.fsyncDirectory(dir);
        hooks.afterFsyncDirectory(dir);
    }

    @Override
    public @Nullable String heldUnderAnotherName(Path path) throws IOException {
        calls.add("lookup " + path);
        // FileIo's own two steps, a lookup and then a listing of the parent, with the hook between them
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        hooks.beforeListing(path);
        String listed = FileIo.listedAlike(path);
        if (path.getFileName().toString().equals(listed)) {
            return null;
        }
        return listed != null ? listed : "another name";
    }
}
