package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Consumer;
import dev.kafko.InvalidTopicLayoutException;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.KafkoStorageException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.BrokerBridge;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A topic directory without its {@code topic.conf}: {@code createTopic} removes it only when it is
 * what an interrupted create or delete left, never when it holds the records of a topic whose config
 * was lost.
 */
class LostTopicConfigTest {

    private static final int RECORDS = 80;

    @TempDir
    Path dir;

    @Test
    void createTopicRefusesADirectoryWhoseRecordsLostTheirTopicConfAndDeletesNothing() throws Exception {
        fill("tn", TopicConfig.builder().partitions(2).build());
        Path topicDir = dir.resolve("tn");
        Path config = topicDir.resolve(FileNames.TOPIC_CONFIG_FILE);
        byte[] saved = Files.readAllBytes(config);
        Files.delete(config);
        byte[] segment = Files.readAllBytes(FileNames.segmentFile(FileNames.partitionDir(topicDir, 0), 0));

        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topics()).isEmpty();
            assertThatThrownBy(() -> k.createTopic("tn", TopicConfig.builder().partitions(2).build()))
                    .isInstanceOf(InvalidTopicLayoutException.class)
                    .hasMessageContaining("'tn'")
                    .hasMessageContaining(topicDir.toString())
                    .hasMessageContaining("holds data")
                    .hasMessageContaining(FileNames.offsetName(0) + FileNames.LOG_SUFFIX)
                    .hasMessageContaining("restore " + FileNames.TOPIC_CONFIG_FILE);
            assertThat(k.topics()).isEmpty();
        }
        assertThat(FileNames.segmentFile(FileNames.partitionDir(topicDir, 0), 0)).hasBinaryContent(segment);

        // the records were never touched: with the config restored the topic is back, whole
        Files.write(config, saved);
        try (Kafko k = Kafko.open(dir)) {
            assertThat(readAll(k, "tn")).hasSize(RECORDS);
        }
    }

    @Test
    void committedOffsetsAloneAlsoKeepADirectoryWithoutTopicConf() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("tn");
            try (Consumer c = k.groupConsumer("tn", "g")) {
                c.poll(Duration.ZERO);
                c.commit();
            }
        }
        Files.delete(dir.resolve("tn").resolve(FileNames.TOPIC_CONFIG_FILE));
        try (Kafko k = Kafko.open(dir)) {
            assertThatThrownBy(() -> k.createTopic("tn")).isInstanceOf(InvalidTopicLayoutException.class)
                    .hasMessageContaining("committed offsets of group 'g'");
        }
        assertThat(FileNames.groupOffsetsFile(dir.resolve("tn"), "g")).isRegularFile();
    }

    @Test
    void aDeleteInterruptedAfterItsCommitPointIsFinishedByTheNextOpen() throws Exception {
        fill("tn", TopicConfig.builder().partitions(2).build());
        Path topicDir = dir.resolve("tn");
        HookedFileIo io = new HookedFileIo(new HookedFileIo.Hooks() {
            @Override
            public void afterFsyncDirectory(Path d) throws IOException {
                if (d.equals(topicDir) && Files.exists(d.resolve(FileNames.TOPIC_DELETED_MARKER))) {
                    // the delete stops right after its commit point, as a crash there would stop it
                    throw new IOException("injected crash after the commit point of a delete");
                }
            }
        });
        try (Kafko k = BrokerBridge.open(dir, KafkoOptions.DEFAULTS, io)) {
            assertThatThrownBy(() -> k.deleteTopic("tn")).isInstanceOf(KafkoStorageException.class);
        }
        assertThat(topicDir.resolve(FileNames.TOPIC_DELETED_MARKER)).isRegularFile();
        assertThat(topicDir.resolve(FileNames.TOPIC_CONFIG_FILE)).doesNotExist();
        assertThat(Files.size(FileNames.segmentFile(FileNames.partitionDir(topicDir, 0), 0)))
                .as("the records are still there").isGreaterThan(1000);
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topics()).isEmpty();
            assertThat(topicDir).as("the delete's data is gone with the open").doesNotExist();
            k.createTopic("tn");
            assertThat(k.topic("tn").orElseThrow().partition(0).endOffset()).isZero();
        }
        assertThat(topicDir.resolve(FileNames.TOPIC_DELETED_MARKER)).doesNotExist();
        assertThat(FileNames.partitionDir(topicDir, 1)).doesNotExist();
    }

    @Test
    void anInterruptedDeleteWhoseDirectoryHoldsTheUsersFilesIsLeftAlone() throws Exception {
        fill("tn", TopicConfig.builder().build());
        Path topicDir = dir.resolve("tn");
        Files.move(topicDir.resolve(FileNames.TOPIC_CONFIG_FILE), topicDir.resolve(FileNames.TOPIC_DELETED_MARKER));
        Files.writeString(topicDir.resolve("notes.txt"), "the user's");
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topics()).isEmpty();
        }
        assertThat(topicDir.resolve("notes.txt")).hasContent("the user's");
        assertThat(FileNames.segmentFile(FileNames.partitionDir(topicDir, 0), 0)).isRegularFile();
    }

    @Test
    void whatAnInterruptedCreateLeavesIsStillRemoved() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("tn", TopicConfig.builder().partitions(3).build());
        }
        // a crash before the config (the commit point) was written: empty segments, maybe a temporary config
        Path topicDir = dir.resolve("tn");
        Files.move(topicDir.resolve(FileNames.TOPIC_CONFIG_FILE),
                topicDir.resolve(FileNames.TOPIC_CONFIG_FILE + FileNames.TMP_SUFFIX));
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topics()).isEmpty();
            k.createTopic("tn");
            assertThat(k.topic("tn").orElseThrow().partitions()).hasSize(1);
        }
        assertThat(FileNames.partitionDir(topicDir, 2)).doesNotExist();
    }

    @Test
    void aCompletedDeleteLeavesNoDirectory() throws Exception {
        fill("tn", TopicConfig.DEFAULTS);
        try (Kafko k = Kafko.open(dir)) {
            k.deleteTopic("tn");
        }
        assertThat(dir.resolve("tn")).doesNotExist();
    }

    private void fill(String topic, TopicConfig config) {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic(topic, config);
            for (int i = 0; i < RECORDS; i++) {
                k.producer(topic).sendTo(i % config.partitions(), null, ("v" + i).getBytes(StandardCharsets.UTF_8))
                        .join();
            }
        }
    }

    private static List<KafkoRecord> readAll(Kafko k, String topic) {
        List<KafkoRecord> out = new ArrayList<>();
        try (Consumer c = k.consumer(topic)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (out.size() < RECORDS && System.nanoTime() < deadline) {
                out.addAll(c.poll(Duration.ofMillis(100)));
            }
        }
        return out;
    }
}
