package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.FsyncPolicy;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.DelegatingFileChannel;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.WrappingFileIo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Zeros ahead of a fast writer come in whole, aligned {@link SegmentFile#HUGE_PIECE}s, each one gathering
 * write (so the kernel can hold each in one huge folio); a slow writer's never do; the bytes stored read
 * back the same either way.
 */
class HugePiecesTest {

    private static final int FRAME = 300;
    private static final long LIMIT = 64L << 20;

    @TempDir
    Path dir;

    /** Every gathering write: {position, bytes}. */
    private final List<long[]> gathered = new CopyOnWriteArrayList<>();

    @Test
    void aFastWritersZerosComeInWholeAlignedHugePiecesEachInOneWrite() {
        fill(0, 12 << 20);
        assertThat(gathered).as("huge pieces of zeros").hasSizeGreaterThanOrEqualTo(3);
        for (long[] w : gathered) {
            assertThat(w[0] % ZeroSteps.HUGE_PIECE).as("position %s aligned", w[0]).isZero();
            assertThat(w[1]).as("bytes of the write at %s", w[0]).isEqualTo(ZeroSteps.HUGE_PIECE);
        }
        assertThat(gathered.get(0)[0]).as("not before the file reached a huge piece").isGreaterThanOrEqualTo(ZeroSteps.HUGE_PIECE);
    }

    @Test
    void aSlowWritersZerosNeverComeInHugePieces() {
        fill(Double.MAX_VALUE, 12 << 20);
        assertThat(gathered).isEmpty();
    }

    @Test
    void onlyALogThatNeverFsyncsOnAppendsGetsHugePiecesInEverySegment() {
        for (FsyncPolicy policy : List.of(FsyncPolicy.NEVER, FsyncPolicy.EVERY_BATCH, FsyncPolicy.interval(Duration.ofSeconds(1)))) {
            Path logDir = dir.resolve(policy.toString().replaceAll("[^A-Za-z0-9]", "_"));
            TopicConfig config = TopicConfig.builder().fsync(policy).segmentBytes(64 * 1024).build();
            double expected = policy == FsyncPolicy.NEVER ? ZeroSteps.HUGE_PIECES_MIN_RATE : Double.POSITIVE_INFINITY;
            try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, logDir, config, Clock.systemUTC(), FileIo.SYSTEM,
                    new HeldExecutor())) {
                assertThat(log.segments()[0].file().steps().hugePiecesFrom()).as("%s, first segment", policy).isEqualTo(expected);
                while (log.segments().length < 3) {
                    Logs.appendFrames(log, 1, 1, 200);
                }
                for (Segment s : log.segments()) {
                    if (s.file().isWritable()) {
                        assertThat(s.file().steps().hugePiecesFrom()).as("%s, rolled to", policy).isEqualTo(expected);
                    }
                }
            }
        }
    }

    /** Writes numbered frames up to {@code bytes}, running the preparer's steps as they are asked for, and reads every one back. */
    private void fill(double hugeFrom, long bytes) {
        HeldExecutor preparer = new HeldExecutor();
        SegmentFile f = SegmentFiles.create(recording(), dir.resolve("0.log"), new byte[16], LIMIT);
        try {
            f.prepareWith(preparer);
            f.steps().hugePiecesFrom(hugeFrom);
            byte[] frame = new byte[FRAME];
            List<Long> positions = new ArrayList<>();
            long pos = 16;
            for (int i = 0; pos + FRAME <= bytes; i++) {
                ByteBuffer.wrap(frame).putInt(0, i).putInt(FRAME - 4, ~i);
                f.write(pos, frame, 0, FRAME);
                positions.add(pos);
                pos += FRAME;
                if (i % 4096 == 0) {
                    preparer.runAll();
                }
            }
            byte[] back = new byte[FRAME];
            for (int i = 0; i < positions.size(); i++) {
                f.read(positions.get(i), back, 0, FRAME);
                ByteBuffer b = ByteBuffer.wrap(back);
                assertThat(b.getInt(0)).isEqualTo(i);
                assertThat(b.getInt(FRAME - 4)).isEqualTo(~i);
            }
        } finally {
            f.endAppends();
            f.closeChannel();
        }
    }

    private FileIo recording() {
        return new WrappingFileIo((path, options, real) -> new DelegatingFileChannel(real) {
            @Override
            public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
                long n = 0;
                for (int i = offset; i < offset + length; i++) {
                    n += srcs[i].remaining();
                }
                gathered.add(new long[] {delegate.position(), n});
                return delegate.write(srcs, offset, length);
            }
        });
    }
}
