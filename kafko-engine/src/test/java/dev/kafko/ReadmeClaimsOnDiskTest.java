package dev.kafko;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Claims of the README's section "On disk" that no other test checks, each test quoting the sentence it checks.
 */
class ReadmeClaimsOnDiskTest {

    /**
     * "While the instance is closed, deleting a partition's oldest segment files ({@code .log} with their
     * {@code .index} and {@code .timeindex}) moves its log start".
     */
    @Test
    void deletingAClosedPartitionsOldestSegmentFilesMovesItsLogStart(@TempDir Path dir) throws IOException {
        try (Kafko kafko = Kafko.open(dir)) {
            kafko.createTopic("orders", TopicConfig.builder().segmentBytes(TopicConfig.MIN_SEGMENT_BYTES).build());
            Producer producer = kafko.producer("orders");
            for (int i = 0; i < 40; i++) {
                producer.send(null, new byte[100]).join();
            }
        }
        Path partition = dir.resolve("orders").resolve("0");
        List<Path> logs;
        try (Stream<Path> files = Files.list(partition)) {
            logs = files.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().toList();
        }
        assertThat(logs).as("segments rolled").hasSizeGreaterThanOrEqualTo(3);
        String oldest = logs.get(0).getFileName().toString().replace(".log", "");
        long secondBase = Long.parseLong(logs.get(1).getFileName().toString().replace(".log", ""));
        for (String suffix : List.of(".log", ".index", ".timeindex")) {
            Files.delete(partition.resolve(oldest + suffix));
        }

        try (Kafko kafko = Kafko.open(dir)) {
            PartitionInfo info = kafko.topic("orders").orElseThrow().partition(0);
            assertThat(info.logStartOffset()).isEqualTo(secondBase);
            assertThat(info.endOffset()).isEqualTo(40);
            try (Consumer consumer = kafko.consumer("orders")) {
                List<KafkoRecord> records = consumer.poll(Duration.ofSeconds(5));
                assertThat(records).isNotEmpty();
                assertThat(records.get(0).offset()).isEqualTo(secondBase);
            }
        }
    }

    /** "While the instance is closed, ... deleting a topic's directory deletes the topic and its groups." */
    @Test
    void deletingAClosedTopicsDirectoryDeletesTheTopicAndItsGroups(@TempDir Path dir) throws IOException {
        try (Kafko kafko = Kafko.open(dir)) {
            kafko.createTopic("orders");
            kafko.producer("orders").send(null, new byte[] {1}).join();
            try (Consumer billing = kafko.groupConsumer("orders", "billing")) {
                assertThat(billing.poll(Duration.ofSeconds(5))).hasSize(1);
                billing.commit();
            }
            assertThat(kafko.groups("orders")).containsExactly("billing");
        }
        try (Stream<Path> walk = Files.walk(dir.resolve("orders"))) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }

        try (Kafko kafko = Kafko.open(dir)) {
            assertThat(kafko.topic("orders")).isEmpty();
            kafko.createTopic("orders");
            assertThat(kafko.groups("orders")).isEmpty();
            assertThat(kafko.groupInfo("orders", "billing").committed()).isEmpty();
            assertThat(kafko.topic("orders").orElseThrow().partition(0).endOffset()).isZero();
        }
    }
}
