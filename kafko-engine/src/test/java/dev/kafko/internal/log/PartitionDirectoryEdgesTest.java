package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.KafkoStorageException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FaultyFileIo;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The partition directory's own entries, driven directly: which steps fsync the directory and how often, what
 * they delete, and the failures they report.
 */
class PartitionDirectoryEdgesTest {

    @TempDir
    Path dir;

    private final FaultyFileIo io = new FaultyFileIo().syncs(false);

    @Test
    void theActiveSegmentsIndexFilesAreDeletedDurablyOnceAtItsRoll() throws IOException {
        Files.write(FileNames.indexFile(dir, 40), new byte[8]);
        Files.write(FileNames.timeIndexFile(dir, 40), new byte[8]);
        PartitionDirectory d = new PartitionDirectory(io, dir, false, false, 40);
        d.dropActiveIndexFiles(40);
        assertThat(FileNames.indexFile(dir, 40)).doesNotExist();
        assertThat(FileNames.timeIndexFile(dir, 40)).doesNotExist();
        assertThat(io.directorySyncs()).isEqualTo(1);
        // the next roll has none to delete
        Files.write(FileNames.indexFile(dir, 90), new byte[8]);
        d.dropActiveIndexFiles(90);
        assertThat(FileNames.indexFile(dir, 90)).exists();
        assertThat(io.directorySyncs()).isEqualTo(1);
    }

    @Test
    void anActiveSegmentWithoutIndexFilesRollsWithoutADirectorySync() throws IOException {
        Files.write(FileNames.indexFile(dir, 0), new byte[8]);
        PartitionDirectory d = new PartitionDirectory(io, dir, false, false, 40);
        d.dropActiveIndexFiles(0);
        assertThat(FileNames.indexFile(dir, 0)).exists();
        assertThat(io.directorySyncs()).isZero();
    }

    @Test
    void droppingTheCleanMarkerDeletesItDurablyAndCoversACreatedSegmentsName() throws IOException {
        Path marker = dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE);
        Files.write(marker, new byte[8]);
        PartitionDirectory d = new PartitionDirectory(io, dir, true, true, 0);
        assertThat(d.markerOnDisk()).isTrue();
        d.dropCleanMarker();
        assertThat(marker).doesNotExist();
        assertThat(d.markerOnDisk()).isFalse();
        assertThat(io.directorySyncs()).isEqualTo(1);
        // the same fsync made the pending name durable
        d.syncIfPending();
        assertThat(io.directorySyncs()).isEqualTo(1);
    }

    @Test
    void aCreatedSegmentsNameIsMadeDurableOnceByTheNextSync() {
        PartitionDirectory d = new PartitionDirectory(io, dir, false, false, 0);
        d.syncIfPending();
        assertThat(io.directorySyncs()).isZero();
        d.segmentCreated();
        d.syncIfPending();
        d.syncIfPending();
        assertThat(io.directorySyncs()).isEqualTo(1);
        PartitionDirectory pending = new PartitionDirectory(io, dir, false, true, 0);
        pending.syncIfPending();
        assertThat(io.directorySyncs()).isEqualTo(2);
    }

    @Test
    void aMarkerThatCannotBeDeletedFailsNamingItAndStaysVouchedFor() throws IOException {
        Path marker = dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE);
        Files.write(marker, new byte[8]);
        PartitionDirectory d = new PartitionDirectory(io, dir, true, false, 0);
        io.failNthDelete(1);
        assertThatThrownBy(d::dropCleanMarker).isInstanceOf(KafkoStorageException.class)
                .hasMessageContaining("delete clean-shutdown marker").hasMessageContaining(marker.toString());
        assertThat(d.markerOnDisk()).isTrue();
        assertThat(io.directorySyncs()).isZero();
    }

    @Test
    void aDirectoryFsyncThatFailsNamesTheStepAndTheDirectoryAndStaysPending() {
        PartitionDirectory d = new PartitionDirectory(io, dir, false, true, 0);
        io.failNthForce(1);
        assertThatThrownBy(d::syncIfPending).isInstanceOf(KafkoStorageException.class)
                .hasMessageContaining("fsync directory after creating a segment").hasMessageContaining(dir.toString());
        d.syncIfPending();
        assertThat(io.directorySyncs()).isEqualTo(2);
    }

    @Test
    void aCleanCloseLeavesAMarkerWithItsMagicAndVersionMadeDurable() throws IOException {
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, TopicConfig.DEFAULTS, Clock.systemUTC(), io)) {
            Logs.appendFrames(log, 2, 3, 50);
            long before = io.directorySyncs();
            log.close();
            assertThat(io.directorySyncs()).isGreaterThan(before);
        }
        byte[] marker = Files.readAllBytes(dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE));
        assertThat(marker).hasSize(8);
        assertThat(FrameFormat.getInt(marker, 0)).isEqualTo(0x4B464B43);
        assertThat(FrameFormat.getShort(marker, 4)).isEqualTo((short) 1);
        // the active segment's index files that clean close vouches for
        assertThat(FileNames.indexFile(dir, 0)).exists();
    }
}
