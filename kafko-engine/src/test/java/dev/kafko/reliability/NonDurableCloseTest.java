package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.BrokerBridge;
import dev.kafko.internal.io.FileNames;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code KafkoOptions.durableClose(false)}, for a directory deleted right after {@code close()} (the starter's
 * ephemeral log): the close forces nothing and writes nothing for a later open, yet completes every pending send; a
 * directory opened again anyway is recovered as after a crash of the process, with every record and commit.
 */
class NonDurableCloseTest {

    /** Counts what the close writes back: forces of files and directories, and atomic file replacements. */
    static final class CloseWrites implements HookedFileIo.Hooks {
        final AtomicBoolean closing = new AtomicBoolean();
        final AtomicInteger forces = new AtomicInteger();
        final AtomicInteger directoryForces = new AtomicInteger();
        final AtomicInteger moves = new AtomicInteger();

        @Override
        public void beforeForce(Path path) {
            if (closing.get()) {
                forces.incrementAndGet();
            }
        }

        @Override
        public void afterFsyncDirectory(Path dir) {
            if (closing.get()) {
                directoryForces.incrementAndGet();
            }
        }

        @Override
        public void beforeMove(Path source, Path target) {
            if (closing.get()) {
                moves.incrementAndGet();
            }
        }
    }

    @Test
    void aCloseForADirectoryDeletedNextForcesNothingAndLosesNothingTheProcessWrote(@TempDir Path dir)
            throws Exception {
        CloseWrites writes = new CloseWrites();
        Map<Integer, Long> committed = fillAndClose(dir, KafkoOptions.builder().durableClose(false).build(), writes,
                TopicConfig.DEFAULTS.segmentBytes());

        assertThat(writes.forces).hasValue(0);
        assertThat(writes.directoryForces).hasValue(0);
        assertThat(writes.moves).hasValue(0); // no index files, no clean-shutdown marker
        try (Stream<Path> files = Files.walk(dir)) {
            assertThat(files.filter(p -> p.getFileName().toString().equals(FileNames.CLEAN_SHUTDOWN_FILE)))
                    .isEmpty();
        }
        assertEverythingIsThere(dir, committed);
    }

    /**
     * The starter's options for an ephemeral log, with segments that roll every few records: the rolled segments,
     * sealed without an fsync, are not forced at the close either, and are all there after a reopen.
     */
    @Test
    void rolledSegmentsOfADirectoryDeletedNextAreNotForcedAtTheCloseAndAreKept(@TempDir Path dir) throws Exception {
        CloseWrites writes = new CloseWrites();
        Map<Integer, Long> committed = fillAndClose(dir,
                KafkoOptions.builder().durableClose(false).fsyncMetadata(false).build(), writes, 1024);

        assertThat(writes.forces).hasValue(0);
        assertThat(writes.directoryForces).hasValue(0);
        try (Stream<Path> files = Files.walk(dir)) {
            assertThat(files.filter(p -> p.getFileName().toString().endsWith(".log")).count())
                    .as("segments").isGreaterThan(10);
        }
        assertEverythingIsThere(dir, committed);
    }

    /** The same traffic under the default options: the hooks see the close's fsyncs, so the test above can fail. */
    @Test
    void aDurableCloseForcesAndMarksEveryPartition(@TempDir Path dir) throws Exception {
        CloseWrites writes = new CloseWrites();
        Map<Integer, Long> committed = fillAndClose(dir, KafkoOptions.DEFAULTS, writes, TopicConfig.DEFAULTS.segmentBytes());

        assertThat(writes.forces.get()).isGreaterThanOrEqualTo(4); // 3 + 1 partitions, the group's offsets
        assertThat(writes.directoryForces.get()).isGreaterThanOrEqualTo(4);
        try (Stream<Path> files = Files.walk(dir)) {
            assertThat(files.filter(p -> p.getFileName().toString().equals(FileNames.CLEAN_SHUTDOWN_FILE)))
                    .hasSize(4);
        }
        assertEverythingIsThere(dir, committed);
    }

    /**
     * 300 records over three partitions of a topic under {@code NEVER} (the last 100 still pending at the close)
     * and 50 under {@code EVERY_BATCH}, a group's commit of what it read; returns the committed offsets.
     */
    private static Map<Integer, Long> fillAndClose(Path dir, KafkoOptions options, CloseWrites writes,
            long segmentBytes) throws Exception {
        Kafko kafko = BrokerBridge.open(dir, options, new HookedFileIo(writes));
        kafko.createTopic("never", TopicConfig.builder().partitions(3).fsync(FsyncPolicy.NEVER)
                .segmentBytes(segmentBytes).build());
        kafko.createTopic("every", TopicConfig.builder().partitions(1).fsync(FsyncPolicy.EVERY_BATCH).build());
        Producer never = kafko.producer("never");
        for (int i = 0; i < 200; i++) {
            never.send(bytes("k" + i), bytes("v" + i)).join();
        }
        Producer every = kafko.producer("every");
        for (int i = 0; i < 50; i++) {
            every.send(null, bytes("e" + i)).join();
        }
        Map<Integer, Long> committed = new HashMap<>();
        try (Consumer group = kafko.groupConsumer("never", "g")) {
            int read = 0;
            while (read < 120) {
                read += group.poll(Duration.ofSeconds(5)).size();
            }
            group.commit();
            for (int p : group.assignment()) {
                committed.put(p, group.committed(p).orElse(-1));
            }
        }
        List<CompletableFuture<RecordPosition>> pending = new ArrayList<>();
        for (int i = 200; i < 300; i++) {
            pending.add(never.send(bytes("k" + i), bytes("v" + i)));
        }
        writes.closing.set(true);
        kafko.close();
        assertThat(pending).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
        return committed;
    }

    private static void assertEverythingIsThere(Path dir, Map<Integer, Long> committed) {
        try (Kafko kafko = Kafko.open(dir)) {
            List<String> values = new ArrayList<>();
            try (Consumer c = kafko.consumer("never")) {
                while (values.size() < 300) {
                    List<KafkoRecord> records = c.poll(Duration.ofSeconds(5));
                    assertThat(records).as("records of 'never' after %d", values.size()).isNotEmpty();
                    records.forEach(r -> values.add(new String(r.value(), StandardCharsets.UTF_8)));
                }
                assertThat(c.poll(Duration.ZERO)).isEmpty();
            }
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                expected.add("v" + i);
            }
            assertThat(values).containsExactlyInAnyOrderElementsOf(expected);
            assertThat(kafko.topic("every").orElseThrow().partition(0).endOffset()).isEqualTo(50);
            try (Consumer group = kafko.groupConsumer("never", "g")) {
                group.poll(Duration.ZERO);
                for (Map.Entry<Integer, Long> e : committed.entrySet()) {
                    assertThat(group.committed(e.getKey()).orElse(-1)).as("partition %d", e.getKey())
                            .isEqualTo(e.getValue());
                }
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
