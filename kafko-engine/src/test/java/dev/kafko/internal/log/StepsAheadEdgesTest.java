package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.internal.io.FileIo;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When a writer's zeros come in huge pieces, decided at each request for a step: never at a file's first
 * request, only with a huge piece allocated, and only at a fill rate of at least the one set.
 */
class StepsAheadEdgesTest {

    private static final long LIMIT = 64L << 20;
    /** Bytes written between two requests that no clock makes slower than any finite rate set here. */
    private static final long FAST = 1L << 60;

    @TempDir
    Path dir;

    private SegmentFile file;
    private StepsAhead steps;

    @BeforeEach
    void create() {
        file = SegmentFiles.create(FileIo.SYSTEM, dir.resolve("0.log"), new byte[16], LIMIT);
        steps = file.steps();
    }

    @AfterEach
    void close() {
        file.closeChannel();
        file.closeWithLog();
    }

    @Test
    void aFilesFirstRequestNeverAsksForHugePieces() {
        steps.asked(FAST, ZeroSteps.HUGE_PIECE);
        assertThat(steps.hugePieces()).isFalse();
        steps.asked(2 * FAST, ZeroSteps.HUGE_PIECE);
        assertThat(steps.hugePieces()).isTrue();
    }

    @Test
    void hugePiecesNeedAHugePieceAllocated() {
        steps.asked(0, 0);
        steps.asked(FAST, ZeroSteps.HUGE_PIECE - 1);
        assertThat(steps.hugePieces()).isFalse();
        steps.asked(2 * FAST, ZeroSteps.HUGE_PIECE);
        assertThat(steps.hugePieces()).isTrue();
    }

    @Test
    void aRateOfExactlyTheOneSetIsFastEnough() {
        // a writer that stored nothing between two requests fills the file at 0 bytes a second
        steps.hugePiecesFrom(0);
        steps.asked(100, ZeroSteps.HUGE_PIECE);
        steps.asked(100, ZeroSteps.HUGE_PIECE);
        assertThat(steps.hugePieces()).isTrue();
        steps.hugePiecesFrom(Double.MIN_VALUE);
        steps.asked(100, ZeroSteps.HUGE_PIECE);
        assertThat(steps.hugePieces()).isFalse();
        // the rate is of the bytes written since the last request, not since the file began
        steps.hugePiecesFrom(ZeroSteps.HUGE_PIECES_MIN_RATE);
        steps.asked(FAST, ZeroSteps.HUGE_PIECE);
        assertThat(steps.hugePieces()).isTrue();
        steps.asked(FAST, ZeroSteps.HUGE_PIECE);
        assertThat(steps.hugePieces()).isFalse();
    }

    @Test
    void aLogThatFsyncsAsItAppendsNeverGetsHugePiecesAndSyncsItsZeros() {
        assertThat(steps.syncsZeros()).isFalse();
        assertThat(steps.hugePiecesFrom()).isEqualTo(ZeroSteps.HUGE_PIECES_MIN_RATE);
        steps.fsyncedAsAppended();
        assertThat(steps.syncsZeros()).isTrue();
        assertThat(steps.hugePiecesFrom()).isEqualTo(Double.POSITIVE_INFINITY);
        steps.asked(0, ZeroSteps.HUGE_PIECE);
        steps.asked(FAST, ZeroSteps.HUGE_PIECE);
        assertThat(steps.hugePieces()).isFalse();
    }

    @Test
    void eachStepAllocatesTheFilesNextAllocationStepInPiecesAndNothingOnceAppendsEnded() {
        long expected = 16;
        assertThat(file.allocated()).isEqualTo(expected);
        // from 2 MiB on, a step takes more than one piece of zeros
        while (expected < 4 << 20) {
            expected = ZeroSteps.grownTarget(expected, expected + 1, LIMIT);
            steps.run();
            assertThat(file.allocated()).isEqualTo(expected);
        }
        file.endAppends();
        steps.run();
        assertThat(file.allocated()).isEqualTo(expected);
    }
}
