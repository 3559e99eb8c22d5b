package dev.kafko.tryout;

import static dev.kafko.tryout.MergeTryoutTest.assertWhole;
import static dev.kafko.tryout.MergeTryoutTest.b;
import static dev.kafko.tryout.MergeTryoutTest.fill;
import static dev.kafko.tryout.MergeTryoutTest.readAll;
import static dev.kafko.tryout.MergeTryoutTest.s;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Compression;
import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoException;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.PartitionInfo;
import dev.kafko.PartitionState;
import dev.kafko.Producer;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.UnknownTopicException;
import dev.kafko.tryout.MergeTryoutTest.Sent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A compacted topic's merged segments across closes and crashes: a close after merges of segments sealed without an
 * fsync is clean, a policy that fsyncs them later finds every file, a process killed after merges (or in the middle of
 * compactions, closed or deleted under them) reopens with the same segments and records.
 */
class MergeDurabilityTryoutTest {

    @TempDir
    Path dir;

    @Test
    void aCloseAfterAMergeUnderUnforcedMetadataIsCleanAndLosesNothing() {
        KafkoOptions options = KafkoOptions.builder().fsyncMetadata(false).build();
        Map<String, String> latest = new HashMap<>();
        try (Kafko k = Kafko.open(dir, options)) {
            Topic t = k.createTopic("state", TopicConfig.builder().compact().segmentBytes(TopicConfig.MIN_SEGMENT_BYTES)
                    .build());
            Producer p = k.producer("state");
            for (int i = 0; i < 200; i++) {
                String key = "k" + (i % 5);
                p.sendTo(0, b(key), b("v" + i)).join();
                latest.put(key, "v" + i);
            }
            int before = t.partition(0).segmentCount();
            t.compact();
            t.compact();
            assertThat(t.partition(0).segmentCount()).as("merged").isLessThan(before).isLessThanOrEqualTo(3);
        }
        try (Kafko k = Kafko.open(dir, options)) {
            PartitionInfo info = k.topic("state").orElseThrow().partition(0);
            assertThat(info.state()).isEqualTo(PartitionState.RUNNING);
            Map<String, String> read = new HashMap<>();
            for (KafkoRecord r : readAll(k, "state", 0)) {
                read.put(s(r.key()), s(r.value()));
            }
            assertThat(read).isEqualTo(latest);
        }
    }

    @Test
    void aPolicyThatFsyncsAfterAMergeUnderUnforcedSealsKeepsThePartitionRunning() {
        KafkoOptions options = KafkoOptions.builder().fsyncMetadata(false).build();
        Map<Long, Sent> sent = new HashMap<>();
        try (Kafko k = Kafko.open(dir, options)) {
            Topic t = k.createTopic("state", TopicConfig.builder().compact().segmentBytes(TopicConfig.MIN_SEGMENT_BYTES)
                    .build());
            fill(k.producer("state"), sent, 0, 200, 5, 10);
            int before = t.partition(0).segmentCount();
            t.compact();
            t.compact();
            assertThat(t.partition(0).segmentCount()).as("merged").isLessThan(before);
            // the new policy forces what the partition holds: the segments sealed unforced, merged meanwhile
            t.alterConfig(t.config().toBuilder().fsync(FsyncPolicy.EVERY_BATCH).build());
            assertThat(t.partition(0).state()).isEqualTo(PartitionState.RUNNING);
            fill(k.producer("state"), sent, 200, 10, 5, 10);
            assertWhole(k, "state", 0, sent, "forced");
        }
        try (Kafko k = Kafko.open(dir, options)) {
            assertWhole(k, "state", 0, sent, "reopened");
        }
    }

    @Test
    void closesAndDeletionsDuringCompactionsLeaveATopicThatReopensWhole() throws Exception {
        Map<Long, Sent> sent = new HashMap<>();
        int next = 0;
        for (int round = 0; round < 8; round++) {
            try (Kafko k = Kafko.open(dir)) {
                Topic t = round == 0 ? k.createTopic("state", TopicConfig.builder().compact()
                        .segmentBytes(TopicConfig.MIN_SEGMENT_BYTES).compression(Compression.ZSTD).build())
                        : k.topic("state").orElseThrow();
                if (round > 0) {
                    assertWhole(k, "state", 0, sent, "reopened in round " + round);
                }
                fill(k.producer("state"), sent, next, 300, 7, 30);
                next += 300;
                ExecutorService pool = Executors.newSingleThreadExecutor();
                Future<?> compacting = pool.submit(() -> {
                    for (int i = 0; i < 50; i++) {
                        t.compact();
                    }
                    return null;
                });
                // closed while the compactions run (a compaction it meets ends with a typed error)
                Thread.yield();
                k.close();
                try {
                    compacting.get(20, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    assertThat(e.getCause()).isInstanceOf(KafkoException.class);
                }
                pool.shutdown();
            }
        }
        try (Kafko k = Kafko.open(dir)) {
            assertWhole(k, "state", 0, sent, "reopened at last");
            Topic t = k.topic("state").orElseThrow();
            ExecutorService pool = Executors.newSingleThreadExecutor();
            Future<?> compacting = pool.submit(() -> {
                for (int i = 0; i < 50; i++) {
                    t.compact();
                }
                return null;
            });
            k.deleteTopic("state");
            try {
                compacting.get(20, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(UnknownTopicException.class);
            }
            pool.shutdown();
            assertThat(k.topic("state")).isEmpty();
            Topic again = k.createTopic("state", TopicConfig.builder().compact().build());
            assertThat(again.partition(0).endOffset()).isZero();
        }
    }

    /** The files under {@code data} this process holds open although they were deleted (Linux only; else none). */
    private static List<String> descriptorsOfDeletedFiles(Path data) throws IOException {
        List<String> open = new ArrayList<>();
        Path fds = Path.of("/proc/self/fd");
        if (!Files.isDirectory(fds)) {
            return open;
        }
        try (var links = Files.list(fds)) {
            for (Path fd : links.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith(data.toString()) && target.endsWith("(deleted)")) {
                        open.add(target);
                    }
                } catch (IOException e) {
                    // closed meanwhile
                }
            }
        }
        return open;
    }

    /** A copy of the data directory as a process killed now would leave it (the page cache is the disk to a reopen). */
    private static void copyTree(Path from, Path to) throws IOException {
        try (var files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(f, target);
                }
            }
        }
    }

    @Test
    void aProcessKilledAfterMergesOfACleanlyOpenedLogReopensWithTheSameSegmentsAndRecords() throws Exception {
        Path data = dir.resolve("data");
        Map<Long, Sent> sent = new HashMap<>();
        try (Kafko k = Kafko.open(data)) {
            k.createTopic("state", TopicConfig.builder().compact().segmentBytes(TopicConfig.MIN_SEGMENT_BYTES)
                    .compression(Compression.LZ4).build());
            fill(k.producer("state"), sent, 0, 300, 6, 10);
        }
        List<PartitionInfo> infos = new ArrayList<>();
        try (Kafko k = Kafko.open(data)) {
            Topic t = k.topic("state").orElseThrow();
            // a clean open, then compactions that merge, no append: killed here
            t.compact();
            t.compact();
            infos.add(t.partition(0));
            copyTree(data, dir.resolve("killed-0"));
            fill(k.producer("state"), sent, 300, 5, 6, 10);
            infos.add(t.partition(0));
            copyTree(data, dir.resolve("killed-1"));
            t.compact();
            t.compact();
            infos.add(t.partition(0));
            copyTree(data, dir.resolve("killed-2"));
            assertThat(descriptorsOfDeletedFiles(data)).as("files the merges deleted, still open").isEmpty();
        }
        infos.add(null);
        for (int i = 0; i < 4; i++) {
            Path image = i < 3 ? dir.resolve("killed-" + i) : data;
            PartitionInfo before = i < 3 ? infos.get(i) : infos.get(2);
            Map<Long, Sent> expected = new HashMap<>(sent);
            expected.keySet().removeIf(o -> o >= before.endOffset());
            for (int open = 0; open < 2; open++) {
                try (Kafko k = Kafko.open(image)) {
                    PartitionInfo info = k.topic("state").orElseThrow().partition(0);
                    assertThat(info.state()).isEqualTo(PartitionState.RUNNING);
                    assertThat(info.endOffset()).as(image + " end").isEqualTo(before.endOffset());
                    assertThat(info.segmentCount()).as(image + " segments").isEqualTo(before.segmentCount());
                    assertThat(info.sizeBytes()).as(image + " bytes").isEqualTo(before.sizeBytes());
                    assertWhole(k, "state", 0, expected, image + " open " + open);
                }
            }
        }
    }
}
