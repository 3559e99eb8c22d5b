package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.internal.io.FaultyFileIo;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SpaceWatch} exactly: the file system counts as nearly full strictly below
 * {@link SpaceWatch#MIN_FREE_FOR_MAPPED_STORES}, and the writer looks again once a whole second of the log's clock
 * passed since its last look, or when the clock went back to before its last look, and not otherwise. Found by
 * mutation testing: {@code LowSpaceTest} sees only that a look happens within a few seconds.
 */
class SpaceWatchTest {

    private static final long MIN = SpaceWatch.MIN_FREE_FOR_MAPPED_STORES;

    @TempDir
    Path dir;

    @Test
    void nearlyFullIsStrictlyBelowTheMinimum() {
        FaultyFileIo io = new FaultyFileIo().usableSpace(MIN);
        SpaceWatch watch = new SpaceWatch(io, dir);
        watch.look();
        assertThat(watch.low()).as("exactly the minimum").isFalse();
        io.usableSpace(MIN - 1);
        watch.look();
        assertThat(watch.low()).as("a byte less").isTrue();
        io.usableSpace(MIN);
        watch.look();
        assertThat(watch.low()).as("space again").isFalse();
    }

    @Test
    void theWriterLooksAgainOnlyOnceASecondPassedOrTheClockWentBack() {
        FaultyFileIo io = new FaultyFileIo().usableSpace(MIN);
        SpaceWatch watch = new SpaceWatch(io, dir);
        watch.checkAt(1_000);
        assertThat(watch.low()).isFalse();

        io.usableSpace(0);
        watch.checkAt(1_999);
        assertThat(watch.low()).as("999 ms after the look").isFalse();
        watch.checkAt(1_000);
        assertThat(watch.low()).as("the time of the look again").isFalse();
        watch.checkAt(2_000);
        assertThat(watch.low()).as("a second after the look").isTrue();

        io.usableSpace(MIN);
        watch.checkAt(2_999);
        assertThat(watch.low()).as("999 ms after the second look").isTrue();
        watch.checkAt(2_000);
        assertThat(watch.low()).as("the time of the second look again").isTrue();
        watch.checkAt(1_999);
        assertThat(watch.low()).as("the clock went back before the look").isFalse();

        io.usableSpace(0);
        watch.checkAt(2_998);
        assertThat(watch.low()).as("999 ms after the look at the earlier time").isFalse();
        watch.checkAt(2_999);
        assertThat(watch.low()).as("a second after it").isTrue();
    }
}
