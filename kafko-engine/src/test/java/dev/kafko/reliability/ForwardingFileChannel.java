package dev.kafko.reliability;

import dev.kafko.internal.io.DelegatingFileChannel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.Path;

/**
 * A {@link FileChannel} that forwards to a real one and lets {@link HookedFileIo} see each write
 * and force before (and each force after) it happens. Same threading as the channel it wraps.
 */
final class ForwardingFileChannel extends DelegatingFileChannel {

    private final Path path;
    private final HookedFileIo.Hooks hooks;

    ForwardingFileChannel(FileChannel delegate, Path path, HookedFileIo.Hooks hooks) {
        super(delegate);
        this.path = path;
        this.hooks = hooks;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        hooks.beforeWrite(path, src.remaining());
        return delegate.write(src);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        long n = 0;
        for (int i = offset; i < offset + length; i++) {
            n += srcs[i].remaining();
        }
        hooks.beforeWrite(path, n);
        return delegate.write(srcs, offset, length);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        hooks.beforeWrite(path, src.remaining());
        return delegate.write(src, position);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
        hooks.beforeWrite(path, count);
        return delegate.transferFrom(src, position, count);
    }

    @Override
    public void force(boolean metaData) throws IOException {
        hooks.beforeForce(path);
        delegate.force(metaData);
        hooks.afterForce(path);
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        hooks.beforeTruncate(path, size);
        delegate.truncate(size);
        return this;
    }

    @Override
    protected void implCloseChannel() throws IOException {
        delegate.close();
        hooks.afterClose(path);
    }
}
