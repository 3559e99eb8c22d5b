package dev.kafko.internal.log;

import static dev.kafko.internal.log.Logs.assertRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.KafkoRecord;
import dev.kafko.KafkoStorageException;
import dev.kafko.PartitionFailedException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FaultyFileIo;
import dev.kafko.internal.io.FileNames;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FailureTest {

    private static final TopicConfig SMALL = TopicConfig.builder().segmentBytes(8 * 1024).indexIntervalBytes(512)
            .build();

    @TempDir
    Path dir;

    @Test
    void failingTheNthWriteLosesNothingAcknowledged() {
        for (int n = 1; n <= 40; n += 3) {
            final int nth = n;
            runUntilFailure("write" + n, io -> io.failNthWrite(nth), true);
        }
    }

    @Test
    void tornWriteLosesNothingAcknowledged() {
        for (int n = 1; n <= 30; n += 4) {
            final int nth = n;
            runUntilFailure("torn" + n, io -> io.tearNthWrite(nth), true);
        }
    }

    @Test
    void failingTheNthFsyncLosesNothingAcknowledged() {
        for (int n = 1; n <= 25; n += 3) {
            final int nth = n;
            runUntilFailure("force" + n, io -> io.failNthForce(nth), false);
        }
    }

    @Test
    void failingTheNthRenameLosesNothingAcknowledged() {
        for (int n = 1; n <= 8; n++) {
            final int nth = n;
            runUntilFailure("rename" + n, io -> io.failNthMove(nth), true);
        }
    }

    @Test
    void shortWritesAreCompletedAndLoseNothing() {
        Path d = dir.resolve("short");
        FaultyFileIo io = new FaultyFileIo().syncs(false);
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, d, SMALL, Clock.systemUTC(), io)) {
            for (int i = 0; i < 60; i++) {
                io.shortenNthWrite(1);
                Logs.appendFrames(log, 1, 3, 100);
            }
            assertThat(log.isFailed()).isFalse();
        }
        try (PartitionLog log = Logs.open(d, SMALL)) {
            assertThat(log.endOffset()).isEqualTo(180);
            List<KafkoRecord> all = Logs.readAll(log);
            for (int i = 0; i < 180; i++) {
                assertRecord(all.get(i), i, 100);
            }
        }
    }

    @Test
    void aFrameLargerThanAStagingBufferIsWrittenInPiecesAndAFailureBetweenThemLosesNothingAcknowledged() {
        TopicConfig big = TopicConfig.builder().segmentBytes(64L << 20).build();
        int perFrame = 5_000; // about 1.6 MB of records: two pwrites of at most StagingBuffers.SIZE
        Path whole = dir.resolve("pieces");
        FaultyFileIo io = new FaultyFileIo().syncs(false);
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, whole, big, Clock.systemUTC(), io)) {
            Logs.appendFrames(log, 3, 1, 300);
            long writes = io.writes();
            Logs.appendFrames(log, 2, perFrame, 300);
            assertThat(io.writes() - writes).as("each large frame in two pieces").isEqualTo(4);
            assertThat(log.endOffset()).isEqualTo(3 + 2L * perFrame);
        }
        try (PartitionLog log = Logs.open(whole, big)) {
            List<KafkoRecord> all = Logs.readAll(log);
            assertThat(all).hasSize(3 + 2 * perFrame);
            for (int i = 0; i < all.size(); i++) {
                assertRecord(all.get(i), i, 300);
            }
        }
        Path cut = dir.resolve("cut");
        FaultyFileIo faulty = new FaultyFileIo().syncs(false);
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, cut, big, Clock.systemUTC(), faulty)) {
            Logs.appendFrames(log, 3, 1, 300);
            faulty.failNthWrite(2); // the second piece of the large frame
            assertThatThrownBy(() -> Logs.appendFrames(log, 1, perFrame, 300)).isInstanceOf(KafkoStorageException.class);
            assertThat(log.endOffset()).as("the torn frame was never published").isEqualTo(3);
        }
        try (PartitionLog log = Logs.open(cut, big)) {
            assertThat(log.endOffset()).as("recovery cut the first piece").isEqualTo(3);
            List<KafkoRecord> all = Logs.readAll(log);
            for (int i = 0; i < all.size(); i++) {
                assertRecord(all.get(i), i, 300);
            }
            assertThat(log.append(Logs.record(3, 300))).as("appends go on after the cut").isEqualTo(3);
        }
    }

    @Test
    void fullDiskFailsTheAppendNamingTheFileThenEveryCallFailsFast() {
        FaultyFileIo io = new FaultyFileIo().syncs(false);
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, SMALL, Clock.systemUTC(), io)) {
            io.diskFull(true);
            KafkoStorageException e = null;
            for (int i = 0; i < 100 && e == null; i++) {
                try {
                    Logs.appendFrames(log, 1, 3, 100);
                } catch (KafkoStorageException x) {
                    e = x;
                }
            }
            assertThat(e).isNotNull();
            assertThat(e.getMessage()).contains(dir.toString()).contains("No space left");
            assertThat(log.isFailed()).isTrue();
            assertThat(log.failure()).isSameAs(e);
            io.diskFull(false);
            KafkoStorageException cause = e;
            assertThatThrownBy(() -> log.append(Logs.record(0, 1))).isInstanceOf(PartitionFailedException.class)
                    .hasCause(cause);
            assertThatThrownBy(log::flush).isInstanceOf(PartitionFailedException.class).hasCause(cause);
            assertThatThrownBy(() -> log.read(0, 1, 1)).isInstanceOf(PartitionFailedException.class);
            assertThatThrownBy(log::applyRetention).isInstanceOf(PartitionFailedException.class);
        }
        assertThat(Files.exists(dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE))).isFalse();
    }

    /**
     * Appends (flushing every few frames) until the injected fault fails a call, then checks the
     * fail-fast state, reopens on the real file system and finds every acknowledged record.
     */
    private void runUntilFailure(String name, Consumer<FaultyFileIo> arm, boolean skipSyncs) {
        Path d = dir.resolve(name);
        FaultyFileIo io = new FaultyFileIo().syncs(!skipSyncs);
        long acked = 0;
        boolean failed = false;
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, d, SMALL, Clock.systemUTC(), io)) {
            arm.accept(io);
            for (int f = 0; f < 400 && !failed; f++) {
                try {
                    Logs.appendFrames(log, 1, 2, 150);
                    acked = log.endOffset();
                    if (f % 4 == 0) {
                        log.flush();
                    }
                } catch (KafkoStorageException e) {
                    failed = true;
                    assertThat(log.failure()).isSameAs(e);
                    assertThatThrownBy(() -> log.append(Logs.record(0, 1)))
                            .isInstanceOf(PartitionFailedException.class).hasCause(e);
                }
            }
        } catch (KafkoStorageException e) {
            // the fault hit close itself: the log stays unclean and the next open scans it
            failed = true;
        }
        assertThat(failed).as("the injected fault fired in %s", name).isTrue();
        try (PartitionLog log = Logs.open(d, SMALL)) {
            assertThat(log.endOffset()).as("end after %s", name).isGreaterThanOrEqualTo(acked);
            List<KafkoRecord> all = Logs.readAll(log);
            for (int i = 0; i < all.size(); i++) {
                assertRecord(all.get(i), i, 150);
            }
            long next = log.endOffset();
            log.append(Logs.record(next, 150));
            assertRecord(log.read(next, 1, 1).records().get(0), next, 150);
        }
    }
}
