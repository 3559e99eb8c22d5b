package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.TopicConfig;
import dev.kafko.internal.io.DelegatingFileChannel;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.WrappingFileIo;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GroupOffsetsFileTest {

    @TempDir
    Path dir;

    private Path file() {
        return dir.resolve("groups").resolve("g.offsets");
    }

    @Test
    void lastEntryPerPartitionWinsOnReplay() {
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, file(), "test", true)) {
            f.commit(0, 5, false);
            f.commit(Map.of(0, 7L, 2, 3L), false);
            f.commit(2, 9, true);
        }
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, file(), "test", true)) {
            assertThat(f.committed(0)).isEqualTo(7);
            assertThat(f.committed(1)).isEqualTo(-1);
            assertThat(f.committed(2)).isEqualTo(9);
            assertThat(f.wasCorrupt()).isFalse();
        }
    }

    @Test
    void tornTailIsIgnoredAndLaterCommitsStillReplay() throws Exception {
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, file(), "test", true)) {
            f.commit(0, 5, false);
            f.commit(0, 6, false);
        }
        byte[] b = Files.readAllBytes(file());
        Files.write(file(), Arrays.copyOf(b, b.length - 3)); // the second entry is torn
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, file(), "test", true)) {
            assertThat(f.committed(0)).isEqualTo(5);
            f.commit(0, 8, false);
        }
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, file(), "test", true)) {
            assertThat(f.committed(0)).isEqualTo(8);
        }
    }

    /** A commit of offset 0 (the whole partition still to read) survives the rewrite of a damaged file (B116). */
    @Test
    void aCommitOfOffsetZeroSurvivesTheRewriteOfATornFile() throws Exception {
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, file(), "test", true)) {
            f.commit(Map.of(0, 0L, 1, 5L), false);
            f.commit(1, 6, false);
        }
        byte[] b = Files.readAllBytes(file());
        Files.write(file(), Arrays.copyOf(b, b.length - 3)); // the last entry is torn: the open rewrites the file
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, file(), "test", true)) {
            assertThat(f.committed(0)).isZero();
            assertThat(f.committed(1)).isEqualTo(5);
        }
        assertThat(Files.size(file())).as("the rewritten file: a header and two entries")
                .isEqualTo(GroupOffsetsFile.HEADER_BYTES + 2 * GroupOffsetsFile.ENTRY_BYTES);
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, file(), "test", true)) {
            assertThat(f.committed(0)).isZero();
        }
    }

    /** The compaction of a long file closes the channel it replaces: a group committing for days leaks none (B116). */
    @Test
    void compactionsLeaveOneChannelOpen() {
        AtomicInteger open = new AtomicInteger();
        FileIo counting = new WrappingFileIo((path, options, real) -> DelegatingFileChannel.countedOpen(real, open));
        try (GroupOffsetsFile f = GroupOffsetsFile.open(counting, file(), "test", true)) {
            for (int i = 0; i < 3 * 64 * 1024 + 10; i++) {
                f.commit(0, i, false);
            }
            assertThat(open.get()).as("channels open after 3 compactions").isEqualTo(1);
            assertThat(f.committed(0)).isEqualTo(3 * 64 * 1024 + 9);
        }
        assertThat(open.get()).isZero();
    }

    @Test
    void damagedHeaderLosesTheOffsetsWithoutThrowing() throws Exception {
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, file(), "test", true)) {
            f.commit(0, 5, false);
        }
        byte[] b = Files.readAllBytes(file());
        b[0] ^= 0x55;
        Files.write(file(), b);
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, file(), "test", true)) {
            assertThat(f.wasCorrupt()).isTrue();
            assertThat(f.committed(0)).isEqualTo(-1);
            f.commit(0, 2, false);
        }
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, file(), "test", true)) {
            assertThat(f.wasCorrupt()).isFalse();
            assertThat(f.committed(0)).isEqualTo(2);
        }
    }

    @Test
    void growingPastTheThresholdCompactsToOneEntryPerPartition() throws Exception {
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, file(), "test", true)) {
            for (int i = 0; i <= 64 * 1024 + 10; i++) {
                f.commit(i % 3, i, false);
            }
        }
        assertThat(Files.size(file())).isLessThan(64L * 1024 * GroupOffsetsFile.ENTRY_BYTES);
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, file(), "test", true)) {
            int last = 64 * 1024 + 10;
            for (int p = 0; p < 3; p++) {
                int expected = last - Math.floorMod(last - p, 3);
                assertThat(f.committed(p)).isEqualTo(expected);
            }
        }
    }

    @Test
    void anEntryForAPartitionNoTopicCanHaveIsDamageNotAnAllocationOfItsSize() throws Exception {
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, file(), "test", true)) {
            f.commit(0, 5, false);
        }
        // a crafted entry with a valid CRC: partition 2,000,000,000 would need a 16 GB array
        ByteBuffer entry = ByteBuffer.allocate(GroupOffsetsFile.ENTRY_BYTES).putInt(2_000_000_000).putLong(1);
        CRC32C crc = new CRC32C();
        crc.update(entry.array(), 0, 12);
        entry.putInt((int) crc.getValue());
        Files.write(file(), entry.array(), StandardOpenOption.APPEND);
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, file(), "test", true)) {
            assertThat(f.committed(0)).isEqualTo(5);
            assertThat(f.committed(TopicConfig.MAX_PARTITIONS - 1)).isEqualTo(-1);
        }
    }

    @Test
    void aHugeSparseFileIsReadABlockAtATime() throws Exception {
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, file(), "test", true)) {
            f.commit(1, 42, false);
        }
        try (RandomAccessFile raf = new RandomAccessFile(file().toFile(), "rw")) {
            raf.setLength(3L << 30); // a hole of zeros: no disk space, but 3 GiB to a whole-file read
        }
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, file(), "test", true)) {
            assertThat(f.committed(1)).isEqualTo(42);
        }
        assertThat(Files.size(file())).as("rewritten without the zeros").isLessThan(1024);
    }

    @Test
    void aFileOfManyBlocksReplaysEveryEntry() throws Exception {
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, file(), "test", true)) {
            for (int i = 0; i < 20_000; i++) {
                f.commit(i % 7, i, false);
            }
        }
        assertThat(Files.size(file())).isGreaterThan(200_000);
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, file(), "test", true)) {
            for (int p = 0; p < 7; p++) {
                int expected = 19_999 - Math.floorMod(19_999 - p, 7);
                assertThat(f.committed(p)).isEqualTo(expected);
            }
            assertThat(f.wasCorrupt()).isFalse();
        }
    }

    @Test
    void aTornLastEntryIsATornTailAlsoWhenTheFileIsExactlyOneReplayBlock() throws Exception {
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, file(), "test", true)) {
            for (int i = 0; i < 4096; i++) {
                f.commit(0, i, false);
            }
        }
        byte[] b = Files.readAllBytes(file());
        assertThat(b).hasSize(GroupOffsetsFile.HEADER_BYTES + 4096 * GroupOffsetsFile.ENTRY_BYTES);
        b[b.length - 1] ^= 0x5A; // the last entry's CRC: torn by a crash
        Files.write(file(), b);
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, file(), "test", true)) {
            assertThat(f.committed(0)).isEqualTo(4094);
            assertThat(f.wasCorrupt()).as("a torn tail, not damage").isFalse();
        }
    }
}
