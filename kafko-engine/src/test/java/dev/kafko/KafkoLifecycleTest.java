package dev.kafko;

import static dev.kafko.Fixtures.bytes;
import static dev.kafko.Fixtures.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.internal.io.FileNames;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkoLifecycleTest {

    @TempDir
    Path dir;

    @Test
    void openCreatesTheDirectoryAndASecondOpenFailsNamingIt() throws Exception {
        Path data = dir.resolve("a/b/data");
        try (Kafko k = Kafko.open(data)) {
            assertThat(Files.isDirectory(data)).isTrue();
            assertThat(k.dataDir()).isEqualTo(data.toRealPath());
            assertThatThrownBy(() -> Kafko.open(data)).isInstanceOf(AlreadyOpenException.class)
                    .hasMessageContaining(data.toRealPath().toString());
            // the same directory through another spelling is the same directory
            assertThatThrownBy(() -> Kafko.open(data.resolve("../data"))).isInstanceOf(AlreadyOpenException.class);
        }
        Kafko.open(data).close();
    }

    @Test
    void aDeletedTopicIsToldToTheObserverAndIsGoneForNewHandles() {
        List<String> deleted = new java.util.concurrent.CopyOnWriteArrayList<>();
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onTopicDeleted(String topic) {
                deleted.add(topic);
            }
        };
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(observer).build())) {
            k.createTopic("t");
            Producer old = k.producer("t");
            k.deleteTopic("t");
            assertThat(deleted).containsExactly("t");
            assertThat(k.topic("t")).isEmpty();
            assertThatThrownBy(() -> old.send(null, bytes("x"))).isInstanceOf(UnknownTopicException.class);
            k.createTopic("t", TopicConfig.builder().partitions(5).build());
            assertThatThrownBy(old::partitionCount).as("not the new topic's count").isInstanceOf(UnknownTopicException.class);
            assertThatThrownBy(() -> old.partitionFor(bytes("k"))).isInstanceOf(UnknownTopicException.class);
            assertThat(k.producer("t").partitionCount()).isEqualTo(5);
            k.deleteTopic("t");
            deleted.remove("t");
            assertThatThrownBy(() -> k.groupConsumer("t", "g")).isInstanceOf(UnknownTopicException.class);
            assertThatThrownBy(() -> k.deleteTopic("t")).isInstanceOf(UnknownTopicException.class);
            assertThat(deleted).as("told once").hasSize(1);
        }
    }

    @Test
    void observerIsToldOfEachCreatedTopicOnceItCanBeFoundNotOfTopicsAnOpenFinds() {
        List<String> created = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        Kafko[] instance = new Kafko[1];
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onTopicCreated(String topic) {
                created.add(topic);
                seen.add(topic + (instance[0].topics().contains(topic) ? " found" : " missing"));
                if (topic.equals("throws")) {
                    throw new IllegalStateException("observer failure");
                }
            }
        };
        KafkoOptions options = KafkoOptions.builder().observer(observer).build();
        try (Kafko k = Kafko.open(dir, options)) {
            instance[0] = k;
            k.createTopic("a");
            k.createTopic("b", TopicConfig.builder().partitions(3).build());
            assertThatThrownBy(() -> k.createTopic("a")).isInstanceOf(TopicExistsException.class);
            assertThatThrownBy(() -> k.createTopic("bad/name")).isInstanceOf(InvalidNameException.class);
            assertThat(k.createTopic("throws").name()).as("an observer's failure is not the creation's").isEqualTo("throws");
            k.deleteTopic("a");
            k.createTopic("a");
            assertThat(created).containsExactly("a", "b", "throws", "a");
            assertThat(seen).containsOnly("a found", "b found", "throws found");
        }
        created.clear();
        try (Kafko k = Kafko.open(dir, options)) {
            instance[0] = k;
            assertThat(k.topics()).containsExactly("a", "b", "throws");
            assertThat(created).as("topics found at open are not created").isEmpty();
        }
    }

    @Test
    void closeIsIdempotentAndEverythingAfterItFailsWithKafkoClosed() {
        Kafko k = Kafko.open(dir);
        k.createTopic("t");
        Producer p = k.producer("t");
        Consumer c = k.consumer("t");
        k.close();
        k.close();
        assertThatThrownBy(() -> k.createTopic("u")).isInstanceOf(KafkoClosedException.class);
        assertThatThrownBy(() -> k.producer("t")).isInstanceOf(KafkoClosedException.class);
        assertThatThrownBy(k::topics).isInstanceOf(KafkoClosedException.class);
        assertThatThrownBy(() -> p.send(null, bytes("x"))).isInstanceOf(KafkoClosedException.class);
        assertThatThrownBy(() -> c.poll(Duration.ZERO)).isInstanceOf(KafkoClosedException.class);
        c.close();
    }

    @Test
    void reopenDiscoversTopicsWithTheirConfigs() {
        TopicConfig orders = TopicConfig.builder().partitions(3).segmentBytes(64 * 1024)
                .retention(Duration.ofHours(5)).fsync(FsyncPolicy.interval(Duration.ofMillis(20))).maxRecordBytes(4096)
                .build();
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("orders", orders);
            k.createTopic("audit");
        }
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topics()).containsExactly("audit", "orders");
            assertThat(k.topic("orders").orElseThrow().config()).isEqualTo(orders);
            assertThat(k.topic("audit").orElseThrow().config()).isEqualTo(TopicConfig.DEFAULTS);
            assertThat(k.topic("nope")).isEmpty();
        }
    }

    @Test
    void multiPartitionTopicKeepsEveryRecordAcrossReopen() {
        List<RecordPosition> sent = new ArrayList<>();
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(4).build());
            Producer p = k.producer("t");
            for (int i = 0; i < 400; i++) {
                sent.add(p.send(bytes("k" + i), bytes("v" + i)).join());
            }
        }
        try (Kafko k = Kafko.open(dir); Consumer c = k.consumer("t")) {
            List<KafkoRecord> got = Fixtures.pollUntil(c, 400);
            assertThat(got).hasSize(400);
            for (KafkoRecord r : got) {
                int i = Integer.parseInt(text(r.key()).substring(1));
                assertThat(new RecordPosition(r.partition(), r.offset())).isEqualTo(sent.get(i));
                assertThat(text(r.value())).isEqualTo("v" + i);
            }
            long total = k.topic("t").orElseThrow().partitions().stream().mapToLong(PartitionInfo::endOffset).sum();
            assertThat(total).isEqualTo(400);
        }
    }

    @Test
    void deletedTopicFailsItsClientsAndCanBeRecreatedEmpty() {
        try (Kafko k = Kafko.open(dir)) {
            Topic created = k.createTopic("t", TopicConfig.builder().partitions(2).build());
            assertThat(k.topic("t")).containsSame(created);
            Producer p = k.producer("t");
            Consumer c = k.consumer("t");
            p.send(bytes("a"), bytes("1")).join();
            k.deleteTopic("t");
            assertThat(k.topics()).doesNotContain("t");
            assertThat(Files.exists(dir.resolve("t"))).isFalse();
            assertThatThrownBy(() -> p.send(bytes("a"), bytes("2"))).isInstanceOf(UnknownTopicException.class);
            assertThatThrownBy(() -> c.poll(Duration.ZERO)).isInstanceOf(UnknownTopicException.class);
            assertThatThrownBy(() -> k.producer("t")).isInstanceOf(UnknownTopicException.class);
            assertThatThrownBy(() -> k.deleteTopic("t")).isInstanceOf(UnknownTopicException.class);

            k.createTopic("t");
            assertThat(k.topic("t").orElseThrow()).as("the topic created again has a handle of its own")
                    .isNotSameAs(created).isSameAs(k.topic("t").orElseThrow());
            assertThat(k.topic("t").orElseThrow().partitionCount()).isEqualTo(1);
            assertThat(k.producer("t").send(null, bytes("fresh")).join().offset()).isZero();
        }
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topic("t").orElseThrow().partition(0).endOffset()).isEqualTo(1);
        }
    }

    @Test
    void existingNameIsRefused() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            assertThatThrownBy(() -> k.createTopic("t")).isInstanceOf(TopicExistsException.class).hasMessageContaining("'t'");
        }
    }

    @Test
    void invalidNamesAreRefusedBeforeAnyFileIsTouched() throws Exception {
        Path data = dir.resolve("data");
        try (Kafko k = Kafko.open(data)) {
            for (String bad : new String[] {"../x", "a/b", "a\u0000b", ".", "..", "", "x".repeat(250), "../../etc"}) {
                assertThatThrownBy(() -> k.createTopic(bad)).as(bad).isInstanceOf(InvalidNameException.class)
                        .hasMessageContaining("[A-Za-z0-9._-]");
                assertThatThrownBy(() -> k.deleteTopic(bad)).isInstanceOf(InvalidNameException.class);
            }
            k.createTopic("t");
            for (String bad : new String[] {"../g", "g/h", "", ".."}) {
                assertThatThrownBy(() -> k.groupConsumer("t", bad)).isInstanceOf(InvalidNameException.class);
            }
            assertThat(k.createTopic("x".repeat(249)).name()).hasSize(249);
            for (String bad : new String[] {"", "..", "a/b", "x".repeat(250)}) {
                assertThatThrownBy(() -> k.producer(bad)).as(bad).isInstanceOf(InvalidNameException.class);
                assertThatThrownBy(() -> k.consumer(bad)).as(bad).isInstanceOf(InvalidNameException.class);
                assertThatThrownBy(() -> k.groupConsumer(bad, "g")).as(bad).isInstanceOf(InvalidNameException.class);
                assertThatThrownBy(() -> k.topic(bad)).as(bad).isInstanceOf(InvalidNameException.class);
                assertThatThrownBy(() -> k.groups(bad)).as(bad).isInstanceOf(InvalidNameException.class);
            }
        }
        try (var files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString())).containsExactly("data");
        }
        try (var files = Files.list(data)) {
            assertThat(files.map(f -> f.getFileName().toString()))
                    .containsExactlyInAnyOrder(FileNames.LOCK_FILE, "t", "x".repeat(249));
        }
    }

    @Test
    void nullArgumentsAreRefusedNamingTheArgumentAndLeaveNothingBehind() {
        assertThatThrownBy(() -> Kafko.open(null)).isInstanceOf(NullPointerException.class).hasMessage("dataDir");
        assertThatThrownBy(() -> Kafko.open(dir, null)).isInstanceOf(NullPointerException.class).hasMessage("options");
        try (Kafko k = Kafko.open(dir)) {
            assertThatThrownBy(() -> k.createTopic("t", null)).isInstanceOf(NullPointerException.class).hasMessage("config");
            assertThat(k.topics()).isEmpty();
            k.createTopic("t");
            for (ThrowingCallable call : List.<ThrowingCallable>of(() -> k.producer(null), () -> k.consumer(null),
                    () -> k.groupConsumer(null, "g"), () -> k.groups(null), () -> k.groupInfo(null, "g"))) {
                assertThatThrownBy(call).isInstanceOf(NullPointerException.class).hasMessage("topic");
            }
            for (ThrowingCallable call : List.<ThrowingCallable>of(() -> k.createTopic(null), () -> k.topic(null),
                    () -> k.deleteTopic(null), () -> k.createTopic(null, TopicConfig.builder().build()))) {
                assertThatThrownBy(call).isInstanceOf(NullPointerException.class).hasMessage("name");
            }
            for (ThrowingCallable call : List.<ThrowingCallable>of(() -> k.groupConsumer("t", null),
                    () -> k.groupInfo("t", null), () -> Kafko.checkName("group", null))) {
                assertThatThrownBy(call).isInstanceOf(NullPointerException.class).hasMessage("group");
            }
            // the same rule, without an instance or a directory
            Kafko.checkName("topic", "orders.DLT");
            assertThatThrownBy(() -> Kafko.checkName("topic", "bad!")).isInstanceOf(InvalidNameException.class)
                    .hasMessageContaining("topic name 'bad!' is invalid");
            assertThatThrownBy(() -> Kafko.checkName("group", "..")).isInstanceOf(InvalidNameException.class);
            assertThatThrownBy(() -> k.consumer("t", null)).isInstanceOf(NullPointerException.class)
                    .hasMessage("consumerOptions");
            Producer p = k.producer("t");
            assertThatThrownBy(() -> p.send((OutgoingRecord) null)).isInstanceOf(NullPointerException.class).hasMessage("record");
            assertThatThrownBy(() -> p.sendTo(0, (OutgoingRecord) null)).isInstanceOf(NullPointerException.class)
                    .hasMessage("record");
            assertThatThrownBy(() -> p.sendBatch(null)).isInstanceOf(NullPointerException.class).hasMessage("records");
            List<OutgoingRecord> withNull = new ArrayList<>(List.of(OutgoingRecord.of(null, bytes("a"))));
            withNull.add(null);
            assertThatThrownBy(() -> p.sendBatch(withNull)).isInstanceOf(NullPointerException.class)
                    .hasMessage("records[1] is null");
            assertThatThrownBy(() -> p.sendBatchTo(0, withNull)).isInstanceOf(NullPointerException.class)
                    .hasMessage("records[1] is null");
            try (Consumer c = k.groupConsumer("t", "g")) {
                assertThatThrownBy(() -> c.poll(null)).isInstanceOf(NullPointerException.class).hasMessage("timeout");
                assertThatThrownBy(() -> c.poll(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("negative");
                assertThatThrownBy(() -> c.seekToTimestamp(-1)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("negative timestamp -1");
                assertThatThrownBy(() -> c.commit(null)).isInstanceOf(NullPointerException.class).hasMessage("offsets");
            }
            // nothing was written by any refused call
            assertThat(k.topic("t").orElseThrow().partition(0).endOffset()).isZero();
        }
    }

    @Test
    void strayFilesAndDirectoriesAreIgnoredOnOpen() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("real");
        }
        Files.writeString(dir.resolve("notes.txt"), "hello");
        Files.createDirectories(dir.resolve("half-created").resolve("0"));
        Files.createDirectories(dir.resolve("not a topic"));
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topics()).containsExactly("real");
            // a leftover without topic.conf does not block creating that topic
            k.createTopic("half-created");
            assertThat(k.topics()).containsExactly("half-created", "real");
        }
    }

    @Test
    void filesNamedAlmostLikeKafkosInAPartitionAreTheUsersNeitherReadNorDeleted() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            k.producer("t").send(null, new byte[] {1}).join();
        }
        Path partition = dir.resolve("t").resolve("0");
        String arabic = "\u0660".repeat(18) + "\u0664\u0662"; // Character.isDigit takes them for digits
        List<Path> foreign = List.of(partition.resolve(arabic + ".index"), partition.resolve(arabic + ".timeindex"),
                partition.resolve("99999999999999999999.log"), partition.resolve("99999999999999999999.index"));
        for (Path f : foreign) {
            Files.writeString(f, "the user's");
        }
        for (int round = 0; round < 2; round++) {
            try (Kafko k = Kafko.open(dir)) {
                assertThat(k.topic("t").orElseThrow().partition(0).endOffset()).isEqualTo(1);
            }
            for (Path f : foreign) {
                assertThat(f).hasContent("the user's");
            }
        }
        // a directory that lost its topic.conf and holds such a file is not taken for kafko's leftovers
        Path orphan = Files.createDirectories(dir.resolve("orphan").resolve("0"));
        Files.writeString(orphan.resolve(arabic + ".log"), "the user's");
        try (Kafko k = Kafko.open(dir)) {
            assertThatThrownBy(() -> k.createTopic("orphan")).isInstanceOf(InvalidTopicLayoutException.class);
        }
        assertThat(orphan.resolve(arabic + ".log")).hasContent("the user's");
    }

    @Test
    void aTopicDirectoryThatCannotBeSearchedFailsTheOpenNamingItInsteadOfBeingLeftOut() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
        }
        // root reads through any permission, so the directory that cannot be searched is played by a config
        // path that cannot be resolved (a symbolic link to itself): either way, whether it exists cannot be told
        Path config = dir.resolve("t").resolve("topic.conf");
        Files.move(config, dir.resolve("t.conf.saved"));
        Files.createSymbolicLink(config, config.getFileName());
        assertThatThrownBy(() -> Kafko.open(dir)).isInstanceOf(KafkoStorageException.class)
                .hasMessageContaining("cannot read topic directory " + dir.resolve("t"));
        Files.delete(config);
        Files.move(dir.resolve("t.conf.saved"), config);
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topics()).containsExactly("t");
        }
    }

    @Test
    void creatingATopicNeverDeletesAFileOrDirectoryOfTheUsersOfThatName() throws Exception {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("notes"), "hello");
        Files.createDirectories(dir.resolve("backup"));
        Files.writeString(dir.resolve("backup").resolve("dump.sql"), "select 1");
        try (Kafko k = Kafko.open(dir)) {
            assertThatThrownBy(() -> k.createTopic("notes")).isInstanceOf(InvalidTopicLayoutException.class)
                    .hasMessageContaining("'notes'").hasMessageContaining("move it away");
            assertThatThrownBy(() -> k.createTopic("backup")).isInstanceOf(InvalidTopicLayoutException.class)
                    .hasMessageContaining("'backup'");
            assertThat(k.topics()).isEmpty();
            k.createTopic("t");
        }
        assertThat(dir.resolve("notes")).hasContent("hello");
        assertThat(dir.resolve("backup").resolve("dump.sql")).hasContent("select 1");
    }

    @Test
    void aLeftoverIsRemovedOnlyWhenEveryFileInItIsOneKafkoWritesThere() throws Exception {
        // what an interrupted delete leaves: the renamed config (its commit point); a partition with a
        // segment, its indexes, a deleted segment and the clean marker; a group with its offsets and the
        // offsets' temporary copy; the config's temporary copy
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("gone", TopicConfig.builder().partitions(2).build());
            k.producer("gone").send(null, new byte[] {1}).join();
            try (Consumer c = k.groupConsumer("gone", "g")) {
                assertThat(c.poll(Duration.ofSeconds(5))).hasSize(1);
                c.commit();
            }
        }
        Path gone = dir.resolve("gone");
        Files.move(gone.resolve(FileNames.TOPIC_CONFIG_FILE), gone.resolve(FileNames.TOPIC_DELETED_MARKER));
        Files.writeString(gone.resolve(FileNames.TOPIC_CONFIG_FILE + ".tmp"), "");
        Files.writeString(gone.resolve("0").resolve("00000000000000000007.log.deleted"), "");
        Files.writeString(gone.resolve("groups").resolve("g").resolve("offsets.tmp"), "");
        Files.writeString(gone.resolve("groups").resolve("old.offsets"), "");
        // the user's: names kafko uses, holding what kafko never writes there
        Files.createDirectories(dir.resolve("reports"));
        Files.writeString(dir.resolve("reports").resolve("2024"), "the user's report");
        Files.createDirectories(dir.resolve("photos").resolve("2023"));
        Files.writeString(dir.resolve("photos").resolve("2023").resolve("img.jpg"), "jpeg");
        Files.createDirectories(dir.resolve("backup").resolve("groups"));
        Files.writeString(dir.resolve("backup").resolve("groups").resolve("q1.xlsx"), "sheet");
        Files.createDirectories(dir.resolve("ledger").resolve("groups").resolve("team"));
        Files.writeString(dir.resolve("ledger").resolve("groups").resolve("team").resolve("minutes"), "notes");
        Files.createDirectories(dir.resolve("archive").resolve("0"));
        Files.writeString(dir.resolve("archive").resolve("0").resolve("00000000000000000000.log.bak"), "copy");
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topics()).isEmpty();
            k.createTopic("gone");
            assertThat(k.topic("gone").orElseThrow().partitions()).hasSize(1);
            assertThat(gone.resolve("groups")).doesNotExist();
            assertThat(gone.resolve("1")).doesNotExist();
            for (String user : List.of("reports", "photos", "backup", "ledger", "archive")) {
                assertThatThrownBy(() -> k.createTopic(user)).as(user).isInstanceOf(InvalidTopicLayoutException.class)
                        .hasMessageContaining("'" + user + "'").hasMessageContaining("move it away");
            }
            assertThat(k.topics()).containsExactly("gone");
        }
        assertThat(dir.resolve("reports").resolve("2024")).hasContent("the user's report");
        assertThat(dir.resolve("photos").resolve("2023").resolve("img.jpg")).hasContent("jpeg");
        assertThat(dir.resolve("backup").resolve("groups").resolve("q1.xlsx")).hasContent("sheet");
        assertThat(dir.resolve("ledger").resolve("groups").resolve("team").resolve("minutes")).hasContent("notes");
        assertThat(dir.resolve("archive").resolve("0").resolve("00000000000000000000.log.bak")).hasContent("copy");
    }

    @Test
    void theLockFilesNameIsNoTopicName() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            assertThatThrownBy(() -> k.createTopic(FileNames.LOCK_FILE)).isInstanceOf(InvalidNameException.class)
                    .hasMessageContaining("reserved").hasMessageContaining("lock file");
            assertThatThrownBy(() -> k.producer(FileNames.LOCK_FILE)).isInstanceOf(InvalidNameException.class);
            assertThat(dir.resolve(FileNames.LOCK_FILE)).isRegularFile();
            // other names that start with a dot are topics like any other
            k.createTopic(".locks");
        }
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topics()).containsExactly(".locks");
        }
    }

    @Test
    void damagedTopicConfigFailsOpenNamingTheTopicAndReleasesTheLock() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("orders");
        }
        Path conf = dir.resolve("orders").resolve(FileNames.TOPIC_CONFIG_FILE);
        byte[] b = Files.readAllBytes(conf);
        b[b.length - 1] ^= 0x7f;
        Files.write(conf, b);
        assertThatThrownBy(() -> Kafko.open(dir)).isInstanceOfSatisfying(InvalidTopicLayoutException.class, e -> {
            assertThat(e.topic()).isEqualTo("orders");
            assertThat(e.detail()).contains(conf.toString()).doesNotContain("topic 'orders'");
            assertThat(e.getMessage()).isEqualTo("topic 'orders': " + e.detail());
        });
        Files.delete(conf);
        Kafko.open(dir).close();
    }

    @Test
    void missingPartitionDirectoryIsALayoutError() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
        }
        try (var files = Files.walk(dir.resolve("t").resolve("1"))) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
        assertThatThrownBy(() -> Kafko.open(dir)).isInstanceOf(InvalidTopicLayoutException.class)
                .hasMessageContaining("'t'").hasMessageContaining("partition 1");
    }

    @Test
    void aCloseOfManyPartitionsClosesThemOnSeveralThreadsAndLeavesNoneRunning() {
        try (Kafko k = Kafko.open(dir)) {
            for (int t = 0; t < 8; t++) {
                k.createTopic("t" + t, TopicConfig.builder().partitions(32).build());
                Producer p = k.producer("t" + t);
                for (int q = 0; q < 32; q++) {
                    p.sendTo(q, null, bytes("r" + t + "-" + q));
                }
            }
            k.groupConsumer("t0", "g").close();
        }
        assertThat(Thread.getAllStackTraces().keySet()).extracting(Thread::getName)
                .noneMatch(name -> name.startsWith("kafko-close-"));
        try (Kafko k = Kafko.open(dir)) {
            for (int t = 0; t < 8; t++) {
                for (dev.kafko.PartitionInfo info : k.topic("t" + t).orElseThrow().partitions()) {
                    assertThat(info.endOffset()).as(info.topic() + "-" + info.partition()).isEqualTo(1);
                }
            }
        }
    }

    @Test
    void partitionsGrowNeverShrinkAndTheCountSurvivesReopen() {
        try (Kafko k = Kafko.open(dir)) {
            Topic t = k.createTopic("t", TopicConfig.builder().partitions(2).build());
            t.increasePartitions(5);
            assertThat(t.partitionCount()).isEqualTo(5);
            assertThat(t.config().partitions()).isEqualTo(5);
            assertThatThrownBy(() -> t.increasePartitions(3)).isInstanceOf(InvalidPartitionException.class);
            assertThatThrownBy(() -> t.increasePartitions(TopicConfig.MAX_PARTITIONS + 1))
                    .isInstanceOf(InvalidPartitionException.class).hasMessageContaining("at most 10000");
            assertThat(t.partitionCount()).isEqualTo(5);
            assertThat(k.producer("t").sendTo(4, null, bytes("x")).join()).isEqualTo(new RecordPosition(4, 0));
        }
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topic("t").orElseThrow().partitionCount()).isEqualTo(5);
            assertThat(k.topic("t").orElseThrow().partition(4).endOffset()).isEqualTo(1);
        }
    }

    @Test
    void partitionInfoReportsOffsetsSizeAndState() {
        Topic t;
        try (Kafko k = Kafko.open(dir)) {
            t = k.createTopic("t");
            for (int i = 0; i < 10; i++) {
                k.producer("t").send(null, bytes("v" + i)).join();
            }
            PartitionInfo info = t.partition(0);
            assertThat(info.topic()).isEqualTo("t");
            assertThat(info.logStartOffset()).isZero();
            assertThat(info.endOffset()).isEqualTo(10);
            assertThat(info.sizeBytes()).isPositive();
            assertThat(info.segmentCount()).isEqualTo(1);
            assertThat(info.state()).isEqualTo(PartitionState.RUNNING);
            assertThat(info.failure()).isNull();
            assertThatThrownBy(() -> t.partition(1)).isInstanceOf(InvalidPartitionException.class);
        }
        assertThat(t.partition(0).state()).isEqualTo(PartitionState.CLOSED);
        assertThat(t.partition(0).endOffset()).isEqualTo(10);
    }

    @Test
    void retentionRunsAtOpenNotOnlyAfterTheFirstInterval() throws Exception {
        KafkoOptions hourly = KafkoOptions.builder().retentionCheckInterval(Duration.ofHours(1)).build();
        TopicConfig small = TopicConfig.builder().segmentBytes(1024).retentionBytes(2048).build();
        try (Kafko k = Kafko.open(dir, hourly)) {
            k.createTopic("t", small);
            Producer p = k.producer("t");
            for (int i = 0; i < 100; i++) {
                p.send(null, new byte[100]).join();
            }
            assertThat(k.topic("t").orElseThrow().partition(0).logStartOffset()).as("no check within the hour").isZero();
        }
        try (Kafko k = Kafko.open(dir, hourly)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            PartitionInfo info = k.topic("t").orElseThrow().partition(0);
            // a few segments a run, the runs one after another
            while (info.sizeBytes() > 2048 + 1024 && System.nanoTime() < deadline) {
                Thread.sleep(10);
                info = k.topic("t").orElseThrow().partition(0);
            }
            assertThat(info.logStartOffset()).as("trimmed at open").isPositive();
            assertThat(info.sizeBytes()).isLessThanOrEqualTo(2048 + 1024);
        }
    }

    @Test
    void closeUnderLoadKeepsEveryAcknowledgedRecordAndLeavesNoThread() throws Exception {
        KafkoOptions opts = KafkoOptions.builder().retentionCheckInterval(Duration.ofMillis(20))
                .topicDefaults(TopicConfig.builder().partitions(3).fsync(FsyncPolicy.interval(Duration.ofMillis(5)))
                        .retention(Duration.ofDays(1)).build())
                .build();
        Kafko k = Kafko.open(dir, opts);
        k.createTopic("t");
        Producer p = k.producer("t");
        AtomicBoolean stop = new AtomicBoolean();
        List<List<CompletableFuture<RecordPosition>>> perThread = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        // each sender counts down once a send of its own was acknowledged: the close comes after that, so
        // there are acknowledged records to find (a fixed sleep left none when the senders started late)
        CountDownLatch acknowledged = new CountDownLatch(4);
        for (int i = 0; i < 4; i++) {
            List<CompletableFuture<RecordPosition>> mine = new ArrayList<>();
            perThread.add(mine);
            int id = i;
            Thread th = new Thread(() -> {
                for (int n = 0; !stop.get(); n++) {
                    try {
                        CompletableFuture<RecordPosition> f = p.send(bytes(id + "-" + n), bytes("v"));
                        mine.add(f);
                        if (n == 9) {
                            f.join();
                            acknowledged.countDown();
                        }
                    } catch (KafkoClosedException e) {
                        return;
                    }
                }
            });
            th.start();
            threads.add(th);
        }
        assertThat(acknowledged.await(60, TimeUnit.SECONDS)).as("every sender had a send acknowledged").isTrue();
        Thread.sleep(200); // sends, retention runs and interval fsyncs under way when the close comes
        k.close();
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }
        Fixtures.assertNoKafkoThreads();
        List<RecordPosition> acked = new ArrayList<>();
        for (List<CompletableFuture<RecordPosition>> l : perThread) {
            for (CompletableFuture<RecordPosition> f : l) {
                assertThat(f).isDone();
                if (!f.isCompletedExceptionally()) {
                    acked.add(f.join());
                } else {
                    assertThatThrownBy(f::join).hasCauseInstanceOf(KafkoClosedException.class);
                }
            }
        }
        assertThat(acked).isNotEmpty();
        try (Kafko again = Kafko.open(dir, opts)) {
            Topic t = again.topic("t").orElseThrow();
            for (RecordPosition r : acked) {
                assertThat(r.offset()).isLessThan(t.partition(r.partition()).endOffset());
            }
            long total = t.partitions().stream().mapToLong(PartitionInfo::endOffset).sum();
            assertThat(total).isEqualTo(acked.size());
        }
        Fixtures.assertNoKafkoThreads();
    }

    @Test
    void sendsAreRefusedFromTheMomentCloseBeginsEvenWhileItWaitsForTheScheduler() throws Exception {
        java.util.concurrent.CountDownLatch blocking = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger onTheSender = new java.util.concurrent.atomic.AtomicInteger();
        KafkoObserver slowOnTheScheduler = new KafkoObserver() {
            @Override
            public void onFsync(String topic, int partition, long nanos) {
                if (topic.equals("timed") && !Thread.currentThread().getName().equals("kafko-scheduler")) {
                    onTheSender.incrementAndGet(); // the flush came due while the sender still owned the partition
                } else if (Thread.currentThread().getName().equals("kafko-scheduler") && blocking.getCount() > 0) {
                    blocking.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        };
        Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(slowOnTheScheduler).build());
        try {
            k.createTopic("timed", TopicConfig.builder().fsync(FsyncPolicy.interval(Duration.ofMillis(5))).build());
            k.createTopic("other");
            Producer other = k.producer("other");
            other.send(null, bytes("before")).join();
            // the interval fsync of "timed" runs on the scheduler thread, which now waits in the observer; unless
            // the sender still owned the partition when it came due 5 ms later (a pause on a busy machine): the
            // sender ran it, and another send schedules the next one
            boolean blocked = false;
            for (int attempt = 0; attempt < 100 && !blocked; attempt++) {
                int before = onTheSender.get();
                k.producer("timed").send(null, bytes("x")).join();
                // the fsync runs before the observer hears of it: under another process's heavy writeback one
                // took over 10 s here
                long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
                while (!(blocked = blocking.await(10, java.util.concurrent.TimeUnit.MILLISECONDS))
                        && onTheSender.get() == before && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                if (!blocked && onTheSender.get() == before) {
                    break; // no fsync at all
                }
            }
            assertThat(blocked).as("an interval fsync on kafko-scheduler (%d ran on the sender)", onTheSender.get())
                    .isTrue();
            CompletableFuture<Void> closing = Fixtures.onNewThread(k::close);
            Thread.sleep(100); // close() is waiting for the scheduler's task now
            assertThat(closing).isNotDone();
            assertThatThrownBy(() -> other.send(null, bytes("during close")).join())
                    .isInstanceOf(KafkoClosedException.class);
            release.countDown();
            closing.get(60, java.util.concurrent.TimeUnit.SECONDS);
        } finally {
            release.countDown();
            k.close();
        }
        try (Kafko reopened = Kafko.open(dir); Consumer c = reopened.consumer("other")) {
            assertThat(c.poll(Duration.ofSeconds(1))).extracting(r -> text(r.value())).containsExactly("before");
        }
    }

    /**
     * Adding a partition never adopts records the topic did not write: a directory of that number holding
     * records (moved in by hand, or left when its config was rewritten to fewer partitions) is refused, the
     * topic unchanged, where an empty one (what a grow that crashed before writing its config leaves) is used.
     */
    @Test
    void addingAPartitionRefusesADirectoryOfItsNumberThatHoldsRecordsAndUsesAnEmptyOne() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            k.createTopic("foreign");
            k.producer("foreign").send(null, bytes("not t's")).join();
            k.createTopic("empty");
        }
        Files.move(FileNames.partitionDir(dir.resolve("foreign"), 0), FileNames.partitionDir(dir.resolve("t"), 2));
        Files.move(FileNames.partitionDir(dir.resolve("empty"), 0), FileNames.partitionDir(dir.resolve("t"), 3));
        deleteTree(dir.resolve("foreign"));
        deleteTree(dir.resolve("empty"));
        try (Kafko k = Kafko.open(dir)) {
            Topic t = k.topic("t").orElseThrow();
            assertThatThrownBy(() -> t.increasePartitions(3)).isInstanceOf(InvalidTopicLayoutException.class)
                    .hasMessageContaining("already holds records").hasMessageContaining("move that directory away");
            assertThat(t.partitionCount()).isEqualTo(2);
            assertThat(k.producer("t").sendTo(1, null, bytes("still works")).join().offset()).isZero();
        }
        deleteTree(FileNames.partitionDir(dir.resolve("t"), 2));
        Files.move(FileNames.partitionDir(dir.resolve("t"), 3), FileNames.partitionDir(dir.resolve("t"), 2));
        try (Kafko k = Kafko.open(dir)) {
            Topic t = k.topic("t").orElseThrow();
            t.increasePartitions(3);
            assertThat(t.partitionCount()).isEqualTo(3);
            assertThat(k.producer("t").sendTo(2, null, bytes("new")).join().offset()).isZero();
        }
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topic("t").orElseThrow().partitionCount()).isEqualTo(3);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }
}
