package dev.kafko.internal.io;

import java.io.FileDescriptor;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Internal: a {@link FileChannel} that an interrupted thread does not close. Any thread, as a
 * {@code FileChannel}.
 *
 * <p>The JDK's file channel is interruptible: a thread interrupted while it is in (or enters) one of its
 * calls closes the channel for every thread, with {@code ClosedByInterruptException} for itself and
 * {@code AsynchronousCloseException} for the others. kafko does file work on application threads (an
 * uncontended send runs its partition's writes and fsyncs on the sender's thread, a commit writes the
 * group's offsets file on the consumer's), and {@code ExecutorService.shutdownNow()} interrupts exactly
 * those. So this channel, on such a closure, opens the file again and repeats the call, which is
 * idempotent for every call kafko makes (positional reads and writes, resuming where the closed
 * channel's call left the buffer; size; truncate; map; fsync), and gives the thread its interrupt back.
 * A thread already interrupted when it calls in keeps its interrupt set aside for the call, so it does
 * not close the channel at all.
 *
 * <p>An fsync cut short this way may have met a writeback error that the JDK then replaced with the
 * closure, and Linux reports a writeback error once per open file description, so the reopened file
 * would not report it. A writable channel therefore keeps a <em>witness</em>: a second descriptor,
 * opened with the first and used for nothing but an fsync after such a closure. Its view of the file's
 * writeback errors dates from its opening, so it reports every error the closed descriptor may have
 * swallowed; once it has reported one, every later fsync that follows a closure fails with it. Its fsync
 * goes through {@link FileDescriptor#sync}, which no interrupt cuts short.
 *
 * <p>A channel that took a {@link FileLock} is never reopened (the lock went with the closed
 * descriptor): its closure is final, as the JDK's. Relative reads and writes keep the position here
 * and read or write at it (scattering and gathering ones set it on the file's channel first, so that
 * they stay one system call). {@code APPEND} is not supported.
 */
final class InterruptSafeChannel extends FileChannel {

    /** A call on the channel it is given; repeated on a fresh channel after a closure. */
    @FunctionalInterface
    private interface Call<T> {
        T on(FileChannel ch) throws IOException;
    }

    // the calls of the paths every log takes from its open are named classes, not lambdas (see the package javadoc)

    private static final Call<Long> SIZE = new Call<>() {
        @Override
        public Long on(FileChannel ch) throws IOException {
            return ch.size();
        }
    };

    /** A read at a position, resumed where a closure left the buffer. */
    private static final class PositionalRead implements Call<Integer> {
        private final ByteBuffer dst;
        private final long position;
        private final int start;

        PositionalRead(ByteBuffer dst, long position) {
            this.dst = dst;
            this.position = position;
            this.start = dst.position();
        }

        @Override
        public Integer on(FileChannel ch) throws IOException {
            int done = dst.position() - start;
            int n = ch.read(dst, position + done);
            return n < 0 ? (done == 0 ? -1 : done) : done + n;
        }
    }

    /** A write at a position, resumed where a closure left the buffer. */
    private static final class PositionalWrite implements Call<Integer> {
        private final ByteBuffer src;
        private final long position;
        private final int start;

        PositionalWrite(ByteBuffer src, long position) {
            this.src = src;
            this.position = position;
            this.start = src.position();
        }

        @Override
        public Integer on(FileChannel ch) throws IOException {
            int done = src.position() - start;
            return done + ch.write(src, position + done);
        }
    }

    private static final class Truncate implements Call<FileChannel> {
        private final long size;

        Truncate(long size) {
            this.size = size;
        }

        @Override
        public FileChannel on(FileChannel ch) throws IOException {
            return ch.truncate(size);
        }
    }

    private static final class MapCall implements Call<MappedByteBuffer> {
        private final MapMode mode;
        private final long position;
        private final long size;

        MapCall(MapMode mode, long position, long size) {
            this.mode = mode;
            this.position = position;
            this.size = size;
        }

        @Override
        public MappedByteBuffer on(FileChannel ch) throws IOException {
            return ch.map(mode, position, size);
        }
    }

    /** Opens a file; the real {@code FileChannel.open} but in tests. */
    @FunctionalInterface
    interface Opener {
        FileChannel open(Path path, OpenOption... options) throws IOException;

        /** A read-only descriptor of {@code path} whose only use is {@link Witness#sync}. */
        default Witness openWitness(Path path) throws IOException {
            RandomAccessFile file = new RandomAccessFile(path.toFile(), "r");
            FileDescriptor fd = file.getFD();
            return new Witness() {
                @Override
                public void sync() throws IOException {
                    fd.sync();
                }

                @Override
                public void close() throws IOException {
                    file.close();
                }
            };
        }
    }

    /** A descriptor kept to learn of writeback errors; not interruptible. */
    interface Witness extends AutoCloseable {
        /** {@code fsync}: fails with the writeback errors met since the descriptor last reported one. */
        void sync() throws IOException;

        @Override
        void close() throws IOException;
    }

    /** Closures repeated for one call before it gives up (each needs a fresh interrupt). */
    private static final int MAX_REOPENS = 1_000;

    private final Opener opener;
    private final Path path;
    private final OpenOption[] reopenOptions;
    private final @Nullable Witness witness;
    private volatile FileChannel delegate;
    /** The position of relative reads and writes; under {@link #positionLock}. */
    private long position;
    private final Object positionLock = new Object();
    /** Set once a lock is taken: the channel is never reopened; under {@code this}. */
    private boolean locked;
    /** The writeback error the witness reported, failing every fsync after a closure; under {@code this}. */
    private @Nullable IOException writebackFailure;

    private InterruptSafeChannel(Opener opener, Path path, OpenOption[] reopenOptions, FileChannel delegate,
            @Nullable Witness witness) {
        this.opener = opener;
        this.path = path;
        this.reopenOptions = reopenOptions;
        this.delegate = delegate;
        this.witness = witness;
    }

    /** Opens {@code path} with {@code options}, which may not hold {@code APPEND}. */
    static FileChannel open(Opener opener, Path path, OpenOption... options) throws IOException {
        if (Arrays.asList(options).contains(StandardOpenOption.APPEND)) {
            throw new IllegalArgumentException("APPEND is not supported: " + path);
        }
        // the same file again: never created, truncated or deleted on close a second time
        List<OpenOption> again = new ArrayList<>(options.length);
        for (OpenOption o : options) {
            if (o != StandardOpenOption.CREATE && o != StandardOpenOption.CREATE_NEW
                    && o != StandardOpenOption.TRUNCATE_EXISTING && o != StandardOpenOption.DELETE_ON_CLOSE) {
                again.add(o);
            }
        }
        OpenOption[] reopen = again.toArray(new OpenOption[0]);
        boolean writable = Arrays.asList(options).contains(StandardOpenOption.WRITE);
        FileChannel ch = opener.open(path, options);
        try {
            Witness witness = writable ? opener.openWitness(path) : null;
            return new InterruptSafeChannel(opener, path, reopen, ch, witness);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        return call(new PositionalRead(dst, position));
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        return call(new PositionalWrite(src, position));
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        synchronized (positionLock) {
            int n = read(dst, position);
            if (n > 0) {
                position += n;
            }
            return n;
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        synchronized (positionLock) {
            int n = write(src, position);
            position += n;
            return n;
        }
    }

    /**
     * One scattering read at the position (as the JDK's: one {@code readv}), resumed where a closure
     * left the buffers.
     */
    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        synchronized (positionLock) {
            long[] start = positions(dsts, offset, length);
            long n = call(ch -> {
                long done = done(dsts, offset, length, start);
                ch.position(position + done);
                long r = ch.read(dsts, offset, length);
                return r < 0 ? (done == 0 ? -1 : done) : done + r;
            });
            if (n > 0) {
                position += n;
            }
            return n;
        }
    }

    /**
     * One gathering write at the position (one {@code writev}: the kernel sizes a page-cache folio by
     * the length of the write it allocates it for), resumed where a closure left the buffers.
     */
    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        synchronized (positionLock) {
            long[] start = positions(srcs, offset, length);
            long n = call(ch -> {
                long done = done(srcs, offset, length, start);
                ch.position(position + done);
                return done + ch.write(srcs, offset, length);
            });
            position += n;
            return n;
        }
    }

    private static long[] positions(ByteBuffer[] buffers, int offset, int length) {
        long[] p = new long[length];
        for (int i = 0; i < length; i++) {
            p[i] = buffers[offset + i].position();
        }
        return p;
    }

    /** The bytes the buffers moved by since {@code start}. */
    private static long done(ByteBuffer[] buffers, int offset, int length, long[] start) {
        long done = 0;
        for (int i = 0; i < length; i++) {
            done += buffers[offset + i].position() - start[i];
        }
        return done;
    }

    @Override
    public long position() throws IOException {
        ensureOpen();
        synchronized (positionLock) {
            return position;
        }
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
        if (newPosition < 0) {
            throw new IllegalArgumentException("negative position " + newPosition);
        }
        ensureOpen();
        synchronized (positionLock) {
            position = newPosition;
        }
        return this;
    }

    @Override
    public long size() throws IOException {
        return call(SIZE);
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        call(new Truncate(size));
        synchronized (positionLock) {
            position = Math.min(position, size);
        }
        return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
        call(ch -> {
            try {
                ch.force(metaData);
            } catch (ClosedChannelException e) {
                throw e;
            } catch (IOException e) {
                // reported here: the witness must not report it again after a later closure
                absorbInWitness();
                throw e;
            }
            return null;
        }, true);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
        return call(new MapCall(mode, position, size));
    }

    /** Not repeated after a closure (the target may hold part of the bytes): the closure is thrown. */
    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        return callOnce(ch -> ch.transferTo(position, count, target));
    }

    /** Not repeated after a closure (the source was read from): the closure is thrown. */
    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
        return callOnce(ch -> ch.transferFrom(src, position, count));
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        synchronized (this) {
            locked = true;
        }
        return delegate.lock(position, size, shared);
    }

    @Override
    public @Nullable FileLock tryLock(long position, long size, boolean shared) throws IOException {
        synchronized (this) {
            locked = true;
        }
        return delegate.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
        try {
            delegate.close();
        } finally {
            if (witness != null) {
                witness.close();
            }
        }
    }

    private <T> T call(Call<T> call) throws IOException {
        return call(call, false);
    }

    private <T> T call(Call<T> call, boolean fsync) throws IOException {
        // a thread interrupted before the call would close the channel on entry: its interrupt waits
        boolean interrupted = Thread.interrupted();
        try {
            for (int attempt = 0; ; attempt++) {
                FileChannel ch = delegate;
                try {
                    return call.on(ch);
                } catch (ClosedChannelException e) {
                    interrupted |= Thread.interrupted();
                    reopen(ch, e, attempt);
                    if (fsync) {
                        checkWitness();
                    }
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private <T> T callOnce(Call<T> call) throws IOException {
        FileChannel ch = delegate;
        try {
            return call.on(ch);
        } catch (ClosedChannelException e) {
            boolean interrupted = Thread.interrupted();
            try {
                reopen(ch, e, 0);
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            throw e;
        }
    }

    private void ensureOpen() throws ClosedChannelException {
        if (!isOpen()) {
            throw new ClosedChannelException();
        }
    }

    /** Replaces {@code failed} with a fresh channel of the same file, unless another thread did already. */
    private synchronized void reopen(FileChannel failed, ClosedChannelException closure, int attempt) throws IOException {
        if (!isOpen() || locked || attempt >= MAX_REOPENS) {
            throw closure;
        }
        if (delegate == failed) {
            delegate = opener.open(path, reopenOptions);
        }
    }

    /**
     * Fails with the writeback error an fsync cut short by a closure may have swallowed, if the witness
     * reports one now or did before.
     */
    private synchronized void checkWitness() throws IOException {
        if (witness == null) {
            return;
        }
        if (writebackFailure == null) {
            try {
                witness.sync();
                return;
            } catch (IOException e) {
                writebackFailure = e;
            }
        }
        throw new IOException("writeback of " + path + " failed: " + writebackFailure.getMessage(), writebackFailure);
    }

    /** Lets the witness see a writeback error that was just reported, so that it never reports it again. */
    private synchronized void absorbInWitness() {
        if (witness != null) {
            try {
                witness.sync();
            } catch (IOException e) {
                // the same error, already reported
            }
        }
    }
}
