package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.TopicConfig;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An index file is a cache the loader checks before it trusts it: one grown far beyond what its
 * segment could ever need (garbage appended, a file system that extended it) must be refused as
 * damaged and rebuilt, without reading the whole file onto the heap first.
 */
class OversizedIndexFileTest {

    private static final long GROWN_TO = 512L << 20;

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {".index", ".timeindex"})
    void anIndexFileGrownFarBeyondItsSegmentIsRebuiltWithoutReadingItOntoTheHeap(String suffix) throws Exception {
        TopicConfig config = Logs.config().segmentBytes(4096).build();
        try (PartitionLog log = Logs.open(dir, config)) {
            Logs.appendFrames(log, 40, 3, 100);
        }
        List<Path> indexes;
        try (Stream<Path> files = Files.list(dir)) {
            indexes = files.filter(p -> p.getFileName().toString().endsWith(suffix)).sorted().toList();
        }
        assertThat(indexes).hasSizeGreaterThan(2);
        // a sealed segment's and the active segment's (written at the clean close)
        for (Path p : List.of(indexes.get(0), indexes.get(indexes.size() - 1))) {
            try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
                f.setLength(GROWN_TO); // sparse: zeros after the real entries
            }
        }
        long before = allocated();
        try (PartitionLog log = Logs.open(dir, config)) {
            long opening = allocated() - before;
            assertThat(opening).as("bytes allocated by the open").isLessThan(64L << 20);
            assertThat(log.endOffset()).isEqualTo(120);
            List<dev.kafko.KafkoRecord> all = Logs.readAll(log);
            assertThat(all).hasSize(120);
            for (int i = 0; i < 120; i++) {
                Logs.assertRecord(all.get(i), i, 100);
            }
        }
        assertThat(Files.size(indexes.get(0))).as("the rebuilt index").isLessThan(GROWN_TO);
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }
}
