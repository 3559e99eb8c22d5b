package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.InvalidTopicLayoutException;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoStorageException;
import dev.kafko.PartitionInfo;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.DelegatingFileChannel;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.io.WrappingFileIo;
import dev.kafko.internal.log.CapturedWarnings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The edges of {@link TopicDirectory}: what an open skips and says, what it refuses, what a create replaces. */
class TopicDirectoryEdgesTest {

    @TempDir
    Path tmp;

    @Test
    void everyStrayEntryIsSkippedWithAWarningThatSaysWhyAndTheLockFileIsNoStray() throws Exception {
        Path dir = tmp.resolve("data");
        try (Kafko k = open(dir)) {
            k.createTopic("t");
            k.producer("t").send(null, new byte[] {1}).join();
            k.createTopic("withdata");
            k.producer("withdata").send(null, new byte[] {1}).join();
        }
        Files.delete(dir.resolve("withdata").resolve(FileNames.TOPIC_CONFIG_FILE));
        Files.writeString(dir.resolve("notes.txt"), "hands off");
        Files.createDirectories(dir.resolve("lost+found"));
        Files.createDirectories(dir.resolve("empty"));
        Path users = Files.createDirectories(dir.resolve("users"));
        Files.writeString(users.resolve("photo.jpg"), "x");
        Path halfDeleted = Files.createDirectories(dir.resolve("halfdeleted"));
        Files.writeString(halfDeleted.resolve(FileNames.TOPIC_DELETED_MARKER), "x");
        Files.writeString(halfDeleted.resolve("mine.txt"), "the user's");

        List<String> warnings;
        try (CapturedWarnings captured = CapturedWarnings.of(TopicDirectory.class); Kafko k = open(dir)) {
            assertThat(k.topics()).containsExactly("t");
            warnings = captured.lines();
        }
        assertThat(warnings).hasSize(6);
        assertThat(warnings).anySatisfy(w -> assertThat(w)
                .isEqualTo("ignoring stray file " + dir.resolve("notes.txt") + " in the data directory"));
        assertThat(warnings).anySatisfy(w -> assertThat(w).isEqualTo("ignoring directory " + dir.resolve("lost+found")
                + ": 'lost+found' is not a valid topic name"));
        assertThat(warnings).anySatisfy(w -> assertThat(w).startsWith("ignoring directory " + dir.resolve("empty")
                + ": it has no " + FileNames.TOPIC_CONFIG_FILE + " and holds no data"));
        assertThat(warnings).anySatisfy(w -> assertThat(w).startsWith("ignoring directory " + users
                + ": it has no " + FileNames.TOPIC_CONFIG_FILE + " and is not a topic directory kafko left behind"));
        assertThat(warnings).anySatisfy(w -> assertThat(w).startsWith("ignoring directory " + halfDeleted
                + ": a delete of its topic was interrupted, and the directory holds files kafko never writes there"));
        assertThat(warnings).anySatisfy(w -> assertThat(w).startsWith("ignoring directory " + dir.resolve("withdata")
                + ": it holds data (" + FileNames.partitionDir(dir.resolve("withdata"), 0)
                        .resolve(FileNames.offsetName(0) + FileNames.LOG_SUFFIX)));
        assertThat(warnings).noneMatch(w -> w.contains(FileNames.LOCK_FILE));
        // nothing of the user's was touched
        assertThat(dir.resolve("notes.txt")).exists();
        assertThat(users.resolve("photo.jpg")).exists();
        assertThat(halfDeleted.resolve("mine.txt")).exists();
        assertThat(dir.resolve("withdata")).exists();
    }

    @Test
    void anInterruptedDeleteOfKafkosFilesOnlyIsFinishedWithoutAWarning() throws Exception {
        Path dir = tmp.resolve("data");
        try (Kafko k = open(dir)) {
            k.createTopic("gone", TopicConfig.builder().partitions(2).build());
            k.producer("gone").send(null, new byte[] {1}).join();
        }
        Path topicDir = dir.resolve("gone");
        Files.move(topicDir.resolve(FileNames.TOPIC_CONFIG_FILE), topicDir.resolve(FileNames.TOPIC_DELETED_MARKER));
        try (CapturedWarnings captured = CapturedWarnings.of(TopicDirectory.class); Kafko k = open(dir)) {
            assertThat(k.topics()).isEmpty();
            assertThat(captured.lines()).isEmpty();
        }
        assertThat(topicDir).doesNotExist();
    }

    @Test
    void aConfigThatNamesAPartitionWithoutItsDirectoryFailsTheOpenNamingTopicAndPartition() throws Exception {
        Path dir = tmp.resolve("data");
        try (Kafko k = open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(3).build());
        }
        Path moved = tmp.resolve("p2");
        Files.move(FileNames.partitionDir(dir.resolve("t"), 2), moved);
        assertThatThrownBy(() -> open(dir))
                .isInstanceOf(InvalidTopicLayoutException.class)
                .satisfies(e -> assertThat(((InvalidTopicLayoutException) e).topic()).isEqualTo("t"))
                .hasMessageContaining(dir.resolve("t") + " lacks the directory of partition 2 (its config names 3"
                        + " partitions)");
        // the failed open let the directory go
        Files.move(moved, FileNames.partitionDir(dir.resolve("t"), 2));
        try (Kafko k = open(dir)) {
            assertThat(k.topics()).containsExactly("t");
        }
    }

    @Test
    void aPartitionDirectoryThatWasEmptiedIsReportedAndStartsAgainEmpty() throws Exception {
        Path dir = tmp.resolve("data");
        try (Kafko k = open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            k.producer("t").sendTo(1, null, new byte[] {1}).join();
        }
        Path p1 = FileNames.partitionDir(dir.resolve("t"), 1);
        try (Stream<Path> files = Files.list(p1)) {
            for (Path f : files.toList()) {
                Files.delete(f);
            }
        }
        try (CapturedWarnings captured = CapturedWarnings.of(TopicDirectory.class); Kafko k = open(dir)) {
            assertThat(captured.lines()).containsExactly("topic 't' partition 1: " + p1 + " holds no segment file;"
                    + " the partition starts again, empty, at offset 0 (any records it held are lost)");
            PartitionInfo info = k.topic("t").orElseThrow().partitions().get(1);
            assertThat(info.endOffset()).isZero();
        }
    }

    @Test
    void aCreateRefusesADirectoryWithAConfigAndDataThatThisInstanceDidNotOpen() throws Exception {
        Path other = tmp.resolve("other");
        try (Kafko k = open(other)) {
            k.createTopic("t");
            k.producer("t").send(null, new byte[] {1}).join();
        }
        Path dir = tmp.resolve("data");
        try (Kafko k = open(dir)) {
            copyTree(other.resolve("t"), dir.resolve("t"));
            assertThatThrownBy(() -> k.createTopic("t"))
                    .isInstanceOf(InvalidTopicLayoutException.class)
                    .hasMessageContaining(dir.resolve("t") + " holds data (")
                    .hasMessageContaining(") and a " + FileNames.TOPIC_CONFIG_FILE + " this instance did not open");
            assertThat(dir.resolve("t").resolve(FileNames.TOPIC_CONFIG_FILE)).exists();
        }
        try (Kafko k = open(dir)) {
            assertThat(k.topic("t").orElseThrow().partitions().get(0).endOffset()).isEqualTo(1);
        }
    }

    @Test
    void aCreateReplacesADeletedTopicsDirectoryEvenWithItsRecordsAndGroups() throws Exception {
        Path other = tmp.resolve("other");
        try (Kafko k = open(other)) {
            k.createTopic("t");
            k.producer("t").send(null, new byte[] {1}).join();
            try (var g = k.groupConsumer("t", "g")) {
                assertThat(g.poll(Duration.ofSeconds(10))).hasSize(1);
                g.commit();
            }
        }
        Path dir = tmp.resolve("data");
        try (Kafko k = open(dir)) {
            copyTree(other.resolve("t"), dir.resolve("t"));
            Files.move(dir.resolve("t").resolve(FileNames.TOPIC_CONFIG_FILE),
                    dir.resolve("t").resolve(FileNames.TOPIC_DELETED_MARKER));
            try (CapturedWarnings captured = CapturedWarnings.of(TopicDirectory.class)) {
                k.createTopic("t", TopicConfig.builder().partitions(2).build());
                assertThat(captured.lines()).containsExactly("removing " + dir.toRealPath().resolve("t")
                        + ", left over from an interrupted create or delete");
            }
            assertThat(k.topic("t").orElseThrow().partitions()).extracting(PartitionInfo::endOffset)
                    .containsExactly(0L, 0L);
            assertThat(k.groups("t")).isEmpty();
            assertThat(dir.resolve("t").resolve(FileNames.TOPIC_DELETED_MARKER)).doesNotExist();
        }
    }

    @Test
    void groupsOfTheOlderLayoutAreFoundAndFilesWithInvalidGroupNamesAreNot() throws Exception {
        Path topicDir = Files.createDirectories(tmp.resolve("t"));
        Path groups = Files.createDirectories(topicDir.resolve(FileNames.GROUPS_DIR));
        Files.writeString(groups.resolve("old" + FileNames.OFFSETS_SUFFIX), "x");
        Files.writeString(groups.resolve("bad name" + FileNames.OFFSETS_SUFFIX), "x");
        Files.createDirectories(groups.resolve("new")).resolve(FileNames.OFFSETS_FILE).toFile().createNewFile();
        Files.createDirectories(groups.resolve("bad name2")).resolve(FileNames.OFFSETS_FILE).toFile().createNewFile();
        Files.createDirectories(groups.resolve("nooffsets"));
        Files.createDirectories(groups.resolve("dir" + FileNames.OFFSETS_SUFFIX));
        assertThat(TopicDirectory.groupsOnDisk(topicDir)).containsExactly("new", "old");
        assertThat(TopicDirectory.groupsOnDisk(tmp.resolve("none"))).isEmpty();
    }

    @Test
    void anInterruptedDeleteIsFinishedOnlyWhenEveryEntryAtEveryDepthIsKafkos() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("data"));
        String seg = FileNames.offsetName(0);
        // kafko's: removed by the open
        Path b1 = deleted(dir, "b1");
        Path p = Files.createDirectories(b1.resolve("0000000000"));
        for (String f : List.of(seg + FileNames.LOG_SUFFIX + FileNames.DELETED_SUFFIX, FileNames.CLEAN_SHUTDOWN_FILE,
                seg + FileNames.INDEX_SUFFIX + FileNames.TMP_SUFFIX, seg + FileNames.TIME_INDEX_SUFFIX)) {
            Files.writeString(p.resolve(f), "x");
        }
        Path b2 = deleted(dir, "b2");
        Path groups = Files.createDirectories(b2.resolve(FileNames.GROUPS_DIR));
        Files.writeString(Files.createDirectories(groups.resolve("g")).resolve(FileNames.OFFSETS_FILE), "x");
        Files.writeString(groups.resolve("g").resolve(FileNames.OFFSETS_FILE + FileNames.TMP_SUFFIX), "x");
        Files.writeString(groups.resolve("old" + FileNames.OFFSETS_SUFFIX), "x");
        Files.writeString(groups.resolve("old2" + FileNames.OFFSETS_SUFFIX + FileNames.TMP_SUFFIX), "x");
        Path b3 = deleted(dir, "b3");
        Files.writeString(b3.resolve(FileNames.TOPIC_CONFIG_FILE + FileNames.TMP_SUFFIX), "x");
        // the user's somewhere: left alone
        List<Path> kept = List.of(
                file(deleted(dir, "a1").resolve("0"), "notes.txt"),
                Files.createDirectories(deleted(dir, "a2").resolve("0").resolve("sub")),
                file(deleted(dir, "a3").resolve("0"), "123" + FileNames.LOG_SUFFIX),
                file(deleted(dir, "a4").resolve("0"), seg + ".txt"),
                file(deleted(dir, "a5").resolve("00000000000"), seg + FileNames.LOG_SUFFIX),
                file(deleted(dir, "a6").resolve("part"), seg + FileNames.LOG_SUFFIX),
                file(deleted(dir, "a7").resolve(FileNames.GROUPS_DIR).resolve("g"), "notes.txt"),
                file(deleted(dir, "a8").resolve(FileNames.GROUPS_DIR), "notes.txt"),
                Files.createDirectories(deleted(dir, "a9").resolve(FileNames.TOPIC_CONFIG_FILE + FileNames.TMP_SUFFIX)),
                Files.createDirectories(deleted(dir, "a10").resolve(FileNames.GROUPS_DIR).resolve("g")
                        .resolve(FileNames.OFFSETS_FILE)),
                Files.createSymbolicLink(Files.createDirectories(deleted(dir, "a11").resolve(FileNames.GROUPS_DIR))
                        .resolve("old" + FileNames.OFFSETS_SUFFIX), file(tmp, "offsets-elsewhere")));
        Path target = deleted(tmp, "target");
        Files.createSymbolicLink(dir.resolve("link"), target);

        List<String> lines;
        try (CapturedWarnings logged = CapturedWarnings.everyLevelOf(TopicDirectory.class); Kafko k = open(dir)) {
            assertThat(k.topics()).isEmpty();
            lines = logged.lines();
        }
        assertThat(b1).doesNotExist();
        assertThat(b2).doesNotExist();
        assertThat(b3).doesNotExist();
        for (String t : List.of("b1", "b2", "b3")) {
            assertThat(lines).contains("INFO finished the interrupted delete of topic '" + t + "': removed "
                    + dir.resolve(t));
        }
        assertThat(kept).allSatisfy(k -> assertThat(k).existsNoFollowLinks());
        assertThat(dir.resolve("link")).isSymbolicLink();
        assertThat(target.resolve(FileNames.TOPIC_DELETED_MARKER)).exists();
        for (int i = 1; i <= 11; i++) {
            assertThat(lines).contains("WARNING ignoring directory " + dir.resolve("a" + i) + ": a delete of its topic"
                    + " was interrupted, and the directory holds files kafko never writes there (so it was not"
                    + " removed); move them away and reopen, or remove the directory");
        }
    }

    @Test
    void aCreateThatCannotCommitItsConfigLeavesNoDirectoryWhateverFailed() throws Exception {
        Path dir = tmp.resolve("data");
        // 0: the config's rename fails (IOException), 1: the data directory's fsync (RuntimeException), 2: the
        // config's rename (Error), 3: the data directory's fsync (IOException)
        Throwable[] failures = {new IOException("injected: disk full"), null, new Error("injected: error")};
        int[] next = {-1};
        AtomicInteger open = new AtomicInteger();
        FileIo io = new WrappingFileIo((path, options, real) -> DelegatingFileChannel.countedOpen(real, open)) {
            @Override
            public void atomicMove(Path source, Path target) throws IOException {
                boolean config = target.getFileName().toString().equals(FileNames.TOPIC_CONFIG_FILE);
                if ((next[0] == 0 || next[0] == 2) && config) {
                    Throwable t = failures[next[0]];
                    if (t instanceof IOException e) {
                        throw e;
                    }
                    if (t instanceof RuntimeException e) {
                        throw e;
                    }
                    throw (Error) t;
                }
                super.atomicMove(source, target);
            }

            @Override
            public void fsyncDirectory(Path d) throws IOException {
                if (next[0] == 1 && d.equals(dir.toRealPath())) {
                    throw new IllegalStateException("injected: broken");
                }
                if (next[0] == 3 && d.equals(dir.toRealPath())) {
                    throw new IOException("injected: fsync of the data directory");
                }
                super.fsyncDirectory(d);
            }
        };
        try (Kafko k = Broker.open(dir, KafkoOptions.DEFAULTS, io)) {
            Path topicDir = dir.toRealPath().resolve("t");
            int openBefore = open.get(); // the lock file's
            next[0] = 0;
            assertThatThrownBy(() -> k.createTopic("t", TopicConfig.builder().partitions(2).build()))
                    .isInstanceOf(KafkoStorageException.class)
                    .hasMessageContaining("injected: disk full");
            assertThat(topicDir).doesNotExist();
            assertThat(open).as("channels the failed create left open").hasValue(openBefore);
            next[0] = 1;
            assertThatThrownBy(() -> k.createTopic("t", TopicConfig.builder().partitions(2).build()))
                    .isInstanceOf(KafkoStorageException.class)
                    .hasMessageContaining("create topic 't' failed on " + topicDir)
                    .hasCauseInstanceOf(IllegalStateException.class);
            assertThat(topicDir).doesNotExist();
            assertThat(open).as("channels the failed create left open").hasValue(openBefore);
            next[0] = 2;
            assertThatThrownBy(() -> k.createTopic("t", TopicConfig.builder().partitions(2).build()))
                    .isInstanceOf(Error.class).hasMessage("injected: error");
            assertThat(topicDir).doesNotExist();
            assertThat(open).as("channels the failed create left open").hasValue(openBefore);
            next[0] = 3;
            assertThatThrownBy(() -> k.createTopic("t", TopicConfig.builder().partitions(2).build()))
                    .isInstanceOf(KafkoStorageException.class)
                    .hasMessageContaining("cannot create topic 't' in " + topicDir)
                    .hasMessageContaining("injected: fsync of the data directory");
            assertThat(topicDir).doesNotExist();
            assertThat(open).as("channels the failed create left open").hasValue(openBefore);
            assertThat(k.topics()).isEmpty();
            next[0] = -1;
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            k.producer("t").send(null, new byte[] {1}).join();
        }
        try (Kafko k = open(dir)) {
            assertThat(k.topic("t").orElseThrow().partitions()).hasSize(2);
        }
    }

    /** A directory {@code name} below {@code parent} that an interrupted delete left: its config renamed. */
    private static Path deleted(Path parent, String name) throws IOException {
        Path d = Files.createDirectories(parent.resolve(name));
        Files.writeString(d.resolve(FileNames.TOPIC_DELETED_MARKER), "x");
        return d;
    }

    /** A file {@code name} in {@code dir}, created with its parents. */
    private static Path file(Path dir, String name) throws IOException {
        return Files.writeString(Files.createDirectories(dir).resolve(name), "x");
    }

    private static Kafko open(Path dir) {
        return Broker.open(dir, KafkoOptions.DEFAULTS, FileIo.SYSTEM);
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : all.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }
}
