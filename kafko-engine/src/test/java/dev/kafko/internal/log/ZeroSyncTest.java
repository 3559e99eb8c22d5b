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
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under a policy that fsyncs as it appends, zeros are written one page per write, and the preparer
 * fdatasyncs each piece of zeros it writes,
 * through a read-only channel of its own (never the writer's, whose fsync must still see any writeback
 * error), so that the writer's fsyncs write back only what it stored; a failure there costs nothing
 * but the next piece's sync; under {@code NEVER} nothing is synced ahead.
 */
class ZeroSyncTest {

    private static final TopicConfig DURABLE = TopicConfig.builder().fsync(FsyncPolicy.EVERY_BATCH).segmentBytes(64L << 20).build();
    private static final TopicConfig LAZY = TopicConfig.builder().segmentBytes(64L << 20).build();
    private static final long FILLED = 3L << 20;

    @TempDir
    Path dir;

    /**
     * What the channels of the segment did, in order ("write <pos> <bytes>", "force writer", "force
     * side"), and where the preparer's steps began and ended ("prepare", "prepared").
     */
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final List<FileChannel> opened = new CopyOnWriteArrayList<>();
    private volatile boolean sideForcesFail;

    @Test
    void eachPieceOfZerosThePreparerWritesOnePageAtATimeIsFsyncedThroughAChannelOfItsOwnBeforeTheNext() {
        fill(DURABLE, () -> { });
        int pieces = 0;
        boolean preparing = false;
        long unsynced = 0;
        for (String e : events) {
            if (e.equals("prepare") || e.equals("prepared")) {
                assertThat(unsynced).as("zeros left unsynced by the preparer").isZero();
                preparing = e.equals("prepare");
            } else if (e.startsWith("write")) {
                long bytes = Long.parseLong(e.split(" ")[2]);
                if (preparing || bytes < ZeroSteps.PREPARE_PIECE) {
                    // zeros one page per write: a store dirties one small folio, not a large one
                    assertThat(bytes).as(e).isLessThanOrEqualTo(4096);
                }
                if (preparing) {
                    unsynced += bytes;
                    assertThat(unsynced).as("zeros written since the last sync").isLessThanOrEqualTo(ZeroSteps.ZEROS_PER_WRITE);
                }
            } else if (e.equals("force side")) {
                assertThat(unsynced).as("a sync of the side channel follows a piece of zeros").isPositive();
                unsynced = 0;
                pieces++;
            }
        }
        assertThat(pieces).as("pieces of zeros synced ahead in %s MiB", FILLED >> 20).isGreaterThanOrEqualTo(8);
        assertThat(events).as("the writer forces its own channel").contains("force writer");
        assertThat(opened).as("every channel closed with the log").noneMatch(FileChannel::isOpen);
    }

    @Test
    void aLogThatNeverFsyncsSyncsNoZeros() {
        fill(LAZY, () -> { });
        assertThat(events).contains("prepare").doesNotContain("force side");
        assertThat(events).as("zeros in writes of 256 KiB").anyMatch(e -> e.startsWith("write ") && e.endsWith(" " + ZeroSteps.ZEROS_PER_WRITE));
    }

    @Test
    void aFailedSyncAheadIsIgnoredAndTheNextPieceSyncsThroughAFreshChannel() {
        sideForcesFail = true;
        fill(DURABLE, () -> sideForcesFail = false);
        assertThat(events).as("synced again after the failure").contains("force side");
        assertThat(opened).noneMatch(FileChannel::isOpen);
    }

    /**
     * Appends single-record frames up to {@link #FILLED} bytes, running the preparer's steps as they
     * are asked for (after the first, {@code afterFirstStep}), and reads every record back.
     */
    private void fill(TopicConfig config, Runnable afterFirstStep) {
        HeldExecutor preparer = new HeldExecutor();
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, config, Clock.systemUTC(), recording(), preparer)) {
            boolean first = true;
            while (log.sizeBytes() < FILLED) {
                Logs.appendFrames(log, 1, 8, 200);
                if (!preparer.held.isEmpty()) {
                    events.add("prepare");
                    preparer.runAll();
                    events.add("prepared");
                    if (first) {
                        afterFirstStep.run();
                        first = false;
                    }
                }
            }
            assertThat(first).as("the preparer was asked for steps").isFalse();
            assertThat(Logs.readAll(log)).hasSize((int) log.endOffset());
        }
    }

    private FileIo recording() {
        return new WrappingFileIo((path, options, real) -> {
            boolean side = !Arrays.asList(options).contains(StandardOpenOption.WRITE);
            FileChannel ch = new DelegatingFileChannel(real) {
                @Override
                public int write(ByteBuffer src, long position) throws IOException {
                    if (path.toString().endsWith(".log")) {
                        events.add("write " + position + " " + src.remaining());
                    }
                    return delegate.write(src, position);
                }

                @Override
                public void force(boolean metaData) throws IOException {
                    if (path.toString().endsWith(".log")) {
                        if (side && sideForcesFail) {
                            throw new IOException("injected fsync failure of a side channel: " + path);
                        }
                        events.add(side ? "force side" : "force writer");
                    }
                    delegate.force(metaData);
                }
            };
            opened.add(ch);
            return ch;
        });
    }
}
