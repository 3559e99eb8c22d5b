package dev.kafko.reliability;

import dev.kafko.internal.io.DelegatingFileChannel;
import dev.kafko.internal.io.FileIo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * A {@link FileIo} over the real file system that, while armed, fails the T-th call (counted over
 * every open, write, force, truncate, map, move, delete and directory fsync; only writes for
 * {@link Kind#SHORT}) with the configured kind of fault, then the next ones after random gaps, up
 * to a budget. A replay mode fails exactly the calls a predicate picks. Thread-safe.
 */
final class RandomFaultIo implements FileIo {

    enum Kind { IO, RUNTIME, ERROR, SHORT }

    /** A RuntimeException a channel might throw (as a JDK bug or a wrapper could). */
    static final class InjectedRuntimeException extends RuntimeException {
        InjectedRuntimeException(String m) {
            super(m);
        }
    }

    /** An Error a channel might throw (an InternalError after SIGBUS, say). */
    static final class InjectedError extends Error {
        InjectedError(String m) {
            super(m);
        }
    }

    private final Kind kind;
    private final SplittableRandom random;
    private final int maxGap;
    private volatile boolean armed;
    private volatile boolean lowSpace;
    private long calls;
    private long nextFaultAt;
    private int faultsLeft;
    private volatile Predicate<String> replay;
    final List<String> injected = new CopyOnWriteArrayList<>();
    final List<String> log = new CopyOnWriteArrayList<>();
    volatile boolean recordCalls;

    RandomFaultIo(Kind kind, long seed, int maxGap, int faults, boolean lowSpace) {
        this.kind = kind;
        this.random = new SplittableRandom(seed);
        this.maxGap = maxGap;
        this.faultsLeft = faults;
        this.lowSpace = lowSpace;
        this.nextFaultAt = 1 + random.nextInt(maxGap);
    }

    synchronized void arm(boolean on) {
        armed = on;
    }

    /** Replay: fail exactly the calls (described as "op path") the predicate accepts, ignoring the random schedule. */
    void replay(Predicate<String> which) {
        replay = which;
    }

    void lowSpace(boolean on) {
        lowSpace = on;
    }

    /** Whether the call described should fail now. */
    private synchronized boolean hit(String op, Path path, boolean isWrite) {
        String what = op + " " + path.getFileName();
        if (recordCalls) {
            log.add(what);
        }
        if (!armed) {
            return false;
        }
        Predicate<String> r = replay;
        if (r != null) {
            if (r.test(op + " " + path)) {
                injected.add(what + " [" + kind + "] on " + Thread.currentThread().getName());
                return true;
            }
            return false;
        }
        if (kind == Kind.SHORT && !isWrite) {
            return false;
        }
        if (faultsLeft <= 0) {
            return false;
        }
        calls++;
        if (calls < nextFaultAt) {
            return false;
        }
        faultsLeft--;
        nextFaultAt = calls + 1 + random.nextInt(maxGap);
        injected.add(what + " #" + calls + " [" + kind + "] on " + Thread.currentThread().getName());
        return true;
    }

    private void fault(String op, Path path) throws IOException {
        if (kind == Kind.SHORT) {
            return;
        }
        if (hit(op, path, false)) {
            throw make(op, path);
        }
    }

    private IOException make(String op, Path path) {
        String m = "injected " + op + " fault on " + path;
        switch (kind) {
            case RUNTIME -> throw new InjectedRuntimeException(m);
            case ERROR -> throw new InjectedError(m);
            default -> {
                return new IOException(m);
            }
        }
    }

    @Override
    public long usableSpace(Path path) {
        return lowSpace ? 1024 : FileIo.super.usableSpace(path);
    }

    @Override
    public FileChannel open(Path path, OpenOption... options) throws IOException {
        fault("open", path);
        return new Channel(FileIo.SYSTEM.open(path, options), path);
    }

    @Override
    public void atomicMove(Path source, Path target) throws IOException {
        fault("move", target);
        FileIo.SYSTEM.atomicMove(source, target);
    }

    @Override
    public void deleteIfExists(Path path) throws IOException {
        fault("delete", path);
        FileIo.SYSTEM.deleteIfExists(path);
    }

    @Override
    public void fsyncDirectory(Path dir) throws IOException {
        fault("fsyncDirectory", dir);
        FileIo.SYSTEM.fsyncDirectory(dir);
    }

    private final class Channel extends DelegatingFileChannel {
        private final Path path;

        Channel(FileChannel delegate, Path path) {
            super(delegate);
            this.path = path;
        }

        /** -1: no fault; else the number of bytes to let through (a short write). */
        private int writeFault(int remaining) throws IOException {
            if (kind == Kind.SHORT) {
                if (remaining > 1 && hit("write", path, true)) {
                    return 1 + (remaining - 1) / 2 - (remaining > 4096 ? 1 : 0);
                }
                return -1;
            }
            if (hit("write", path, true)) {
                throw make("write", path);
            }
            return -1;
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            int n = writeFault(src.remaining());
            if (n < 0) {
                return delegate.write(src);
            }
            int limit = src.limit();
            src.limit(src.position() + n);
            try {
                return delegate.write(src);
            } finally {
                src.limit(limit);
            }
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            int n = writeFault(src.remaining());
            if (n < 0) {
                return delegate.write(src, position);
            }
            int limit = src.limit();
            src.limit(src.position() + n);
            try {
                return delegate.write(src, position);
            } finally {
                src.limit(limit);
            }
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            long total = 0;
            for (int i = offset; i < offset + length; i++) {
                total += srcs[i].remaining();
            }
            int n = writeFault((int) Math.min(Integer.MAX_VALUE, total));
            if (n < 0) {
                return delegate.write(srcs, offset, length);
            }
            // short: only the first buffer's first bytes
            ByteBuffer first = null;
            for (int i = offset; i < offset + length; i++) {
                if (srcs[i].hasRemaining()) {
                    first = srcs[i];
                    break;
                }
            }
            if (first == null) {
                return 0;
            }
            int limit = first.limit();
            first.limit(first.position() + Math.max(1, Math.min(n, first.remaining() - 1)));
            try {
                return delegate.write(first);
            } finally {
                first.limit(limit);
            }
        }

        @Override
        public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
            fault("transferFrom", path);
            return delegate.transferFrom(src, position, count);
        }

        @Override
        public void force(boolean metaData) throws IOException {
            fault("force", path);
            delegate.force(metaData);
        }

        @Override
        public FileChannel truncate(long size) throws IOException {
            fault("truncate", path);
            delegate.truncate(size);
            return this;
        }

        @Override
        public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
            fault("map", path);
            return delegate.map(mode, position, size);
        }
    }
}
