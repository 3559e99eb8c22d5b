package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Compression;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import java.nio.file.Path;
import java.util.NavigableMap;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every path that reads the frames of a compacted segment with holes, against a model of what was sent: reads of each
 * offset (a hole's offsets read the next kept record), of every size and byte limit, with and without a reader's
 * verified frame (whose cursor stops before a hole and goes on from there), a reader jumping back and forth inside
 * frames, lookups by time, through the mapping and through positional reads (segments beyond the mapping budget);
 * under each codec, then after a second compaction and merge over the segments that already hold holes, and after a
 * reopen.
 */
class HolesReadPathsTest {

    @TempDir
    Path dir;

    @AfterEach
    void restoreBudget() {
        MappingBudget.setLimit(-1);
    }

    @ParameterizedTest(name = "{0}, mapped {1}")
    @CsvSource({"NONE, true", "NONE, false", "LZ4, true", "LZ4, false", "ZSTD, true", "ZSTD, false"})
    void everyReadPathOfFramesWithHolesReadsTheKeptRecords(Compression compression, boolean mapped) {
        if (!mapped) {
            MappingBudget.setLimit(0); // every read of a sealed segment is a positional read
        }
        HolesFixture f = new HolesFixture(compression.ordinal() * 31L + 7);
        TopicConfig config = HolesFixture.config(compression);
        Random jumps = new Random(11);
        NavigableMap<Long, HolesFixture.Sent> kept;
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, f.clock, FileIo.SYSTEM)) {
            f.append(log, 3000, 1000);
            f.seal(log, "tail-1");
            long sizeBefore = log.sizeBytes();
            assertThat(f.compact(log, config)).isPositive();
            kept = f.kept(f.sent.lastKey());
            int[] kinds = HolesFixture.frameKinds(log);
            assertThat(kinds[0]).as("frames with holes").isGreaterThanOrEqualTo(5);
            assertThat(log.sizeBytes()).isLessThan(sizeBefore);
            f.assertReadsAsModel(log, kept, jumps);

            // more records of the same keys, then a second compaction, which rewrites and merges segments with holes
            // (under another codec: the topic's codec changed)
            f.append(log, 1500, 1000);
            f.seal(log, "tail-2");
            TopicConfig other = HolesFixture.config(Compression.values()[(compression.ordinal() + 1) % 3]);
            log.reconfigure(other, true);
            assertThat(f.compact(log, other)).isPositive();
            kept = f.kept(f.sent.lastKey());
            assertThat(HolesFixture.frameKinds(log)[0]).as("frames with holes").isGreaterThanOrEqualTo(5);
            f.assertReadsAsModel(log, kept, jumps);
        }
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, f.clock, FileIo.SYSTEM)) {
            f.assertReadsAsModel(log, kept, jumps);
        }
    }
}
