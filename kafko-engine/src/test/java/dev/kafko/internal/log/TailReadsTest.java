package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.internal.io.DelegatingFileChannel;
import dev.kafko.internal.io.WrappingFileIo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TailReads} directly: a copy holds exactly the bytes asked for (gathered over short reads), little-endian
 * and ready to read; a read past the end of the file, or after {@link TailReads#close}, is null; a read that
 * fails (a closed or interrupted channel) is null, and the next read opens a fresh channel. Found
 * by mutation testing: a copy that fails is read from the mapping instead, so the log's tests cannot tell.
 */
class TailReadsTest {

    @TempDir
    Path dir;

    @Test
    void aCopyHoldsExactlyTheBytesAskedForGatheredOverShortReads() throws IOException {
        Path file = file(64);
        AtomicInteger reads = new AtomicInteger();
        TailReads tail = new TailReads(new WrappingFileIo((path, options, real) -> new DelegatingFileChannel(real) {
            @Override
            public int read(ByteBuffer dst, long position) throws IOException {
                reads.incrementAndGet();
                ByteBuffer few = dst.duplicate();
                few.limit(Math.min(dst.limit(), dst.position() + 3)); // short reads: three bytes at most
                int n = delegate.read(few, position);
                dst.position(few.position());
                return n;
            }
        }), file);
        try {
            ByteBuffer b = tail.copy(10, 12);
            assertThat(b).isNotNull();
            assertThat(reads.get()).as("four short reads").isEqualTo(4);
            assertThat(b.position()).isZero();
            assertThat(b.limit()).isEqualTo(12);
            assertThat(b.order()).isEqualTo(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < 12; i++) {
                assertThat(b.get(i)).as("byte %s", i).isEqualTo((byte) (10 + i));
            }
            assertThat(b.getInt(0)).isEqualTo(0x0d0c0b0a);
        } finally {
            tail.close();
        }
    }

    @Test
    void aReadPastTheEndOrAfterCloseIsNull() throws IOException {
        Path file = file(64);
        TailReads tail = new TailReads(dev.kafko.internal.io.FileIo.SYSTEM, file);
        assertThat(tail.copy(60, 8)).as("past the end").isNull();
        assertThat(tail.copy(56, 8)).as("up to the end").isNotNull();
        tail.close();
        assertThat(tail.copy(0, 8)).as("after close").isNull();
    }

    @Test
    void aReadThatFailsIsNullAndTheNextReadOpensAFreshChannel() throws IOException {
        Path file = file(64);
        AtomicInteger opened = new AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean fail = new java.util.concurrent.atomic.AtomicBoolean();
        TailReads tail = new TailReads(new WrappingFileIo((path, options, real) -> {
            opened.incrementAndGet();
            return new DelegatingFileChannel(real) {
                @Override
                public int read(ByteBuffer dst, long position) throws IOException {
                    if (fail.getAndSet(false)) {
                        throw new IOException("injected read failure");
                    }
                    return delegate.read(dst, position);
                }
            };
        }), file);
        try {
            assertThat(tail.copy(0, 4)).isNotNull();
            fail.set(true);
            assertThat(tail.copy(0, 4)).as("the read failed").isNull();
            ByteBuffer b = tail.copy(4, 4);
            assertThat(b).as("on a fresh channel").isNotNull();
            assertThat(b.get(0)).isEqualTo((byte) 4);
            assertThat(opened.get()).as("channels opened").isEqualTo(2);
        } finally {
            tail.close();
        }
    }

    private Path file(int size) throws IOException {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) i;
        }
        return Files.write(dir.resolve("0.log"), bytes);
    }
}
