package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.TopicConfig;
import dev.kafko.UnknownTopicException;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.log.CapturedWarnings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A group's offsets as the instance opens ({@code moveCommitsPastTheEnd}: only a commit past its partition's end is
 * moved, and an offsets file of the older layout is moved into place first) and on first use (a file of the older
 * layout found then is moved too); and the group's locks, released by the calls that take them, so that a member on
 * another thread goes on.
 */
class GroupCoordinatorOffsetsTest {

    @TempDir
    Path dir;

    private Kafko open() {
        return Kafko.open(dir, KafkoOptions.builder().fsyncMetadata(false).build());
    }

    private Path topicDir() {
        return dir.resolve("t");
    }

    private static void commit(Path file, long offset) {
        try (GroupOffsetsFile f = GroupOffsetsFile.open(FileIo.SYSTEM, file, "test", false)) {
            f.commit(0, offset, false);
        }
    }

    private static Consumer member(Kafko k) {
        Consumer member = k.groupConsumer("t", "g");
        member.poll(Duration.ZERO);
        return member;
    }

    @Test
    void aCommitAtThePartitionsEndIsLeftAsItIs() throws Exception {
        try (Kafko k = open()) {
            k.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.NEVER).build());
            assertThat(((TopicImpl) k.topic("t").orElseThrow()).dir).isEqualTo(topicDir());
            member(k).commit(Map.of(0, 0L));
        }
        Path file = FileNames.groupOffsetsFile(topicDir(), "g");
        long size = Files.size(file);
        try (CapturedWarnings warnings = CapturedWarnings.of(GroupCoordinator.class); Kafko k = open()) {
            assertThat(k.groupInfo("t", "g").committed()).isEqualTo(Map.of(0, 0L));
            assertThat(warnings.lines()).isEmpty();
        }
        assertThat(Files.size(file)).as("nothing written").isEqualTo(size);
    }

    @Test
    void aCommitPastThePartitionsEndIsMovedToIt() throws Exception {
        try (Kafko k = open()) {
            k.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.NEVER).build());
            member(k).commit(Map.of(0, 0L));
        }
        commit(FileNames.groupOffsetsFile(topicDir(), "g"), 5);
        try (CapturedWarnings warnings = CapturedWarnings.of(GroupCoordinator.class); Kafko k = open()) {
            assertThat(k.groupInfo("t", "g").committed()).isEqualTo(Map.of(0, 0L));
            assertThat(warnings.lines()).singleElement().asString()
                    .contains("committed offset 5 is past the log's end 0");
        }
    }

    /** The older layout's file is moved as the instance opens, and a commit in it past the end moved to the end. */
    @Test
    void anOffsetsFileOfTheOlderLayoutIsMovedAsTheInstanceOpens() {
        try (Kafko k = open()) {
            k.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.NEVER).build());
        }
        Path legacy = FileNames.legacyGroupOffsetsFile(topicDir(), "g");
        commit(legacy, 5);
        try (CapturedWarnings warnings = CapturedWarnings.of(GroupCoordinator.class); Kafko k = open()) {
            assertThat(legacy).doesNotExist();
            assertThat(FileNames.groupOffsetsFile(topicDir(), "g")).exists();
            assertThat(warnings.lines()).singleElement().asString()
                    .contains("committed offset 5 is past the log's end 0");
            assertThat(k.groupInfo("t", "g").committed()).isEqualTo(Map.of(0, 0L));
        }
    }

    /**
     * A file of the older layout that appears while the instance runs (copied in) is moved
     * at the group's first use.
     */
    @Test
    void anOffsetsFileOfTheOlderLayoutIsMovedAtTheGroupsFirstUse() {
        try (Kafko k = open()) {
            k.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.NEVER).build());
            Path legacy = FileNames.legacyGroupOffsetsFile(topicDir(), "g");
            commit(legacy, 0);
            assertThat(k.groupInfo("t", "g").committed()).isEqualTo(Map.of(0, 0L));
            assertThat(legacy).doesNotExist();
        }
    }

    /**
     * The close of a deleted topic's group lets its commit lock go: a commit racing in on another thread is
     * refused.
     */
    @Test
    void aCommitOnAnotherThreadAfterTheDeleteIsRefusedNotHeld() throws Exception {
        try (Kafko k = open()) {
            k.createTopic("t");
            member(k).commit(Map.of(0, 0L));
            GroupCoordinator group = ((TopicImpl) k.topic("t").orElseThrow()).group("g");
            k.deleteTopic("t");
            String outcome = CompletableFuture.supplyAsync(() -> {
                try {
                    group.commit(Map.of(0, 0L));
                    return "committed";
                } catch (UnknownTopicException e) {
                    return "refused";
                }
            }).get(10, TimeUnit.SECONDS);
            assertThat(outcome).isEqualTo("refused");
        }
    }

    /**
     * {@code groupInfo} counts the members under the membership lock and lets it go: a member on another thread
     * joins.
     */
    @Test
    void aMemberOnAnotherThreadJoinsAfterAGroupInfo() throws Exception {
        try (Kafko k = open()) {
            k.createTopic("t");
            assertThat(k.groupInfo("t", "g").members()).isZero();
            int members = CompletableFuture.supplyAsync(() -> {
                try (Consumer c = member(k)) {
                    return k.groupInfo("t", "g").members();
                }
            }).get(10, TimeUnit.SECONDS);
            assertThat(members).isEqualTo(1);
        }
    }

    /** A partition increase is a change the members react to: the member without a partition takes the new one. */
    @Test
    void aPartitionIncreaseHandsTheNewPartitionToTheMemberWithout() throws Exception {
        try (Kafko k = open()) {
            k.createTopic("t", TopicConfig.builder().partitions(1).build());
            Consumer a = member(k);
            Consumer b = member(k);
            a.poll(Duration.ZERO);
            assertThat(a.assignment()).containsExactly(0);
            assertThat(b.assignment()).isEmpty();
            k.topic("t").orElseThrow().increasePartitions(2);
            b.poll(Duration.ZERO);
            a.poll(Duration.ZERO);
            assertThat(b.assignment()).containsExactly(1);
            assertThat(a.assignment()).containsExactly(0);
            // the increase let the membership lock go: a member on another thread joins
            int members = CompletableFuture.supplyAsync(() -> {
                try (Consumer c = member(k)) {
                    return k.groupInfo("t", "g").members();
                }
            }).get(10, TimeUnit.SECONDS);
            assertThat(members).isEqualTo(3);
        }
    }
}
