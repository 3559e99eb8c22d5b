package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.internal.io.DelegatingFileChannel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The arithmetic of {@link ZeroSteps} exactly (the sizes of the steps of zeros, their rounding to pages, the clamp
 * to the limit), and the pieces its writes come in: huge pieces only where a whole aligned one fits, otherwise
 * writes of at most the size asked for that never cross a huge piece's boundary; every byte of the range zero.
 * Found by mutation testing: the log's tests only see that the records read back.
 */
class ZeroStepsTest {

    private static final int K = 1024;
    private static final int M = 1 << 20;
    private static final long NO_LIMIT = 1L << 40;

    @TempDir
    Path dir;

    @Test
    void aRegionDoublesFromTheFirstStepInStepsOfAtMostTheMaximumRoundedToPages() {
        assertThat(ZeroSteps.grownTarget(0, 0, NO_LIMIT)).isEqualTo(ZeroSteps.ALLOCATION_STEP_MIN);
        assertThat(ZeroSteps.grownTarget(16 * K, 0, NO_LIMIT)).as("never below the first step").isEqualTo(64 * K);
        assertThat(ZeroSteps.grownTarget(64 * K, 0, NO_LIMIT)).isEqualTo(128 * K);
        assertThat(ZeroSteps.grownTarget(3 * M, 0, NO_LIMIT)).isEqualTo(6 * M);
        assertThat(ZeroSteps.grownTarget(16L * M, 0, NO_LIMIT)).as("a step of at most 8 MiB").isEqualTo(24L * M);
        assertThat(ZeroSteps.grownTarget(64 * K + 1, 0, NO_LIMIT)).as("rounded up to a page").isEqualTo(128 * K + 4096);
    }

    @Test
    void aRegionGrowsNoFurtherThanItsLimitButAlwaysToItsEnd() {
        assertThat(ZeroSteps.grownTarget(64 * K, 0, 100 * K)).isEqualTo(100 * K);
        assertThat(ZeroSteps.grownTarget(64 * K, 0, 100 * K + 1)).isEqualTo(100 * K + 4096);
        assertThat(ZeroSteps.grownTarget(64 * K, 300 * K, 100 * K)).as("the end beats the limit").isEqualTo(300 * K);
        assertThat(ZeroSteps.grownTarget(64 * K, 300 * K + 5, NO_LIMIT)).as("the end beats the step")
                .isEqualTo(300 * K + 4096);
    }

    @Test
    void aWriterThatCaughtUpTakesAShortStepOrTheRestOfItsHugePiece() {
        assertThat(ZeroSteps.caughtUpTarget(M, M + 10, NO_LIMIT, false)).isEqualTo(M + 64 * K);
        assertThat(ZeroSteps.caughtUpTarget(M, M + 100 * K, NO_LIMIT, false)).as("to its end")
                .isEqualTo(M + 100 * K);
        assertThat(ZeroSteps.caughtUpTarget(M, M + 10, M + 32 * K, false)).as("clamped to the limit")
                .isEqualTo(M + 32 * K);
        assertThat(ZeroSteps.caughtUpTarget(M, M + 10, NO_LIMIT, true)).as("to the end of its huge piece")
                .isEqualTo(2 * M);
        assertThat(ZeroSteps.caughtUpTarget(2 * M, 2 * M, NO_LIMIT, true)).isEqualTo(4 * M);
        assertThat(ZeroSteps.caughtUpTarget(2 * M - 64 * K, 2 * M, NO_LIMIT, true)).as("a step ending on a piece's end")
                .isEqualTo(2 * M);
        assertThat(ZeroSteps.caughtUpTarget(M, 3 * M + 1, NO_LIMIT, true)).as("the piece holding the end")
                .isEqualTo(4 * M);
        assertThat(ZeroSteps.caughtUpTarget(M, M + 10, 3 * M / 2, true)).as("clamped to the limit")
                .isEqualTo(3 * M / 2);
    }

    @Test
    void roundsUpToWholePages() {
        assertThat(ZeroSteps.roundUp(0)).isZero();
        assertThat(ZeroSteps.roundUp(1)).isEqualTo(4096);
        assertThat(ZeroSteps.roundUp(4096)).isEqualTo(4096);
        assertThat(ZeroSteps.roundUp(4097)).isEqualTo(8192);
    }

    @Test
    void hugePiecesOnlyWhereAWholeAlignedOneFitsAndNoWriteCrossesAPieceBoundary() throws IOException {
        int huge = ZeroSteps.HUGE_PIECE;
        int per = ZeroSteps.ZEROS_PER_WRITE;
        // from just below a piece's boundary, past two whole pieces, to a little beyond
        long from = huge - 300 * K;
        long target = 3L * huge + 10;
        List<String> writes = write(from, target, true, per);
        assertThat(writes).containsExactly(
                "write " + from + " " + per,
                "write " + (from + per) + " " + (44 * K),
                "gather " + huge + " " + huge,
                "gather " + 2L * huge + " " + huge,
                "write " + 3L * huge + " 10");
    }

    @Test
    void withoutHugePiecesZerosComeInWritesOfTheSizeAskedForThatStopAtEachPieceBoundary() throws IOException {
        int huge = ZeroSteps.HUGE_PIECE;
        long from = huge - 6 * K;
        List<String> writes = write(from, huge + 5 * K, false, ZeroSteps.ZEROS_PER_WRITE_FSYNCED);
        assertThat(writes).containsExactly(
                "write " + from + " 4096",
                "write " + (from + 4096) + " 2048",
                "write " + huge + " 4096",
                "write " + (huge + 4096) + " 1024");
        assertThat(write(0, 2L * huge, false, ZeroSteps.ZEROS_PER_WRITE)).as("not huge: no gathering write")
                .hasSize(2 * huge / ZeroSteps.ZEROS_PER_WRITE).allMatch(w -> w.startsWith("write "));
    }

    /** Writes zeros over {@code [from, target)} of a file filled with ones; checks they are all zeros; the writes made. */
    private List<String> write(long from, long target, boolean huge, int perWrite) throws IOException {
        Path file = dir.resolve("zeros-" + from + "-" + target + "-" + huge + "-" + perWrite);
        List<String> writes = new ArrayList<>();
        try (FileChannel real = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            byte[] ones = new byte[(int) (target - from + 2)];
            java.util.Arrays.fill(ones, (byte) 1);
            real.write(ByteBuffer.wrap(ones), from - 1 < 0 ? 0 : from - 1);
            FileChannel ch = new DelegatingFileChannel(real) {
                @Override
                public int write(ByteBuffer src, long position) throws IOException {
                    writes.add("write " + position + " " + src.remaining());
                    return delegate.write(src, position);
                }

                @Override
                public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
                    long bytes = 0;
                    for (int i = offset; i < offset + length; i++) {
                        bytes += srcs[i].remaining();
                    }
                    writes.add("gather " + delegate.position() + " " + bytes);
                    return delegate.write(srcs, offset, length);
                }
            };
            ZeroSteps.write(ch, from, target, huge, perWrite);
            ByteBuffer back = ByteBuffer.allocate((int) (target - from));
            while (back.hasRemaining()) {
                real.read(back, from + back.position());
            }
            back.flip();
            while (back.hasRemaining()) {
                assertThat(back.get()).as("a byte of the range").isZero();
            }
            if (from > 0) {
                ByteBuffer before = ByteBuffer.allocate(1);
                real.read(before, from - 1);
                assertThat(before.get(0)).as("the byte before the range").isEqualTo((byte) 1);
            }
            ByteBuffer after = ByteBuffer.allocate(1);
            real.read(after, target);
            assertThat(after.get(0)).as("the byte after the range").isEqualTo((byte) 1);
        }
        return writes;
    }
}
