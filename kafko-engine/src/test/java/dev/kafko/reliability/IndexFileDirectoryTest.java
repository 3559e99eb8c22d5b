package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.kafko.Kafko;
import dev.kafko.KafkoException;
import dev.kafko.KafkoStorageException;
import dev.kafko.TopicConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * A directory where an index file of the active segment should be, beside a missing other index file (found by
 * {@code DirectoryOpenFuzzTest}): the open failed only when it read the index files, so with the {@code .index}
 * file missing it opened, the close then failed to write them, and the next open failed. The README's rule, a
 * directory where a segment or index file should be is a {@link KafkoStorageException} of the open, now holds
 * whichever of the two files is missing, on every file system.
 */
class IndexFileDirectoryTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {".timeindex", ".index"})
    void aDirectoryWhereAnIndexFileShouldBeFailsTheOpenEvenWithTheOtherFileMissing(String directorySuffix)
            throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().segmentBytes(1024).build());
            for (int i = 0; i < 50; i++) {
                k.producer("t").send(null, ("value-" + i + "-abcdefghabcdefgh").getBytes()).join();
            }
        }
        Path partition = dir.resolve("t/0");
        String active;
        try (Stream<Path> s = Files.list(partition)) {
            active = s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".log")).sorted()
                    .reduce((a, b) -> b).orElseThrow().replace(".log", "");
        }
        Files.delete(partition.resolve(active + ".index"));
        Files.delete(partition.resolve(active + ".timeindex"));
        Path directory = partition.resolve(active + directorySuffix);
        Files.createDirectory(directory);
        for (int open = 0; open < 2; open++) {
            Kafko k;
            try {
                k = Kafko.open(dir);
            } catch (KafkoStorageException e) {
                assertThat(e).hasMessageContaining(directory.toString());
                continue;
            }
            String closed = "closed";
            try {
                k.close();
            } catch (KafkoException e) {
                closed = "the close failed: " + e;
            }
            fail("open " + open + " succeeded (" + closed + ")");
        }
    }
}
