package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.KafkoStorageException;
import dev.kafko.internal.io.FaultyFileIo;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Segment files by path, driven directly: the header's bytes, creation, opening and fsync, and their failures. */
class SegmentFilesEdgesTest {

    private static final long LIMIT = 1 << 20;

    @TempDir
    Path dir;

    @Test
    void theHeaderCarriesTheMagicTheVersionAndTheBaseOffset() {
        byte[] h = SegmentFiles.header(0x0102030405060708L);
        assertThat(h).hasSize(FrameFormat.SEGMENT_HEADER_SIZE);
        assertThat(FrameFormat.getInt(h, FrameFormat.SEGMENT_MAGIC_OFFSET)).isEqualTo(FrameFormat.SEGMENT_MAGIC);
        assertThat(FrameFormat.getShort(h, FrameFormat.SEGMENT_VERSION_OFFSET)).isEqualTo(FrameFormat.SEGMENT_VERSION);
        assertThat(FrameFormat.getLong(h, FrameFormat.SEGMENT_BASE_OFFSET_OFFSET)).isEqualTo(0x0102030405060708L);
    }

    @Test
    void aCreatedFileHoldsItsHeaderAndReopensWritableOrNot() throws IOException {
        Path path = FileNames.segmentFile(dir, 7);
        byte[] header = SegmentFiles.header(7);
        SegmentFile created = SegmentFiles.create(FileIo.SYSTEM, path, header, LIMIT);
        try {
            assertThat(created.isWritable()).isTrue();
            assertThat(Files.readAllBytes(path)).isEqualTo(header);
        } finally {
            created.closeChannel();
            created.closeWithLog();
        }
        for (boolean writable : new boolean[] {true, false}) {
            SegmentFile opened = SegmentFiles.open(FileIo.SYSTEM, path, writable, LIMIT);
            try {
                assertThat(opened.isWritable()).isEqualTo(writable);
                assertThat(opened.isMapped()).isEqualTo(writable);
                byte[] read = new byte[header.length];
                opened.read(0, read, 0, read.length);
                assertThat(read).isEqualTo(header);
            } finally {
                opened.closeChannel();
                opened.closeWithLog();
            }
        }
    }

    @Test
    void creatingAFileThatExistsFailsNamingItAndLeavesItAlone() throws IOException {
        Path path = FileNames.segmentFile(dir, 0);
        Files.write(path, new byte[] {1, 2, 3});
        assertThatThrownBy(() -> SegmentFiles.create(FileIo.SYSTEM, path, SegmentFiles.header(0), LIMIT))
                .isInstanceOf(KafkoStorageException.class).hasMessageContaining("create segment")
                .hasMessageContaining(path.toString());
        assertThat(Files.readAllBytes(path)).containsExactly(1, 2, 3);
    }

    @Test
    void aCreationWhoseHeaderCannotBeWrittenLeavesNoFile() {
        Path path = FileNames.segmentFile(dir, 0);
        FaultyFileIo io = new FaultyFileIo().diskFull(true);
        assertThatThrownBy(() -> SegmentFiles.create(io, path, SegmentFiles.header(0), LIMIT))
                .isInstanceOf(KafkoStorageException.class).hasMessageContaining("create segment")
                .hasMessageContaining("No space left");
        assertThat(path).doesNotExist();
    }

    @Test
    void aShortHeaderWriteIsCompletedByTheNextWrite() throws IOException {
        Path path = FileNames.segmentFile(dir, 3);
        FaultyFileIo io = new FaultyFileIo().shortenNthWrite(1);
        SegmentFile f = SegmentFiles.create(io, path, SegmentFiles.header(3), LIMIT);
        try {
            assertThat(io.writes()).isEqualTo(2);
            assertThat(Files.readAllBytes(path)).isEqualTo(SegmentFiles.header(3));
        } finally {
            f.closeChannel();
            f.closeWithLog();
        }
    }

    @Test
    void openingOrForcingAMissingFileFailsNamingTheStepAndTheFile() {
        Path path = FileNames.segmentFile(dir, 0);
        for (boolean writable : new boolean[] {true, false}) {
            assertThatThrownBy(() -> SegmentFiles.open(FileIo.SYSTEM, path, writable, LIMIT))
                    .isInstanceOf(KafkoStorageException.class).hasMessageContaining("open segment failed on " + path);
        }
        assertThatThrownBy(() -> SegmentFiles.force(FileIo.SYSTEM, path)).isInstanceOf(KafkoStorageException.class)
                .hasMessageContaining("fsync failed on " + path);
    }

    @Test
    void aForceThatFailsIsAStorageFailure() throws IOException {
        Path path = FileNames.segmentFile(dir, 0);
        Files.write(path, SegmentFiles.header(0));
        FaultyFileIo io = new FaultyFileIo();
        SegmentFiles.force(io, path);
        assertThat(io.forces()).isEqualTo(1);
        io.failNthForce(1);
        assertThatThrownBy(() -> SegmentFiles.force(io, path)).isInstanceOf(KafkoStorageException.class)
                .hasMessageContaining("fsync failed on " + path);
    }

    @Test
    void aFileOpenedForReadsKeepsItsChannelForTheReadsThatFollowUntilItIsReleased() throws IOException {
        Path path = FileNames.segmentFile(dir, 0);
        Files.write(path, SegmentFiles.header(0));
        int before = UnmappedReads.openChannels();
        SegmentFile f = SegmentFiles.open(FileIo.SYSTEM, path, false, LIMIT);
        try {
            assertThat(UnmappedReads.openChannels()).isEqualTo(Math.min(before + 1, UnmappedReads.MAX_OPEN));
        } finally {
            f.closeChannel();
            f.closeWithLog();
        }
        assertThat(UnmappedReads.openChannels()).isEqualTo(Math.min(before, UnmappedReads.MAX_OPEN - 1));
    }
}
