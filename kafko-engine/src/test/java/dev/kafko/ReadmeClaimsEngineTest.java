package dev.kafko;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.internal.log.CapturedWarnings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Claims of the README's "Plain Java: the engine", "Limits" and "On disk" sections read as a contract: the defaults
 * and limits it names by value, the refusals it names by type, and the file layout it draws.
 */
class ReadmeClaimsEngineTest {

    /**
     * "linger (1 ms)", "maxQueuedBytes (8 MiB)", "maxBlock (60 s)", "retentionCheckInterval (1 minute)", "Records are
     * kept forever by default", "indexIntervalBytes, 4 KiB", the properties table's topic defaults and the durability
     * table's "NEVER (default)"; a durable close and fsynced metadata unless turned off.
     */
    @Test
    void theDefaultsTheReadmeNames() {
        KafkoOptions options = KafkoOptions.DEFAULTS;
        assertThat(options.linger()).isEqualTo(Duration.ofMillis(1));
        assertThat(options.maxQueuedBytes()).isEqualTo(8L * 1024 * 1024);
        assertThat(options.maxBlock()).isEqualTo(Duration.ofSeconds(60));
        assertThat(options.retentionCheckInterval()).isEqualTo(Duration.ofMinutes(1));
        assertThat(options.offsetReset()).isEqualTo(OffsetResetPolicy.EARLIEST);
        assertThat(options.maxPollRecords()).isEqualTo(500);
        assertThat(options.durableClose()).isTrue();
        assertThat(options.fsyncMetadata()).isTrue();
        assertThat(KafkoOptions.builder().build()).isEqualTo(options);

        TopicConfig topic = TopicConfig.DEFAULTS;
        assertThat(topic.partitions()).isEqualTo(1);
        assertThat(topic.compression()).isEqualTo(Compression.NONE);
        assertThat(topic.segmentBytes()).isEqualTo(1L << 30);
        assertThat(topic.segmentAge()).isEqualTo(Duration.ofDays(7));
        assertThat(topic.retention()).isNull();
        assertThat(topic.retentionBytes()).isEqualTo(-1);
        assertThat(topic.fsync()).isEqualTo(FsyncPolicy.NEVER);
        assertThat(topic.maxRecordBytes()).isEqualTo(1 << 20);
        assertThat(topic.indexIntervalBytes()).isEqualTo(4096);
        assertThat(options.topicDefaults()).isEqualTo(topic);
    }

    /**
     * "Limits": "segmentBytes is at most 2 GiB minus one byte (2,147,483,647)", "Records are at most 64 MiB", "the
     * smallest maxRecordBytes is 8", and the properties table's "partitions of a new topic, 1 to 10,000": each bound
     * is taken, one past it refused with an {@link InvalidConfigException}.
     */
    @Test
    void theConfigBoundsTheReadmeNames() {
        assertThat(TopicConfig.builder().segmentBytes(2_147_483_647L).build().segmentBytes()).isEqualTo(2_147_483_647L);
        assertThatThrownBy(() -> TopicConfig.builder().segmentBytes(2_147_483_648L).build())
                .isInstanceOf(InvalidConfigException.class).hasMessageContaining("2147483648");
        assertThat(TopicConfig.builder().maxRecordBytes(64 << 20).build().maxRecordBytes()).isEqualTo(64 << 20);
        assertThatThrownBy(() -> TopicConfig.builder().maxRecordBytes((64 << 20) + 1).build())
                .isInstanceOf(InvalidConfigException.class);
        assertThat(TopicConfig.builder().maxRecordBytes(8).build().maxRecordBytes()).isEqualTo(8);
        assertThatThrownBy(() -> TopicConfig.builder().maxRecordBytes(7).build())
                .isInstanceOf(InvalidConfigException.class);
        assertThat(TopicConfig.builder().partitions(10_000).build().partitions()).isEqualTo(10_000);
        for (int partitions : new int[] {0, 10_001}) {
            assertThatThrownBy(() -> TopicConfig.builder().partitions(partitions).build())
                    .isInstanceOf(InvalidConfigException.class)
                    .hasMessage("partitions must be between 1 and 10000, was " + partitions);
        }
    }

    /**
     * "Limits" names both bounds of {@code segmentBytes} and of {@code indexIntervalBytes}, as the values the config
     * takes: the smallest segment and the index interval's range were only in the code, so a config one past them was
     * refused by a rule the README did not state.
     */
    @Test
    void theLimitsSectionStatesTheSmallestSegmentAndTheIndexIntervalRange() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"), UTF_8);
        int start = readme.indexOf("\n## Limits\n");
        assertThat(start).as("the README's Limits section").isNotNegative();
        String limits = readme.substring(start, readme.indexOf("\n## ", start + 1)).replaceAll("\\s+", " ");
        assertThat(limits).contains("`segmentBytes` is at most 2 GiB minus one byte (2,147,483,647) and at least 1 KiB"
                + " (1,024)").contains("`indexIntervalBytes` is from 64 bytes to 16 MiB");
        assertThat(TopicConfig.MIN_SEGMENT_BYTES).isEqualTo(1024);
        assertThatThrownBy(() -> TopicConfig.builder().segmentBytes(1023).build())
                .isInstanceOf(InvalidConfigException.class).hasMessageContaining("segmentBytes");
        assertThat(TopicConfig.builder().indexIntervalBytes(64).build().indexIntervalBytes()).isEqualTo(64);
        assertThat(TopicConfig.builder().indexIntervalBytes(16 << 20).build().indexIntervalBytes()).isEqualTo(16 << 20);
        for (int interval : new int[] {63, (16 << 20) + 1}) {
            assertThatThrownBy(() -> TopicConfig.builder().indexIntervalBytes(interval).build())
                    .isInstanceOf(InvalidConfigException.class).hasMessageContaining("indexIntervalBytes");
        }
    }

    /**
     * "Names of topics and groups follow Kafka's topic rule: 1 to 249 characters of [A-Za-z0-9._-], not . or ..
     * (InvalidNameException names the rule)", a group id such as "order service" included, and ".lock" is no topic's.
     */
    @Test
    void theNamingRuleTheReadmeStates(@TempDir Path dir) {
        try (Kafko kafko = Kafko.open(dir)) {
            kafko.createTopic("a".repeat(249));
            for (String bad : List.of("a".repeat(250), ".", "..", "", "orders!")) {
                assertThatThrownBy(() -> kafko.createTopic(bad)).as("'%s'", bad)
                        .isInstanceOf(InvalidNameException.class)
                        .hasMessageContaining("1 to 249 characters from [A-Za-z0-9._-] and is not '.' or '..'");
            }
            assertThatThrownBy(() -> kafko.createTopic(".lock")).isInstanceOf(InvalidNameException.class);
            kafko.createTopic("orders");
            for (String group : List.of("order service", "app:orders", "ü", ".")) {
                assertThatThrownBy(() -> kafko.groupConsumer("orders", group)).as("group '%s'", group)
                        .isInstanceOf(InvalidNameException.class).hasMessageContaining("group name");
            }
            // "a topic whose name equals an existing one's once . and _ count as one character is refused"
            kafko.createTopic("a.b");
            assertThatThrownBy(() -> kafko.createTopic("a_b")).isInstanceOf(InvalidNameException.class)
                    .hasMessageContaining("a.b");
        }
    }

    /**
     * "A record over the topic's maxRecordBytes is refused with a RecordTooLargeException thrown by the call (in a
     * batch, naming the record's index; nothing of the batch is written)", and "1 MiB: 1,048,566 bytes ... for a
     * record without key or headers".
     */
    @Test
    void aTooLargeRecordIsRefusedByTheCallAtTheSizeTheReadmeGives(@TempDir Path dir) {
        try (Kafko kafko = Kafko.open(dir)) {
            kafko.createTopic("big");
            Producer producer = kafko.producer("big");
            assertThat(producer.send(null, new byte[1_048_566]).join().offset()).isZero();
            assertThatThrownBy(() -> producer.send(null, new byte[1_048_567]))
                    .isInstanceOf(RecordTooLargeException.class);
            assertThatThrownBy(() -> producer.sendBatch(List.of(OutgoingRecord.of(null, new byte[1]),
                    OutgoingRecord.of(null, new byte[1_048_567]))))
                    .isInstanceOf(RecordTooLargeException.class).hasMessageContaining("record 1 of the batch");
            assertThat(kafko.topic("big").orElseThrow().partition(0).endOffset()).isEqualTo(1);
        }
    }

    /**
     * "On disk": "Other files and directories in the data directory are logged on open and left alone; creating a
     * topic whose name one of them holds fails with InvalidTopicLayoutException." The open's warning for a directory
     * of the user's advised "delete the directory, or create the topic, which replaces it", which the create refuses.
     */
    @Test
    void strayFilesAndDirectoriesAreLoggedLeftAloneAndBlockTheirName(@TempDir Path dir) throws IOException {
        Files.createDirectories(dir.resolve("mine"));
        Files.writeString(dir.resolve("mine").resolve("notes.txt"), "the user's");
        Files.writeString(dir.resolve("strayfile"), "the user's");
        List<String> warnings;
        try (CapturedWarnings captured = CapturedWarnings.of("dev.kafko.internal.broker.TopicDirectory");
             Kafko kafko = Kafko.open(dir)) {
            assertThat(kafko.topics()).isEmpty();
            for (String name : List.of("mine", "strayfile")) {
                assertThatThrownBy(() -> kafko.createTopic(name)).as(name)
                        .isInstanceOf(InvalidTopicLayoutException.class);
            }
            warnings = captured.lines();
        }
        assertThat(Files.readString(dir.resolve("mine").resolve("notes.txt"))).isEqualTo("the user's");
        assertThat(Files.readString(dir.resolve("strayfile"))).isEqualTo("the user's");
        assertThat(warnings).anySatisfy(m -> assertThat(m).contains("strayfile"))
                .filteredOn(m -> m.contains("mine")).singleElement().satisfies(m -> assertThat(m)
                        .contains("left alone", "refused").doesNotContain("create the topic, which replaces it"));
    }

    /** "On disk": the layout the README draws, after a clean close. */
    @Test
    void theLayoutTheReadmeDraws(@TempDir Path dir) throws IOException {
        try (Kafko kafko = Kafko.open(dir)) {
            kafko.createTopic("orders", TopicConfig.builder().partitions(2).build());
            kafko.producer("orders").sendTo(1, null, "v".getBytes(UTF_8)).join();
            try (Consumer billing = kafko.groupConsumer("orders", "billing")) {
                assertThat(billing.poll(Duration.ofSeconds(5))).hasSize(1);
                billing.commit();
            }
        }
        Set<String> files;
        try (Stream<Path> walk = Files.walk(dir)) {
            files = walk.filter(Files::isRegularFile).map(p -> dir.relativize(p).toString().replace('\\', '/'))
                    .collect(Collectors.toSet());
        }
        String first = "00000000000000000000";
        assertThat(files).containsExactlyInAnyOrder(".lock", "orders/topic.conf", "orders/groups/billing/offsets",
                "orders/0/" + first + ".log", "orders/0/" + first + ".index", "orders/0/" + first + ".timeindex",
                "orders/0/.clean",
                "orders/1/" + first + ".log", "orders/1/" + first + ".index", "orders/1/" + first + ".timeindex",
                "orders/1/.clean");
    }

    /**
     * "Plain Java: the engine": the dependencies it shows are the engine's and its codecs', in the versions the build
     * uses (a user of the engine alone otherwise had to guess the codecs' coordinates: lz4-java's old {@code org.lz4}
     * group is not the one the engine is built with).
     */
    @Test
    void theDependenciesThePlainJavaSectionShows() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"), UTF_8);
        int start = readme.indexOf("\n## Plain Java: the engine\n");
        assertThat(start).as("the README's plain Java section").isNotNegative();
        String section = readme.substring(start, readme.indexOf("\n## ", start + 1));
        Matcher m = Pattern.compile("<groupId>([^<]+)</groupId>\\s*<artifactId>([^<]+)</artifactId>\\s*"
                + "<version>([^<]+)</version>").matcher(section);
        List<String> shown = new ArrayList<>();
        while (m.find()) {
            shown.add(m.group(1) + ":" + m.group(2) + ":" + m.group(3));
        }
        String pom = Files.readString(Path.of("..", "pom.xml"), UTF_8);
        String version = tag(pom, "<artifactId>kafko-parent</artifactId>\\s*<version>([^<]+)</version>");
        assertThat(shown).containsExactly("dev.kafko:kafko-engine:" + version,
                "at.yawk.lz4:lz4-java:" + tag(pom, "<lz4-java.version>([^<]+)</lz4-java.version>"),
                "com.github.luben:zstd-jni:" + tag(pom, "<zstd-jni.version>([^<]+)</zstd-jni.version>"));
    }

    /**
     * "Deleting a topic": its producers', consumers' and {@code Topic}'s calls fail with {@code UnknownTopicException},
     * while the {@code Topic} handle still tells its name, config and partition count, and {@code partitions()} the last
     * state of each partition, {@code CLOSED} (the README said every handle failed, which a caller reading a deleted
     * topic's partitions found otherwise).
     */
    @Test
    void aDeletedTopicsHandlesFailButItsTopicStillDescribesIt(@TempDir Path dir) {
        try (Kafko kafko = Kafko.open(dir)) {
            Topic topic = kafko.createTopic("orders", TopicConfig.builder().partitions(2).build());
            Producer producer = kafko.producer("orders");
            producer.sendTo(1, null, "v".getBytes(UTF_8)).join();
            try (Consumer consumer = kafko.consumer("orders")) {
                kafko.deleteTopic("orders");

                assertThatThrownBy(() -> producer.send(null, "v".getBytes(UTF_8)))
                        .isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(producer::partitionCount).isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(() -> consumer.poll(Duration.ZERO)).isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(() -> consumer.position(0)).isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(() -> topic.increasePartitions(3)).isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(() -> topic.alterConfig(topic.config())).isInstanceOf(UnknownTopicException.class);

                assertThat(topic.name()).isEqualTo("orders");
                assertThat(topic.partitionCount()).isEqualTo(2);
                assertThat(topic.config().partitions()).isEqualTo(2);
                assertThat(topic.partitions()).extracting(PartitionInfo::state)
                        .containsExactly(PartitionState.CLOSED, PartitionState.CLOSED);
                assertThat(topic.partition(1).endOffset()).isEqualTo(1);
            }
        }
    }

    private static String tag(String pom, String regex) {
        Matcher m = Pattern.compile(regex).matcher(pom);
        assertThat(m.find()).as("%s in the root pom", regex).isTrue();
        return m.group(1);
    }
}
