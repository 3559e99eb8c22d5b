package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.BrokerBridge;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
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
        assertThat(durable).contains("force g.offsets", "fsyncDirectory groups");

        Path data = dir.resolve("throwaway-group");
        List<String> throwaway = firstCommitSyncs(data, KafkoOptions.builder().fsyncMetadata(false).build());
        assertThat(throwaway).noneMatch(s -> s.contains("offsets") || s.endsWith(" groups") || s.endsWith(" orders"));
        try (Kafko reopened = Kafko.open(data)) {
            assertThat(reopened.groupConsumer("orders", "g").position(0)).as("the commit survived the close")
                    .isEqualTo(1);
        }
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
