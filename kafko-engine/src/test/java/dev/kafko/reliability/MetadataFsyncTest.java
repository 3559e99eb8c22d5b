package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.BrokerBridge;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link KafkoOptions#fsyncMetadata()}: which fsyncs creating a topic performs. */
class MetadataFsyncTest {

    @TempDir
    Path dir;

    @Test
    void creatingATopicForcesItsConfigAndDirectoryEntriesByDefault() {
        List<String> synced = createTopicAndRecordSyncs(dir.resolve("durable"), KafkoOptions.DEFAULTS);

        assertThat(synced).contains("force topic.conf.tmp", "fsyncDirectory orders", "fsyncDirectory durable");
    }

    @Test
    void withoutMetadataFsyncCreatingATopicForcesNoConfigAndNoDirectoryYetTheTopicReopens() {
        Path data = dir.resolve("throwaway");
        List<String> synced = createTopicAndRecordSyncs(data, KafkoOptions.builder().fsyncMetadata(false).build());

        assertThat(synced).noneMatch(s -> s.contains("topic.conf") || s.endsWith(" orders") || s.endsWith(" throwaway"));
        try (Kafko reopened = Kafko.open(data)) {
            assertThat(reopened.topic("orders")).hasValueSatisfying(t -> assertThat(t.partitionCount()).isEqualTo(2));
            assertThat(reopened.consumer("orders").poll(java.time.Duration.ofSeconds(5))).extracting(
                    r -> new String(r.value(), StandardCharsets.UTF_8)).containsExactly("kept");
        }
    }

    @Test
    void theFirstCommitOfAGroupForcesItsNewOffsetsFileOnlyWithMetadataFsync() {
        List<String> durable = firstCommitSyncs(dir.resolve("durable-group"), KafkoOptions.DEFAULTS);
        // the new file, the group's new directory and the new groups directory are all made durable
        assertThat(durable).contains("force offsets", "fsyncDirectory g", "fsyncDirectory groups", "fsyncDirectory orders");

        Path data = dir.resolve("throwaway-group");
        List<String> throwaway = firstCommitSyncs(data, KafkoOptions.builder().fsyncMetadata(false).build());
        assertThat(throwaway).noneMatch(s -> s.contains("offsets") || s.endsWith(" g") || s.endsWith(" groups")
                || s.endsWith(" orders"));
        try (Kafko reopened = Kafko.open(data)) {
            assertThat(reopened.groupConsumer("orders", "g").position(0)).as("the commit survived the close")
                    .isEqualTo(1);
        }
    }

    @Test
    void withoutMetadataFsyncARollForcesNothingUnderNeverAndCloseForcesTheRolledSegments() {
        Path data = dir.resolve("throwaway-rolls");
        KafkoOptions options = KafkoOptions.builder().fsyncMetadata(false).build();
        List<List<String>> rolls = rollSyncs(data, options, FsyncPolicy.NEVER);
        assertThat(rolls.get(0)).as("fsyncs while rolling 3 segments").isEmpty();
        assertThat(rolls.get(1)).as("fsyncs at close").contains("force 00000000000000000000.log");
        try (Kafko reopened = Kafko.open(data)) {
            assertThat(reopened.topic("orders").orElseThrow().partition(0).endOffset()).isEqualTo(ROLL_RECORDS);
        }
    }

    @Test
    void aRollForcesTheRolledSegmentWithMetadataFsyncOrUnderAPolicyThatForces() {
        List<String> durable = rollSyncs(dir.resolve("durable-rolls"), KafkoOptions.DEFAULTS, FsyncPolicy.NEVER, true)
                .get(0);
        assertThat(durable).contains("force 00000000000000000000.log");
        List<String> interval = rollSyncs(dir.resolve("interval-rolls"),
                KafkoOptions.builder().fsyncMetadata(false).build(), FsyncPolicy.interval(Duration.ofHours(1)), true)
                .get(0);
        assertThat(interval).contains("force 00000000000000000000.log");
    }

    private static final int ROLL_RECORDS = 1_000;

    private static List<List<String>> rollSyncs(Path data, KafkoOptions options, FsyncPolicy policy) {
        return rollSyncs(data, options, policy, false);
    }

    /**
     * Sends {@link #ROLL_RECORDS} records of 250 bytes into one partition of 64 KiB segments (three rolls
     * at least); returns the fsyncs while sending, then those of the close. With {@code awaitFirstSeal}, the
     * first is taken once the first segment's background seal forced it (or after 10 s): the seal runs on the
     * preparer's thread and may still be on its way when the last send returns.
     */
    private static List<List<String>> rollSyncs(Path data, KafkoOptions options, FsyncPolicy policy,
                                                boolean awaitFirstSeal) {
        List<String> synced = new CopyOnWriteArrayList<>();
        List<String> whileSending;
        try (Kafko kafko = BrokerBridge.open(data, options, recording(synced))) {
            kafko.createTopic("orders", TopicConfig.builder().partitions(1).segmentBytes(64 * 1024).fsync(policy).build());
            Producer producer = kafko.producer("orders");
            synced.clear();
            for (int i = 0; i < ROLL_RECORDS; i++) {
                producer.sendTo(0, null, new byte[250]).join();
            }
            assertThat(kafko.topic("orders").orElseThrow().partition(0).segmentCount()).isGreaterThanOrEqualTo(4);
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (awaitFirstSeal && !synced.contains("force 00000000000000000000.log") && System.nanoTime() < deadline) {
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
            whileSending = List.copyOf(synced);
            synced.clear();
        }
        return List.of(whileSending.stream().filter(s -> !s.startsWith("fsyncDirectory")).toList(), List.copyOf(synced));
    }

    /** Creates topic "orders", sends and consumes one record in group "g"; returns the syncs of its first commit. */
    private static List<String> firstCommitSyncs(Path data, KafkoOptions options) {
        List<String> synced = new CopyOnWriteArrayList<>();
        HookedFileIo io = recording(synced);
        try (Kafko kafko = BrokerBridge.open(data, options, io)) {
            kafko.createTopic("orders", TopicConfig.builder().partitions(1).build());
            kafko.producer("orders").sendTo(0, null, "kept".getBytes(StandardCharsets.UTF_8)).join();
            try (dev.kafko.Consumer c = kafko.groupConsumer("orders", "g")) {
                assertThat(c.poll(java.time.Duration.ofSeconds(5))).hasSize(1);
                synced.clear();
                c.commit();
                return List.copyOf(synced);
            }
        }
    }

    /** Creates topic "orders" (2 partitions), sends one record, closes; returns the syncs after the open. */
    private static List<String> createTopicAndRecordSyncs(Path data, KafkoOptions options) {
        List<String> synced = new CopyOnWriteArrayList<>();
        HookedFileIo io = recording(synced);
        try (Kafko kafko = BrokerBridge.open(data, options, io)) {
            synced.clear();
            kafko.createTopic("orders", TopicConfig.builder().partitions(2).build());
            kafko.producer("orders").sendTo(0, null, "kept".getBytes(StandardCharsets.UTF_8)).join();
            return List.copyOf(synced);
        }
    }

    /** A file seam that notes every fsync of a file or directory into {@code synced}. */
    private static HookedFileIo recording(List<String> synced) {
        return new HookedFileIo(new HookedFileIo.Hooks() {
            @Override
            public void beforeForce(Path path) {
                synced.add("force " + path.getFileName());
            }

            @Override
            public void afterFsyncDirectory(Path d) {
                synced.add("fsyncDirectory " + d.getFileName());
            }
        });
    }
}
