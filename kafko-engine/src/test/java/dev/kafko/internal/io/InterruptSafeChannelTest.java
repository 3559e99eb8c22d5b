package dev.kafko.internal.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link InterruptSafeChannel}: a closure by an interrupt is repaired and the call repeated where it
 * left off; the thread keeps its interrupt; an fsync cut short by a closure reports the writeback error
 * it may have swallowed, through the witness, and keeps reporting it.
 */
class InterruptSafeChannelTest {

    @TempDir
    Path dir;

    /** What the opener's channels do at their next calls: null runs the call, else closes and throws. */
    private final Deque<String> closures = new ArrayDeque<>();
    /** What the witness's fsyncs report next: null for success. */
    private final Deque<IOException> witnessErrors = new ArrayDeque<>();
    private final List<String> opened = new ArrayList<>();
    private int witnessSyncs;

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    private final InterruptSafeChannel.Opener opener = new InterruptSafeChannel.Opener() {
        @Override
        public FileChannel open(Path path, OpenOption... options) throws IOException {
            opened.add(List.of(options).toString());
            return new ClosingChannel(FileChannel.open(path, options));
        }

        @Override
        public InterruptSafeChannel.Witness openWitness(Path path) {
            return new InterruptSafeChannel.Witness() {
                @Override
                public void sync() throws IOException {
                    witnessSyncs++;
                    IOException e = witnessErrors.poll();
                    if (e != null) {
                        throw e;
                    }
                }

                @Override
                public void close() {
                }
            };
        }
    };

    /** A real channel that, when a closure is queued for its next call, closes itself as an interrupt does. */
    private final class ClosingChannel extends DelegatingFileChannel {
        ClosingChannel(FileChannel delegate) {
            super(delegate);
        }

        private void maybeClose(String call) throws IOException {
            if (call.equals(closures.peek())) {
                closures.poll();
                delegate.close();
                throw new ClosedByInterruptException();
            }
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            // half of the bytes land before the closure, as a write cut short would leave them
            if ("write".equals(closures.peek()) && src.remaining() > 1) {
                ByteBuffer half = src.duplicate();
                half.limit(src.position() + src.remaining() / 2);
                int n = delegate.write(half, position);
                src.position(src.position() + n);
            }
            maybeClose("write");
            return delegate.write(src, position);
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            maybeClose("read");
            return delegate.read(dst, position);
        }

        @Override
        public void force(boolean metaData) throws IOException {
            maybeClose("force");
            delegate.force(metaData);
        }

        @Override
        public long size() throws IOException {
            maybeClose("size");
            return delegate.size();
        }
    }

    private FileChannel open(OpenOption... options) throws IOException {
        return InterruptSafeChannel.open(opener, dir.resolve("f"), options);
    }

    private static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aWriteCutShortByAClosureIsFinishedOnTheReopenedFileAndTheThreadKeepsItsInterrupt() throws IOException {
        try (FileChannel ch = open(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            closures.add("write");
            Thread.currentThread().interrupt();
            ByteBuffer b = bytes("0123456789");
            assertThat(ch.write(b, 5)).isEqualTo(10);
            assertThat(Thread.interrupted()).as("the interrupt is given back").isTrue();
            assertThat(ch.isOpen()).isTrue();
            assertThat(opened).hasSize(2);
            // reopened without CREATE_NEW: the same file, not a new one
            assertThat(opened.get(1)).doesNotContain("CREATE_NEW").contains("WRITE");
            assertThat(Files.readString(dir.resolve("f"))).isEqualTo("\0\0\0\0\0" + "0123456789");
        }
    }

    @Test
    void readsAndSizeAreRepeatedAfterAClosure() throws IOException {
        Files.writeString(dir.resolve("f"), "hello world");
        try (FileChannel ch = open(StandardOpenOption.READ)) {
            closures.add("read");
            ByteBuffer dst = ByteBuffer.allocate(5);
            assertThat(ch.read(dst, 6)).isEqualTo(5);
            assertThat(new String(dst.array(), StandardCharsets.UTF_8)).isEqualTo("world");
            closures.add("size");
            assertThat(ch.size()).isEqualTo(11);
            assertThat(witnessSyncs).as("a read-only channel has no witness").isZero();
        }
    }

    @Test
    void relativeWritesKeepTheirPositionAcrossAReopen() throws IOException {
        try (FileChannel ch = open(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ch.write(bytes("abc"));
            closures.add("write");
            ch.write(bytes("defg"));
            assertThat(ch.position()).isEqualTo(7);
            ch.position(1);
            ByteBuffer dst = ByteBuffer.allocate(3);
            assertThat(ch.read(dst)).isEqualTo(3);
            assertThat(new String(dst.array(), StandardCharsets.UTF_8)).isEqualTo("bcd");
            ch.truncate(2);
            assertThat(ch.position()).isEqualTo(2);
        }
        assertThat(Files.readString(dir.resolve("f"))).isEqualTo("ab");
    }

    @Test
    void aGatheringWriteStaysOneCallOnTheFileAndLandsAtThePosition() throws IOException {
        List<Integer> gathered = new ArrayList<>();
        InterruptSafeChannel.Opener counting = new InterruptSafeChannel.Opener() {
            @Override
            public FileChannel open(Path path, OpenOption... options) throws IOException {
                return new DelegatingFileChannel(FileChannel.open(path, options)) {
                    @Override
                    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
                        gathered.add(length);
                        return delegate.write(srcs, offset, length);
                    }

                    @Override
                    public int write(ByteBuffer src, long position) throws IOException {
                        throw new AssertionError("a gathering write was split into positional writes");
                    }
                };
            }

            @Override
            public InterruptSafeChannel.Witness openWitness(Path path) throws IOException {
                return opener.openWitness(path);
            }
        };
        try (FileChannel ch = InterruptSafeChannel.open(counting, dir.resolve("g"), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ch.position(3);
            assertThat(ch.write(new ByteBuffer[] {bytes("ab"), bytes("cd"), bytes("ef")})).isEqualTo(6);
            assertThat(gathered).containsExactly(3);
            assertThat(ch.position()).isEqualTo(9);
            ByteBuffer[] back = {ByteBuffer.allocate(4), ByteBuffer.allocate(2)};
            ch.position(3);
            assertThat(ch.read(back)).isEqualTo(6);
            assertThat(new String(back[0].array(), StandardCharsets.UTF_8) + new String(back[1].array(), StandardCharsets.UTF_8))
                    .isEqualTo("abcdef");
        }
    }

    @Test
    void anFsyncCutShortAsksTheWitnessAndPassesWhenItReportsNoError() throws IOException {
        try (FileChannel ch = open(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.write(bytes("data"), 0);
            closures.add("force");
            ch.force(false);
            assertThat(witnessSyncs).isEqualTo(1);
            ch.force(false);
            assertThat(witnessSyncs).as("only a closure asks the witness").isEqualTo(1);
        }
    }

    @Test
    void aWritebackErrorAnFsyncCutShortMayHaveSwallowedFailsItAndEveryLaterRepairedFsync() throws IOException {
        try (FileChannel ch = open(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.write(bytes("data"), 0);
            closures.add("force");
            witnessErrors.add(new IOException("Input/output error"));
            assertThatThrownBy(() -> ch.force(false)).isInstanceOf(IOException.class)
                    .hasMessageContaining("writeback of " + dir.resolve("f") + " failed: Input/output error");
            // the witness reported it once; the channel remembers it for the next cut fsync
            closures.add("force");
            assertThatThrownBy(() -> ch.force(false)).hasMessageContaining("Input/output error");
            assertThat(witnessSyncs).isEqualTo(1);
        }
    }

    @Test
    void aWritebackErrorReportedByTheFsyncItselfIsNotReportedAgainAfterAClosure() throws IOException {
        FileChannel failing = new DelegatingFileChannel(FileChannel.open(dir.resolve("g"), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE)) {
            private boolean failed;

            @Override
            public void force(boolean metaData) throws IOException {
                if (!failed) {
                    failed = true;
                    throw new IOException("Input/output error");
                }
                if (!closures.isEmpty()) {
                    closures.poll();
                    delegate.close();
                    throw new ClosedByInterruptException();
                }
                delegate.force(metaData);
            }
        };
        InterruptSafeChannel.Opener first = new InterruptSafeChannel.Opener() {
            private boolean done;

            @Override
            public FileChannel open(Path path, OpenOption... options) throws IOException {
                if (!done) {
                    done = true;
                    return failing;
                }
                return FileChannel.open(path, options);
            }

            @Override
            public InterruptSafeChannel.Witness openWitness(Path path) throws IOException {
                return opener.openWitness(path);
            }
        };
        try (FileChannel ch = InterruptSafeChannel.open(first, dir.resolve("g"), StandardOpenOption.WRITE)) {
            // the witness would report the same error: the fsync that reported it lets the witness see it
            witnessErrors.add(new IOException("Input/output error"));
            assertThatThrownBy(() -> ch.force(false)).hasMessage("Input/output error");
            closures.add("force");
            ch.force(false);
            assertThat(witnessSyncs).isEqualTo(2);
        }
    }

    @Test
    void aLockedChannelIsNeverReopened() throws IOException {
        try (FileChannel ch = open(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            assertThat(ch.tryLock()).isNotNull();
            closures.add("size");
            assertThatThrownBy(ch::size).isInstanceOf(ClosedByInterruptException.class);
            assertThat(opened).hasSize(1);
        }
    }

    @Test
    void aClosedChannelStaysClosed() throws IOException {
        FileChannel ch = open(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        ch.close();
        assertThatThrownBy(ch::size).isInstanceOf(ClosedChannelException.class);
        assertThatThrownBy(ch::position).isInstanceOf(ClosedChannelException.class);
        assertThat(opened).hasSize(1);
    }

    @Test
    void appendIsRefused() {
        assertThatThrownBy(() -> open(StandardOpenOption.CREATE, StandardOpenOption.APPEND))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("APPEND");
    }

    @Test
    void theRealFileSystemsChannelsSurviveAnInterruptedThread() throws IOException {
        Path f = dir.resolve("real");
        try (FileChannel ch = FileIo.SYSTEM.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            Thread.currentThread().interrupt();
            ch.write(bytes("x"), 0);
            ch.force(false);
            assertThat(ch.size()).isEqualTo(1);
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
            assertThat(ch.isOpen()).isTrue();
        }
    }
}
