package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.log.CapturedWarnings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A partition directory of a topic emptied while the instance was closed is reported on open, not taken for new. */
class EmptiedPartitionTest {

    @TempDir
    Path dir;

    @Test
    void anEmptiedPartitionDirectoryIsReportedNamingItsTopicAndPartition() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("tn", TopicConfig.builder().partitions(2).build());
            for (int i = 0; i < 10; i++) {
                k.producer("tn").sendTo(1, null, new byte[] {(byte) i}).join();
            }
        }
        Path partition = FileNames.partitionDir(dir.resolve("tn"), 1);
        try (Stream<Path> files = Files.list(partition)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.delete(f);
            }
        }
        try (CapturedWarnings warnings = CapturedWarnings.of("dev.kafko.internal.broker.TopicDirectory");
                Kafko k = Kafko.open(dir)) {
            assertThat(k.topic("tn").orElseThrow().partition(1).endOffset()).isZero();
            assertThat(warnings.lines()).singleElement().satisfies(w -> assertThat(w).contains("'tn' partition 1")
                    .contains(partition.toString()).contains("holds no segment file"));
        }
        try (CapturedWarnings warnings = CapturedWarnings.of("dev.kafko.internal.broker.TopicDirectory");
                Kafko k = Kafko.open(dir)) {
            assertThat(warnings.lines()).as("a healthy open warns about nothing").isEmpty();
        }
    }
}
