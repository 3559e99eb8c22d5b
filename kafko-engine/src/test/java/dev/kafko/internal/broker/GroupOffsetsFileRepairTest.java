package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.KafkoStorageException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.DelegatingFileChannel;
import dev.kafko.internal.io.FaultyFileIo;
import dev.kafko.internal.io.FileIo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The failure paths of {@link GroupOffsetsFile}: a failed write or fsync leaves the file marked damaged, and the
 * next commit, {@code force()} or {@code close()} rewrites it from the offsets committed before the failure (or
 * deletes it when there are none); {@code discard()} does neither; a failed rewrite is reported. And the adoption
 * of the older layout, {@code groups/<group>.offsets}. Each test pins one outcome a mutant of those paths changes:
 * the offsets a reopen reads, the file's exact size, whether it exists, and how many renames, fsyncs and open
 * channels the file system saw.
 */
class GroupOffsetsFileRepairTest {

    private static final long ONE_ENTRY = GroupOffsetsFile.HEADER_BYTES + GroupOffsetsFile.ENTRY_BYTES;

    @TempDir
    Path dir;

    private final FaultyFileIo faulty = new FaultyFileIo().syncs(false);
    /** Channels opened through {@link #io} and not closed yet. */
    private final AtomicInteger open = new AtomicInteger();
    /** {@link #faulty}, counting the channels it opens that are still open. */
    private final FileIo io = new FileIo() {
        @Override
        public FileChannel open(Path path, OpenOption... options) throws IOException {
            return DelegatingFileChannel.countedOpen(faulty.open(path, options), open);
        }

        @Override
        public void atomicMove(Path source, Path target) throws IOException {
            faulty.atomicMove(source, target);
        }

        @Override
        public void deleteIfExists(Path path) throws IOException {
            faulty.deleteIfExists(path);
        }

        @Override
        public void fsyncDirectory(Path d) throws IOException {
            faulty.fsyncDirectory(d);
        }
    };

    private Path file() {
        return dir.resolve("groups").resolve("g").resolve("offsets");
    }

    private GroupOffsetsFile open() {
        return GroupOffsetsFile.open(io, file(), "test", false);
    }

    private long[] reopen(int partitions) {
        return BrokerBridge.openOffsets(FileIo.SYSTEM, file(), partitions);
    }

    /** The only offset committed is 0; a write fails; the close rewrites the file with it, not deletes it. */
    @Test
    void anOnlyCommitOfOffsetZeroIsRewrittenByTheCloseAfterAFailedWrite() {
        try (GroupOffsetsFile f = open()) {
            f.commit(0, 0, false);
            faulty.failNthWrite(1);
            assertThatThrownBy(() -> f.commit(0, 5, false)).isInstanceOf(KafkoStorageException.class)
                    .hasMessageContaining("cannot write group offsets");
            assertThat(f.committed(0)).as("a failed commit changes nothing the group reports").isZero();
        }
        assertThat(faulty.moves()).as("the close rewrote the damaged file").isEqualTo(1);
        assertThat(reopen(1)).containsExactly(0);
        assertThat(open.get()).isZero();
    }

    /** The only offset committed is 0; a write is torn; the next commit rewrites the file before it appends. */
    @Test
    void anOnlyCommitOfOffsetZeroSurvivesTheRepairByTheNextCommit() throws Exception {
        try (GroupOffsetsFile f = open()) {
            f.commit(0, 0, false);
            faulty.tearNthWrite(1);
            assertThatThrownBy(() -> f.commit(0, 5, false)).isInstanceOf(KafkoStorageException.class);
            assertThat(Files.size(file())).as("half an entry after the first").isEqualTo(ONE_ENTRY + 8);
            f.commit(1, 3, false);
            assertThat(faulty.moves()).isEqualTo(1);
            assertThat(Files.size(file())).as("rewritten with offset 0, then the new entry")
                    .isEqualTo(ONE_ENTRY + GroupOffsetsFile.ENTRY_BYTES);
            assertThat(f.committed(0)).isZero();
            assertThat(f.committed(1)).isEqualTo(3);
        }
        assertThat(faulty.moves()).as("nothing left to repair at the close").isEqualTo(1);
        assertThat(reopen(2)).containsExactly(0, 3);
        // and again after a reopen by the file itself (no torn tail, nothing rewritten)
        try (GroupOffsetsFile f = open()) {
            assertThat(f.wasCorrupt()).isFalse();
            assertThat(f.committed(0)).isZero();
        }
        assertThat(faulty.moves()).isEqualTo(1);
    }

    /** A first commit whose header write fails leaves no file (nor an open channel) once the group closes. */
    @Test
    void aFailedFirstCommitLeavesNoFile() {
        try (GroupOffsetsFile f = open()) {
            faulty.failNthWrite(1);
            assertThatThrownBy(() -> f.commit(0, 7, false)).isInstanceOf(KafkoStorageException.class);
            assertThat(open.get()).as("the channel whose header write failed is closed").isZero();
            assertThat(f.committed(0)).isEqualTo(-1);
        }
        assertThat(file()).doesNotExist();
        assertThat(faulty.moves()).isZero();
    }

    /** The same, repaired by the next commit: the file is made again from nothing, then takes the commit. */
    @Test
    void aFailedFirstCommitIsRepairedByTheNextIntoAFileOfOneEntry() throws Exception {
        try (GroupOffsetsFile f = open()) {
            faulty.tearNthWrite(2); // the header is written, the entry torn
            assertThatThrownBy(() -> f.commit(0, 7, false)).isInstanceOf(KafkoStorageException.class);
            assertThat(Files.size(file())).isEqualTo(GroupOffsetsFile.HEADER_BYTES + 8);
            f.commit(0, 9, false);
            assertThat(Files.size(file())).isEqualTo(ONE_ENTRY);
            assertThat(faulty.moves()).as("nothing committed before: deleted, not rewritten").isZero();
        }
        assertThat(reopen(1)).containsExactly(9);
    }

    @Test
    void forceRewritesAFileAFailedWriteLeftTorn() throws Exception {
        try (GroupOffsetsFile f = open()) {
            f.commit(0, 4, false);
            faulty.tearNthWrite(1);
            assertThatThrownBy(() -> f.commit(0, 5, false)).isInstanceOf(KafkoStorageException.class);
            f.force();
            assertThat(faulty.moves()).isEqualTo(1);
            assertThat(Files.size(file())).as("the torn half entry is gone").isEqualTo(ONE_ENTRY);
            assertThat(open.get()).as("the damaged file's channel was closed, no new one opened yet").isZero();
            f.commit(0, 6, false);
        }
        assertThat(faulty.moves()).as("repaired once").isEqualTo(1);
        assertThat(reopen(1)).containsExactly(6);
    }

    @Test
    void aForceWhoseRewriteFailsIsReportedAndTriedAgain() {
        try (GroupOffsetsFile f = open()) {
            f.commit(0, 4, false);
            faulty.failNthWrite(1);
            assertThatThrownBy(() -> f.commit(0, 5, false)).isInstanceOf(KafkoStorageException.class);
            faulty.failNthMove(1);
            assertThatThrownBy(f::force).isInstanceOf(KafkoStorageException.class)
                    .hasMessageContaining("cannot rewrite group offsets");
            f.force();
            assertThat(faulty.moves()).as("the failed rename, then the one that worked").isEqualTo(2);
        }
        assertThat(faulty.moves()).isEqualTo(2);
        assertThat(reopen(1)).containsExactly(4);
    }

    @Test
    void aForceWithNothingWrittenDoesNothing() {
        try (GroupOffsetsFile f = open()) {
            f.force();
            assertThat(faulty.forces()).isZero();
        }
        assertThat(file()).doesNotExist();
        assertThat(faulty.forces()).isZero();
    }

    @Test
    void aFailedFsyncIsReportedAndTheNextCommitRewritesTheFile() throws Exception {
        try (GroupOffsetsFile f = open()) {
            f.commit(0, 4, false);
            long forces = faulty.forces();
            f.force();
            assertThat(faulty.forces()).as("force() forces the file").isEqualTo(forces + 1);
            faulty.failNthForce(1);
            assertThatThrownBy(f::force).isInstanceOf(KafkoStorageException.class)
                    .hasMessageContaining("cannot fsync group offsets");
            assertThat(open.get()).isZero();
            assertThat(faulty.moves()).isZero();
            f.commit(0, 5, false);
            assertThat(faulty.moves()).as("what the failed fsync covered is written again first").isEqualTo(1);
            assertThat(Files.size(file())).isEqualTo(ONE_ENTRY + GroupOffsetsFile.ENTRY_BYTES);
        }
        assertThat(reopen(1)).containsExactly(5);
    }

    @Test
    void aCommitWithForceForcesTheFile() {
        try (GroupOffsetsFile f = open()) {
            f.commit(0, 1, false); // creates the file: no fsync without syncCreation
            assertThat(faulty.forces()).isZero();
            f.commit(0, 2, true);
            assertThat(faulty.forces()).isEqualTo(1);
            f.commit(0, 3, false);
            assertThat(faulty.forces()).isEqualTo(1);
        }
        assertThat(faulty.forces()).as("the close forces the file").isEqualTo(2);
    }

    @Test
    void aFailedFsyncAtCloseRewritesTheFile() {
        try (GroupOffsetsFile f = open()) {
            f.commit(Map.of(0, 4L, 2, 0L), false);
            faulty.failNthForce(1);
        }
        assertThat(faulty.moves()).as("the close's failed fsync, answered by a rewrite").isEqualTo(1);
        assertThat(open.get()).isZero();
        assertThat(reopen(3)).containsExactly(4, -1, 0);
    }

    @Test
    void aCloseWhoseRewriteFailsIsReported() {
        GroupOffsetsFile f = open();
        f.commit(0, 4, false);
        faulty.failNthWrite(1);
        assertThatThrownBy(() -> f.commit(0, 5, false)).isInstanceOf(KafkoStorageException.class);
        faulty.failNthMove(1);
        assertThatThrownBy(f::close).isInstanceOf(KafkoStorageException.class)
                .hasMessageContaining("cannot close group offsets");
        assertThat(reopen(1)).containsExactly(4);
    }

    @Test
    void aCloseWithNothingDamagedRewritesNothing() throws Exception {
        try (GroupOffsetsFile f = open()) {
            f.commit(0, 4, false);
            f.commit(0, 5, false);
        }
        assertThat(faulty.moves()).isZero();
        assertThat(Files.size(file())).isEqualTo(ONE_ENTRY + GroupOffsetsFile.ENTRY_BYTES);
        assertThat(open.get()).isZero();
    }

    /** A discarded file (its topic is being deleted) is neither forced nor repaired, and its channel is closed. */
    @Test
    void discardNeitherForcesNorRepairs() throws Exception {
        GroupOffsetsFile f = open();
        f.commit(0, 4, false);
        f.discard();
        assertThat(open.get()).isZero();
        assertThat(faulty.forces()).isZero();

        GroupOffsetsFile g = open();
        g.commit(0, 5, false);
        faulty.tearNthWrite(1);
        assertThatThrownBy(() -> g.commit(0, 6, false)).isInstanceOf(KafkoStorageException.class);
        g.discard();
        g.close(); // nothing left to do
        assertThat(faulty.moves()).isZero();
        assertThat(Files.size(file())).as("the torn entry stays")
                .isEqualTo(ONE_ENTRY + GroupOffsetsFile.ENTRY_BYTES + 8);
        assertThat(open.get()).isZero();
    }

    /** A compaction that fails leaves the commit that triggered it in place; the next commit rewrites the file. */
    @Test
    void aFailedCompactionKeepsTheCommitAndIsDoneByTheNext() throws Exception {
        int threshold = 64 * 1024;
        try (GroupOffsetsFile f = open()) {
            for (int i = 0; i < threshold; i++) {
                f.commit(0, i, false);
            }
            assertThat(faulty.moves()).isZero();
            faulty.failNthMove(1);
            f.commit(0, threshold, false); // entry threshold + 1: compacts, and the rename fails
            assertThat(f.committed(0)).isEqualTo(threshold);
            assertThat(faulty.moves()).isEqualTo(1);
            assertThat(open.get()).isZero();
            f.commit(1, 1, false);
            assertThat(faulty.moves()).isEqualTo(2);
            assertThat(Files.size(file())).isEqualTo(ONE_ENTRY + GroupOffsetsFile.ENTRY_BYTES);
        }
        assertThat(reopen(2)).containsExactly(threshold, 1);
    }

    @Test
    void aFileCreatedWithSyncCreationIsForcedWithItsDirectories() {
        try (GroupOffsetsFile f = GroupOffsetsFile.open(faulty, file(), "test", true)) {
            f.commit(0, 1, false);
            // groups/ and groups/g/ made, each synced in its parent; then the new file and its directory entry
            assertThat(faulty.directorySyncs()).isEqualTo(3);
            assertThat(faulty.forces()).isEqualTo(4);
            f.commit(0, 2, false);
            assertThat(faulty.forces()).isEqualTo(4);
        }
    }

    @Test
    void aFileCreatedWithoutSyncCreationIsNotForced() {
        try (GroupOffsetsFile f = open()) {
            f.commit(0, 1, false);
            assertThat(faulty.forces()).isZero();
        }
    }

    /** A commit is one write of its entries while they fit the 64-entry buffer; more take a write per 64. */
    @Test
    void aCommitIsOneWriteOfItsEntries() {
        try (GroupOffsetsFile f = open()) {
            f.commit(0, 1, false); // the header, then the entry
            assertThat(faulty.writes()).isEqualTo(2);
            f.commit(partitions(64), false);
            assertThat(faulty.writes()).isEqualTo(3);
            f.commit(partitions(65), false);
            assertThat(faulty.writes()).isEqualTo(5);
        }
        long[] expected = new long[65];
        Arrays.fill(expected, 7);
        assertThat(reopen(65)).containsExactly(expected);
    }

    private static Map<Integer, Long> partitions(int n) {
        Map<Integer, Long> m = new TreeMap<>();
        for (int p = 0; p < n; p++) {
            m.put(p, 7L);
        }
        return m;
    }

    /** A file that replays clean is not rewritten by the open: the entries stay as they were appended. */
    @Test
    void aCleanFileIsNotRewrittenByTheOpen() throws Exception {
        try (GroupOffsetsFile f = open()) {
            f.commit(0, 1, false);
            f.commit(0, 2, false);
        }
        try (GroupOffsetsFile f = open()) {
            assertThat(f.committed(0)).isEqualTo(2);
            assertThat(f.wasCorrupt()).isFalse();
        }
        assertThat(faulty.moves()).isZero();
        assertThat(Files.size(file())).isEqualTo(ONE_ENTRY + GroupOffsetsFile.ENTRY_BYTES);
    }

    /** The highest partition a topic can have replays; one past it is damage, and the open rewrites the file. */
    @Test
    void theLastPartitionATopicCanHaveReplaysAndTheNextIsDamage() throws Exception {
        int last = TopicConfig.MAX_PARTITIONS - 1;
        try (GroupOffsetsFile f = open()) {
            f.commit(0, 5, false);
        }
        Files.write(file(), entry(last, 9), StandardOpenOption.APPEND);
        try (GroupOffsetsFile f = open()) {
            assertThat(f.committed(last)).isEqualTo(9);
        }
        assertThat(faulty.moves()).isZero();
        Files.write(file(), entry(last + 1, 11), StandardOpenOption.APPEND);
        try (GroupOffsetsFile f = open()) {
            assertThat(f.committed(last + 1)).isEqualTo(-1);
            assertThat(f.committed(last)).isEqualTo(9);
            assertThat(f.wasCorrupt()).as("the last entry: taken for a torn tail").isFalse();
        }
        assertThat(faulty.moves()).as("rewritten without the damaged entry").isEqualTo(1);
        assertThat(Files.size(file())).isEqualTo(ONE_ENTRY + GroupOffsetsFile.ENTRY_BYTES);
    }

    private static byte[] entry(int partition, long offset) {
        ByteBuffer entry = ByteBuffer.allocate(GroupOffsetsFile.ENTRY_BYTES).putInt(partition).putLong(offset);
        CRC32C crc = new CRC32C();
        crc.update(entry.array(), 0, 12);
        return entry.putInt((int) crc.getValue()).array();
    }

    /**
     * With more than 4,096 partitions committed the compaction threshold grows with them (16 entries each), so that
     * a compacted file is never close to the threshold: 66,000 entries over 5,000 partitions are not rewritten.
     */
    @Test
    void theCompactionThresholdGrowsWithThePartitions() throws Exception {
        int partitions = 5_000;
        try (GroupOffsetsFile f = open()) {
            f.commit(partitions(partitions), false);
            for (int i = partitions; i < 66_000; i++) {
                f.commit(0, i, false);
            }
            assertThat(faulty.moves()).isZero();
            assertThat(Files.size(file()))
                    .isEqualTo(GroupOffsetsFile.HEADER_BYTES + 66_000L * GroupOffsetsFile.ENTRY_BYTES);
        }
    }

    /**
     * A compaction whose rename fails leaves the long file as it was, and marks it for a rewrite: the close does
     * it (it has no channel to force), and says why the first one failed.
     */
    @Test
    void aFailedCompactionIsDoneByTheClose() throws Exception {
        int threshold = 64 * 1024;
        try (Logged logged = new Logged()) {
            try (GroupOffsetsFile f = open()) {
                for (int i = 0; i <= threshold; i++) {
                    if (i == threshold) {
                        faulty.failNthMove(1);
                    }
                    f.commit(0, i, false);
                }
                assertThat(faulty.moves()).isEqualTo(1);
                assertThat(Files.size(file())).as("the long file, intact")
                        .isEqualTo(GroupOffsetsFile.HEADER_BYTES + (threshold + 1L) * GroupOffsetsFile.ENTRY_BYTES);
            }
            assertThat(faulty.moves()).isEqualTo(2);
            assertThat(Files.size(file())).isEqualTo(ONE_ENTRY);
            assertThat(logged.lines())
                    .anySatisfy(l -> assertThat(l).startsWith("WARNING cannot compact group offsets"));
        }
        assertThat(reopen(1)).containsExactly(threshold);
    }

    /** A file the open must rewrite (its tail is torn) and cannot: a typed error naming the file. */
    @Test
    void anOpenWhoseRewriteFailsIsATypedError() throws Exception {
        try (GroupOffsetsFile f = open()) {
            f.commit(0, 4, false);
        }
        Files.write(file(), new byte[] {1, 2, 3}, StandardOpenOption.APPEND);
        faulty.failNthMove(1);
        assertThatThrownBy(this::open).isExactlyInstanceOf(KafkoStorageException.class)
                .hasMessageStartingWith("cannot open group offsets " + file());
        assertThat(reopen(1)).containsExactly(4);
    }

    /** The group's directory deleted under a damaged file: the repair makes it again before it rewrites the file. */
    @Test
    void theRepairMakesTheGroupsDirectoryAgain() throws Exception {
        try (GroupOffsetsFile f = open()) {
            f.commit(0, 4, false);
            faulty.failNthWrite(1);
            assertThatThrownBy(() -> f.commit(0, 5, false)).isInstanceOf(KafkoStorageException.class);
            Files.delete(file());
            Files.delete(file().getParent());
            Files.delete(file().getParent().getParent());
            f.commit(1, 6, false);
        }
        assertThat(reopen(2)).containsExactly(4, 6);
    }

    /**
     * What an open says of a damaged file: a torn last entry, or a file that ends in part of an entry, is what a
     * crash leaves (INFO); an entry that fails its CRC before the last is damage, and offsets were lost (WARNING).
     */
    @Test
    void anOpenSaysWhetherATornTailOrDamageCostTheOffsets() throws Exception {
        try (GroupOffsetsFile f = open()) {
            f.commit(0, 4, false);
            f.commit(0, 5, false);
        }
        byte[] good = Files.readAllBytes(file());
        try (Logged logged = new Logged()) {
            Files.write(file(), good);
            Files.write(file(), new byte[] {1, 2, 3}, StandardOpenOption.APPEND);
            open().close();
            assertThat(logged.lines()).containsExactly("INFO test: offsets file " + file()
                    + " ends in a torn entry; it is ignored");
        }
        try (Logged logged = new Logged()) {
            byte[] b = good.clone();
            b[b.length - 1] ^= 1; // the last entry's CRC
            Files.write(file(), b);
            try (GroupOffsetsFile f = open()) {
                assertThat(f.wasCorrupt()).isFalse();
                assertThat(f.committed(0)).isEqualTo(4);
            }
            assertThat(logged.lines()).containsExactly("INFO test: offsets file " + file()
                    + " has a damaged entry at byte 24; entries from there on are ignored");
        }
        try (Logged logged = new Logged()) {
            byte[] b = good.clone();
            b[GroupOffsetsFile.HEADER_BYTES + 4] ^= 1; // the first entry's offset
            Files.write(file(), b);
            try (GroupOffsetsFile f = open()) {
                assertThat(f.wasCorrupt()).isTrue();
                assertThat(f.committed(0)).isEqualTo(-1);
            }
            assertThat(logged.lines()).containsExactly("WARNING test: offsets file " + file()
                    + " has a damaged entry at byte 8; entries from there on are ignored");
        }
    }

    /** The lines {@link GroupOffsetsFile} logs while open, as "LEVEL message". */
    private static final class Logged implements AutoCloseable {
        private final java.util.logging.Logger jul =
                java.util.logging.Logger.getLogger(GroupOffsetsFile.class.getName());
        private final java.util.logging.Level level = jul.getLevel();
        private final List<String> lines = new CopyOnWriteArrayList<>();
        private final Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                lines.add(r.getLevel() + " " + r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };

        Logged() {
            jul.setLevel(java.util.logging.Level.ALL);
            jul.addHandler(handler);
        }

        List<String> lines() {
            return List.copyOf(lines);
        }

        @Override
        public void close() {
            jul.removeHandler(handler);
            jul.setLevel(level);
        }
    }

    // --- the older layout, groups/<group>.offsets

    private Path legacy() {
        return dir.resolve("groups").resolve("g.offsets");
    }

    private void writeLegacy(long offset) {
        Path other = dir.resolve("other").resolve("offsets");
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, other, "test", false)) {
            f.commit(0, offset, false);
        }
        try {
            Files.createDirectories(legacy().getParent());
            Files.move(other, legacy());
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aLegacyFileAloneIsMovedAndItsDirectoriesSynced() {
        writeLegacy(12);
        GroupOffsetsFile.adoptLegacy(faulty, legacy(), file(), true, true);
        assertThat(legacy()).doesNotExist();
        assertThat(faulty.moves()).isEqualTo(1);
        // groups/g made (synced in groups/), then the rename synced in both directories
        assertThat(faulty.directorySyncs()).isEqualTo(3);
        assertThat(reopen(1)).containsExactly(12);
    }

    @Test
    void aLegacyFileIsMovedWithoutSyncsWhenNotAsked() {
        writeLegacy(12);
        GroupOffsetsFile.adoptLegacy(faulty, legacy(), file(), false, true);
        assertThat(legacy()).doesNotExist();
        assertThat(faulty.directorySyncs()).isZero();
        assertThat(reopen(1)).containsExactly(12);
    }

    @Test
    void aLegacyFileIsLeftWhenTheNewOneExists() throws Exception {
        writeLegacy(12);
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, file(), "test", false)) {
            f.commit(0, 30, false);
        }
        GroupOffsetsFile.adoptLegacy(faulty, legacy(), file(), true, true);
        assertThat(legacy()).exists();
        assertThat(faulty.moves()).isZero();
        assertThat(faulty.directorySyncs()).isZero();
        assertThat(reopen(1)).containsExactly(30);
    }

    @Test
    void nothingHappensWithoutALegacyFile() {
        GroupOffsetsFile.adoptLegacy(faulty, legacy(), file(), true, true);
        assertThat(file().getParent()).doesNotExist();
        assertThat(faulty.moves()).isZero();
        assertThat(faulty.directorySyncs()).isZero();
    }

    /** A directory named like a legacy file is the group "g.offsets" of today's layout: not moved. */
    @Test
    void aDirectoryOfTheLegacyNameIsNotMoved() throws Exception {
        Files.createDirectories(legacy().resolve("x"));
        GroupOffsetsFile.adoptLegacy(faulty, legacy(), file(), true, true);
        assertThat(legacy().resolve("x")).exists();
        assertThat(file().getParent()).doesNotExist();
        assertThat(faulty.moves()).isZero();
    }

    @Test
    void aFailedMoveIsReportedAndTheLegacyFileStays() {
        writeLegacy(12);
        faulty.failNthMove(1);
        assertThatThrownBy(() -> GroupOffsetsFile.adoptLegacy(faulty, legacy(), file(), false, true))
                .isInstanceOf(KafkoStorageException.class).hasMessageContaining("cannot move group offsets");
        assertThat(legacy()).exists();
        assertThat(file()).doesNotExist();
        GroupOffsetsFile.adoptLegacy(faulty, legacy(), file(), false, true);
        assertThat(reopen(1)).containsExactly(12);
    }
}
