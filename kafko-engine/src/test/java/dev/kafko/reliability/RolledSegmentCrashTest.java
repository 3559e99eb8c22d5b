package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.FsyncPolicy;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.log.PartitionLog;
import dev.kafko.internal.log.ReadResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Crashes of a log of small frames soon after it rolled, most while the seals of its rolled segments
 * are held back, as a busy background thread holds them: a kill -9 (the page cache keeps every stored
 * byte: the live directory is reopened as it is, the crashed instance abandoned) and a power loss
 * ({@link PowerLossDisk}: only what was fsynced), and a power loss after the recovery. Nothing the
 * process stored is lost to the kill, nothing a flush covered to a power loss, and every recovered
 * log reads from its start to its end without a hole.
 */
class RolledSegmentCrashTest {

    private static final int RECORDS_PER_FRAME = 8;

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0} seals pending, {1}")
    @CsvSource({"1, never", "2, never", "4, never", "1, every-batch", "2, every-batch", "4, every-batch"})
    void crashesWithSealsPendingLoseNothingStoredToAKillNorFlushedToAPowerLoss(int pending, String fsync)
            throws IOException {
        Path live = tmp.resolve("live");
        PowerLossDisk disk = new PowerLossDisk(live);
        FileIo io = new HookedFileIo(disk);
        TopicConfig config = TopicConfig.builder().segmentBytes(64 * 1024).fsync(FsyncPolicy.parse(fsync)).build();
        ArrayDeque<Runnable> held = new ArrayDeque<>();
        PartitionLog crashed = PartitionLog.open("t", 0, live, config, Clock.systemUTC(), io, held::add);
        appendUntilPending(crashed, pending);
        // a flush waits for every pending seal: all of it survives a power loss
        crashed.flush();
        long flushed = crashed.endOffset();
        check(crashInto(disk, "after-flush"), config, 0, flushed, flushed);
        appendUntilPending(crashed, pending);
        long stored = crashed.endOffset();
        check(crashInto(disk, "power-loss"), config, 0, flushed, stored);
        // kill -9: the instance is abandoned with its seals held
        recoverThenLosePower(live, disk, io, config, held::add, stored);
    }

    @Test
    void aRecoveringOpenMakesTheNameOfTheSegmentRolledBeforeTheCrashDurable() throws IOException {
        Path live = tmp.resolve("rolled");
        PowerLossDisk disk = new PowerLossDisk(live);
        FileIo io = new HookedFileIo(disk);
        TopicConfig config = TopicConfig.builder().segmentBytes(64 * 1024).build();
        // no background executor: the rolled segment is sealed at once, only the new one's name is at stake
        PartitionLog crashed = PartitionLog.open("t", 0, live, config, Clock.systemUTC(), io);
        append(crashed);
        crashed.flush();
        appendUntilPending(crashed, 1);
        recoverThenLosePower(live, disk, io, config, null, crashed.endOffset());
    }

    @Test
    void aPowerLossBeforeTheFirstSealAfterACleanReopenCutsTheSegmentAndLeavesNoHole() throws IOException {
        Path live = tmp.resolve("reopened");
        PowerLossDisk disk = new PowerLossDisk(live);
        FileIo io = new HookedFileIo(disk);
        // retention deletes the oldest segment once there are three
        TopicConfig config = TopicConfig.builder().segmentBytes(64 * 1024).retentionBytes(64 * 1024).build();
        ArrayDeque<Runnable> held = new ArrayDeque<>();
        try (PartitionLog log = PartitionLog.open("t", 0, live, config, Clock.systemUTC(), io, held::add)) {
            appendUntilPending(log, 1);
        }
        // the clean close wrote the index files of the segment that was active: it is again, and rolls
        PartitionLog crashed = PartitionLog.open("t", 0, live, config, Clock.systemUTC(), io, held::add);
        append(crashed);
        crashed.flush();
        long flushed = crashed.endOffset();
        appendUntilPending(crashed, 1);
        long stored = crashed.endOffset();
        // a directory fsync while the seal is pending: the new segment's name is durable, the rolled one's tail not
        assertThat(crashed.applyRetention()).isEqualTo(1);
        long start = crashed.logStartOffset();
        check(crashInto(disk, "power-loss"), config, start, flushed, stored);
        // a kill -9 at the same moment: the page cache keeps all of it
        check(live, config, start, stored, stored);
    }

    /**
     * The recovery from a kill -9: reopens the live directory as it is, which holds every record stored
     * before the kill; a power loss right after the open keeps them all (under {@code EVERY_BATCH}
     * consumers read them at once), and so does one after the recovered log's first flush.
     */
    private void recoverThenLosePower(Path live, PowerLossDisk disk, FileIo io, TopicConfig config,
            @Nullable Executor background, long stored) throws IOException {
        try (PartitionLog recovered = PartitionLog.open("t", 0, live, config, Clock.systemUTC(), io, background)) {
            assertThat(recovered.endOffset()).as("the page cache kept every stored record").isEqualTo(stored);
            assertRecords(recovered, 0, stored);
            check(crashInto(disk, "power-loss-at-recovery"), config, 0, stored, stored);
            append(recovered);
            recovered.flush();
            long end = recovered.endOffset();
            check(crashInto(disk, "power-loss-after-recovery"), config, 0, end, end);
        }
    }

    /** Appends frames of small records until {@code pending} segments were rolled since the last flush. */
    private static void appendUntilPending(PartitionLog log, int pending) {
        int sealed = log.segmentCount();
        while (log.segmentCount() < sealed + pending) {
            append(log);
        }
        // and a frame into the active segment after the last roll
        append(log);
    }

    private static void append(PartitionLog log) {
        long base = log.endOffset();
        List<OutgoingRecord> frame = new ArrayList<>();
        for (int i = 0; i < RECORDS_PER_FRAME; i++) {
            byte[] key = Workload.key("s", base + i);
            frame.add(OutgoingRecord.of(key, Workload.value(key)));
        }
        assertThat(log.append(frame)).isEqualTo(base);
    }

    private Path crashInto(PowerLossDisk disk, String name) throws IOException {
        Path image = tmp.resolve(name);
        disk.crashInto(image);
        return image;
    }

    /**
     * Reopens a crash image of the partition and checks that it holds, from {@code start} without a
     * hole, at least the records up to {@code atLeast} and at most those up to {@code atMost}.
     */
    private static void check(Path image, TopicConfig config, long start, long atLeast, long atMost) {
        try (PartitionLog log = PartitionLog.open("t", 0, image, config, Clock.systemUTC(), FileIo.SYSTEM)) {
            assertThat(log.endOffset()).as("records in %s", image.getFileName()).isBetween(atLeast, atMost);
            assertRecords(log, start, log.endOffset());
        }
    }

    /** Reads [from, to) from a log that starts at {@code from}: every offset holds the record written there. */
    private static void assertRecords(PartitionLog log, long from, long to) {
        assertThat(log.logStartOffset()).isEqualTo(from);
        long next = from;
        while (next < to) {
            ReadResult r = log.read(next, 1000, 1 << 20);
            assertThat(r.records()).as("records at %d", next).isNotEmpty();
            for (KafkoRecord record : r.records()) {
                assertThat(record.offset()).isEqualTo(next);
                byte[] key = Workload.key("s", next);
                assertThat(new String(record.key(), StandardCharsets.US_ASCII)).isEqualTo(
                        new String(key, StandardCharsets.US_ASCII));
                assertThat(record.value()).isEqualTo(Workload.value(key));
                next++;
            }
        }
    }
}
