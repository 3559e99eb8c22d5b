package dev.kafko.internal.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFilesTest {

    @TempDir
    Path dir;

    @Test
    void failedRenameOrFsyncLeavesTheOldContentWhole() throws IOException {
        Path target = dir.resolve("topic.conf");
        AtomicFiles.write(FileIo.SYSTEM, target, utf8("old"));
        FaultyFileIo io = new FaultyFileIo().failNthMove(1);
        assertThatThrownBy(() -> AtomicFiles.write(io, target, utf8("new"))).isInstanceOf(IOException.class);
        assertThat(Files.readString(target)).isEqualTo("old");
        io.failNthForce(1);
        assertThatThrownBy(() -> AtomicFiles.write(io, target, utf8("newer"))).isInstanceOf(IOException.class);
        assertThat(Files.readString(target)).isEqualTo("old");
        AtomicFiles.write(io, target, utf8("newest"));
        assertThat(Files.readString(target)).isEqualTo("newest");
        assertThat(io.moves()).isEqualTo(2);
        assertThat(io.directorySyncs()).isEqualTo(1);
    }

    @Test
    void segmentNamesSortAndParse() {
        Path p = FileNames.segmentFile(dir, 1234);
        assertThat(p.getFileName().toString()).isEqualTo("00000000000000001234.log");
        assertThat(FileNames.isSegmentFile("00000000000000001234.log")).isTrue();
        assertThat(FileNames.isSegmentFile("00000000000000001234.index")).isFalse();
        assertThat(FileNames.isSegmentFile("0000000000000000123x.log")).isFalse();
        assertThat(FileNames.baseOffsetOf(FileNames.timeIndexFile(dir, 99).getFileName().toString())).isEqualTo(99);
        assertThat(FileNames.offsetName(Long.MAX_VALUE)).hasSize(20);
    }

    private static ByteBuffer utf8(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }
}
