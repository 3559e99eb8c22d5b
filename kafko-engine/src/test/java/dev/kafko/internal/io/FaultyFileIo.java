package dev.kafko.internal.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link FileIo} for tests: the real file system, except that it can fail the Nth write, fsync,
 * rename or delete from now on, tear a write (store half of it, then fail), make a write short
 * (store half of it and report that, as the contract allows), report a full disk on every write,
 * and skip fsyncs altogether to keep tests that open and close many logs fast. Counters say how
 * often each operation ran. Thread-safe. Shared by the storage and broker test suites.
 */
public final class FaultyFileIo implements FileIo {

    private final FileIo real = FileIo.SYSTEM;
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong writtenBytes = new AtomicLong();
    private final AtomicLong forces = new AtomicLong();
    private final AtomicLong moves = new AtomicLong();
    private final AtomicLong deletes = new AtomicLong();
    private final AtomicLong dirSyncs = new AtomicLong();
    private volatile long failWriteAt = -1;
    private volatile long tornWriteAt = -1;
    private volatile long shortWriteAt = -1;
    private volatile long failForceAt = -1;
    private volatile long failMoveAt = -1;
    private volatile long failDeleteAt = -1;
    private volatile boolean diskFull;
    private volatile long usableSpace = -1;
    private volatile boolean syncs = true;
    private volatile Runnable beforeForce = () -> { };

    /** Fails the {@code n}th write from now (1 = the next one) with an {@link IOException}, once. */
    public FaultyFileIo failNthWrite(long n) {
        failWriteAt = writes.get() + n;
        return this;
    }

    /** The {@code n}th write from now stores the first half of its bytes, then fails, once. */
    public FaultyFileIo tearNthWrite(long n) {
        tornWriteAt = writes.get() + n;
        return this;
    }

    /** The {@code n}th write from now stores only the first half of its bytes and says so, once. */
    public FaultyFileIo shortenNthWrite(long n) {
        shortWriteAt = writes.get() + n;
        return this;
    }

    /** Fails the {@code n}th fsync (of a file or a directory) from now, once. */
    public FaultyFileIo failNthForce(long n) {
        failForceAt = forces.get() + n;
        return this;
    }

    /** Fails the {@code n}th atomic rename from now, once. */
    public FaultyFileIo failNthMove(long n) {
        failMoveAt = moves.get() + n;
        return this;
    }

    /** Fails the {@code n}th delete from now, once. */
    public FaultyFileIo failNthDelete(long n) {
        failDeleteAt = deletes.get() + n;
        return this;
    }

    /** While set, every write fails as on a full disk. */
    public FaultyFileIo diskFull(boolean full) {
        diskFull = full;
        return this;
    }

    /** Reports {@code bytes} of usable space on every file system from now on (negative: the real figure). */
    public FaultyFileIo usableSpace(long bytes) {
        usableSpace = bytes;
        return this;
    }

    @Override
    public long usableSpace(Path path) {
        long reported = usableSpace;
        return reported >= 0 ? reported : real.usableSpace(path);
    }

    /** When {@code false}, fsyncs of files and directories do nothing (still counted). */
    public FaultyFileIo syncs(boolean enabled) {
        syncs = enabled;
        return this;
    }

    /** Runs {@code hook} on the calling thread at the start of every file fsync (e.g. to hold a writer there). */
    public FaultyFileIo beforeForce(Runnable hook) {
        beforeForce = hook;
        return this;
    }

    public long writes() {
        return writes.get();
    }

    /** Bytes written through channels (data and zeros alike), torn writes counting what reached the file. */
    public long writtenBytes() {
        return writtenBytes.get();
    }

    public long forces() {
        return forces.get();
    }

    public long moves() {
        return moves.get();
    }

    public long directorySyncs() {
        return dirSyncs.get();
    }

    @Override
    public FileChannel open(Path path, OpenOption... options) throws IOException {
        return new Channel(real.open(path, options), path);
    }

    @Override
    public void atomicMove(Path source, Path target) throws IOException {
        if (moves.incrementAndGet() == failMoveAt) {
            throw new IOException("injected rename failure: " + source + " -> " + target);
        }
        real.atomicMove(source, target);
    }

    @Override
    public void deleteIfExists(Path path) throws IOException {
        if (deletes.incrementAndGet() == failDeleteAt) {
            throw new IOException("injected delete failure: " + path);
        }
        real.deleteIfExists(path);
    }

    @Override
    public void fsyncDirectory(Path dir) throws IOException {
        dirSyncs.incrementAndGet();
        if (forces.incrementAndGet() == failForceAt) {
            throw new IOException("injected fsync failure: " + dir);
        }
        if (syncs) {
            real.fsyncDirectory(dir);
        }
    }

    /** The write-side faults for one call; returns how many bytes to store, or throws. */
    private int admit(Path path, int remaining) throws IOException {
        long n = writes.incrementAndGet();
        if (diskFull) {
            throw new IOException("No space left on device (injected): " + path);
        }
        if (n == failWriteAt) {
            throw new IOException("injected write failure #" + n + ": " + path);
        }
        if (n == tornWriteAt || n == shortWriteAt) {
            return -Math.max(1, remaining / 2);
        }
        return remaining;
    }

    private final class Channel extends DelegatingFileChannel {
        private final Path path;

        Channel(FileChannel ch, Path path) {
            super(ch);
            this.path = path;
        }

        private int write(ByteBuffer src, long position, boolean positional) throws IOException {
            int remaining = src.remaining();
            int allowed = admit(path, remaining);
            if (allowed >= 0) {
                int n = positional ? delegate.write(src, position) : delegate.write(src);
                writtenBytes.addAndGet(n);
                return n;
            }
            boolean torn = writes.get() == tornWriteAt;
            ByteBuffer half = src.duplicate();
            half.limit(half.position() - allowed);
            int written = positional ? delegate.write(half, position) : delegate.write(half);
            src.position(src.position() + written);
            writtenBytes.addAndGet(written);
            if (torn) {
                throw new IOException("injected torn write after " + written + " of " + remaining + " bytes: " + path);
            }
            return written;
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            return write(src, -1, false);
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            return write(src, position, true);
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            long total = 0;
            for (int i = offset; i < offset + length; i++) {
                total += write(srcs[i]);
            }
            return total;
        }

        @Override
        public void force(boolean metaData) throws IOException {
            beforeForce.run();
            long n = forces.incrementAndGet();
            if (n == failForceAt) {
                throw new IOException("injected fsync failure #" + n + ": " + path);
            }
            if (syncs) {
                delegate.force(metaData);
            }
        }

        @Override
        public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
            admit(path, (int) Math.min(count, Integer.MAX_VALUE));
            return delegate.transferFrom(src, position, count);
        }
    }
}
