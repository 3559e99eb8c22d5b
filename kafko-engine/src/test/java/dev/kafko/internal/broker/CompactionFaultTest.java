package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Consumer;
import dev.kafko.CorruptLogException;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.KafkoStorageException;
import dev.kafko.PartitionState;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FaultyFileIo;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.log.MutableClock;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A compaction that fails or is cut short at each of its steps loses no record: the partition reads every record it
 * held before (a failure before the rename), or the compacted ones (after it), and a reopen reads the same.
 */
class CompactionFaultTest {

    private static final Duration AGE = Duration.ofMinutes(1);
    private static final Duration LAG = Duration.ofHours(1);

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(1_700_000_000_000L);
    private final FaultyFileIo io = new FaultyFileIo();

    private Kafko open(FileIo fileIo) {
        return BrokerBridge.open(dir, KafkoOptions.builder().clock(clock).build(), fileIo);
    }

    /**
     * 100 records of keys k0..k4 (latest at 95..99), then a tail record that seals them; written by an instance closed
     * before the test opens its own, so that no background seal of theirs takes a fault injected for the compaction.
     */
    private void fill() {
        try (Kafko k = open(FileIo.SYSTEM)) {
            // the lag keeps the background compaction that a reopen starts (nothing compacted since it opened) off the
            // records: each test advances the clock past it, then compacts on its own thread
            k.createTopic("state", TopicConfig.builder().compact().segmentBytes(TopicConfig.MIN_SEGMENT_BYTES)
                    .segmentAge(AGE).minCompactionLag(LAG).build());
            Producer p = k.producer("state");
            for (int i = 0; i < 100; i++) {
                p.sendTo(0, bytes("k" + (i % 5)), bytes("v" + i)).join();
            }
            clock.advance(AGE.plusSeconds(1));
            p.sendTo(0, bytes("tail"), bytes("t")).join();
        }
    }

    /** The offsets of partition 0 of {@code state} read to offset 101 (or for 10 s); shared with CompactionRaceTest. */
    static List<Long> offsets(Kafko k) {
        List<Long> out = new ArrayList<>();
        try (Consumer c = k.consumer("state")) {
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (c.position(0) < 101 && System.nanoTime() < deadline) {
                for (KafkoRecord r : c.poll(Duration.ofMillis(50))) {
                    out.add(r.offset());
                }
            }
        }
        return out;
    }

    private static List<Long> range(long from, long to) {
        List<Long> out = new ArrayList<>();
        for (long o = from; o < to; o++) {
            out.add(o);
        }
        return out;
    }

    private static final List<Long> COMPACTED = List.of(95L, 96L, 97L, 98L, 99L, 100L);

    private void assertNoTmpFile() throws IOException {
        assertThat(fileNames(dir)).noneMatch(n -> n.endsWith(FileNames.TMP_SUFFIX));
    }

    /**
     * The names of the files under {@code directory}, read as those seals rename their index files: unlike
     * {@code Files.walk}, which reads each entry's attributes and fails on one renamed since it was listed, this asks
     * only whether an entry is a directory (false for one gone).
     */
    static List<String> fileNames(Path directory) throws IOException {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory)) {
            for (Path entry : entries) {
                names.add(entry.getFileName().toString());
                if (Files.isDirectory(entry)) {
                    names.addAll(fileNames(entry));
                }
            }
        }
        return names;
    }

    /** No {@code <base>.log.tmp}: a new file of a compacted segment (a failed index write may leave its own). */
    private void assertNoNewSegmentFile() throws IOException {
        assertThat(fileNames(dir)).noneMatch(n -> n.endsWith(".log" + FileNames.TMP_SUFFIX));
    }

    @Test
    void aFailedWriteOfTheNewFileLeavesThePartitionAsItWasAndWorking() throws IOException {
        fill();
        try (Kafko k = open(io)) {
            clock.advance(LAG.plusMinutes(1));
            io.failNthWrite(1);
            assertThatThrownBy(() -> k.topic("state").orElseThrow().compact()).isInstanceOf(KafkoStorageException.class)
                    .hasMessageContaining(".log.tmp");
            assertNoTmpFile();
            assertThat(k.topic("state").orElseThrow().partition(0).state()).isEqualTo(PartitionState.RUNNING);
            assertThat(offsets(k)).isEqualTo(range(0, 101));
            assertThat(k.topic("state").orElseThrow().compact()).isEqualTo(95);
            assertThat(offsets(k)).isEqualTo(COMPACTED);
        }
    }

    @Test
    void aFailedRenameLeavesTheOldSegmentInPlaceAndAReopenReadsIt() throws IOException {
        fill();
        try (Kafko k = open(io)) {
            clock.advance(LAG.plusMinutes(1));
            io.failNthMove(1);
            assertThatThrownBy(() -> k.topic("state").orElseThrow().compact()).isInstanceOf(KafkoStorageException.class)
                    .hasMessageContaining("replace compacted segment");
            assertNoTmpFile();
            assertThat(k.topic("state").orElseThrow().partition(0).state()).isEqualTo(PartitionState.RUNNING);
            assertThat(offsets(k)).isEqualTo(range(0, 101));
        }
        try (Kafko k = open(FileIo.SYSTEM)) {
            assertThat(offsets(k)).isEqualTo(range(0, 101)); // the index files deleted before the rename, rebuilt
        }
    }

    @Test
    void aFailureAfterTheRenameFailsThePartitionAndAReopenReadsTheCompactedSegment() throws IOException {
        fill();
        try (Kafko k = open(io)) {
            clock.advance(LAG.plusMinutes(1));
            io.failNthMove(2); // the segment's rename, then its new .index file's
            assertThatThrownBy(() -> k.topic("state").orElseThrow().compact()).isInstanceOf(KafkoStorageException.class);
            assertThat(k.topic("state").orElseThrow().partition(0).state()).isEqualTo(PartitionState.FAILED);
            assertNoNewSegmentFile(); // those of the segments after it are deleted at once, not left to the open
        }
        try (Kafko k = open(FileIo.SYSTEM)) {
            assertThat(k.topic("state").orElseThrow().partition(0).state()).isEqualTo(PartitionState.RUNNING);
            // the first segment was compacted (its records all removed: k0..k4 are written again later), the others
            // were not when the partition failed; every offset read holds its record
            List<Long> read = offsets(k);
            assertThat(read).isEqualTo(range(read.get(0), 101)).contains(95L).doesNotContain(0L);
            assertNoTmpFile();
            clock.advance(LAG.plusMinutes(1));
            k.topic("state").orElseThrow().compact();
            assertThat(offsets(k)).isEqualTo(COMPACTED);
        }
    }

    @Test
    void aNewFileLeftByACrashBeforeItsRenameIsDeletedAtOpenAndNeverRead() throws IOException {
        fill();
        try (Kafko k = open(io)) {
            clock.advance(LAG.plusMinutes(1));
        }
        Path partition = FileNames.partitionDir(dir.resolve("state"), 0);
        Path tmp = partition.resolve(FileNames.segmentFile(partition, 0).getFileName() + FileNames.TMP_SUFFIX);
        Files.write(tmp, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17});
        try (Kafko k = open(FileIo.SYSTEM)) {
            assertThat(Files.exists(tmp)).isFalse();
            assertThat(offsets(k)).isEqualTo(range(0, 101));
        }
    }

    @Test
    void aFailedFsyncOfTheNewFileLeavesThePartitionAsItWas() throws IOException {
        fill();
        try (Kafko k = open(io)) {
            clock.advance(LAG.plusMinutes(1));
            io.failNthForce(1);
            assertThatThrownBy(() -> k.topic("state").orElseThrow().compact())
                    .isInstanceOf(KafkoStorageException.class);
            assertNoTmpFile();
            assertThat(offsets(k)).isEqualTo(range(0, 101));
        }
    }

    @Test
    void aRecordDamagedOnDiskFailsTheCompactionAndIsNotRewrittenWithAFreshChecksum() throws IOException {
        fill();
        Path partition = FileNames.partitionDir(dir.resolve("state"), 0);
        Path damaged = null;
        try (Stream<Path> files = Files.list(partition)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".log")).sorted().toList()) {
                byte[] b = Files.readAllBytes(f);
                int at = indexOf(b, bytes("v97"));
                if (at >= 0) {
                    b[at + 2] = '8'; // v97 reads v98: only the frame's CRC tells
                    Files.write(f, b);
                    damaged = f;
                }
            }
        }
        assertThat(damaged).isNotNull();
        try (Kafko k = open(FileIo.SYSTEM)) {
            clock.advance(LAG.plusMinutes(1));
            assertThatThrownBy(() -> k.topic("state").orElseThrow().compact()).isInstanceOf(CorruptLogException.class)
                    .hasMessageContaining(damaged.getFileName().toString());
            assertNoTmpFile();
            assertThat(k.topic("state").orElseThrow().partition(0).state()).isEqualTo(PartitionState.RUNNING);
            try (Consumer c = k.consumer("state")) {
                c.seek(0, 97);
                assertThatThrownBy(() -> c.poll(Duration.ofMillis(100))).isInstanceOf(CorruptLogException.class);
            }
        }
    }

    @Test
    void aSegmentWhoseHeaderIsDamagedFailsTheCompaction() throws IOException {
        fill();
        Path first = FileNames.segmentFile(FileNames.partitionDir(dir.resolve("state"), 0), 0);
        byte[] b = Files.readAllBytes(first);
        b[0] ^= 0x01; // the segment magic
        Files.write(first, b);
        try (Kafko k = open(FileIo.SYSTEM)) {
            clock.advance(LAG.plusMinutes(1));
            assertThatThrownBy(() -> k.topic("state").orElseThrow().compact()).isInstanceOf(CorruptLogException.class)
                    .hasMessageContaining(first.getFileName().toString());
            assertNoTmpFile();
            assertThat(Files.readAllBytes(first)).isEqualTo(b);
        }
    }

    @Test
    void theRenamesAreMadeDurableByADirectoryFsync() {
        fill();
        try (Kafko k = open(io)) {
            clock.advance(LAG.plusMinutes(1));
            long syncs = io.directorySyncs();
            assertThat(k.topic("state").orElseThrow().compact()).isEqualTo(95);
            assertThat(io.directorySyncs()).isGreaterThan(syncs);
        }
    }

    private static int indexOf(byte[] in, byte[] what) {
        outer:
        for (int i = 0; i + what.length <= in.length; i++) {
            for (int j = 0; j < what.length; j++) {
                if (in[i + j] != what[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
