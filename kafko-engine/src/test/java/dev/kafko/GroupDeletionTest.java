package dev.kafko;

import static dev.kafko.Fixtures.fill;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.internal.broker.BrokerBridge;
import dev.kafko.internal.io.FileIo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Kafko#deleteGroup}: Kafka's {@code deleteConsumerGroups} for one topic. What it deletes and reports, what it
 * refuses, and the races with a member joining, a fixed-assignment commit, a topic delete and the instance's close
 * (latch-started, fixed seeds, many rounds): a member or a commit never ends bound to a deleted group.
 */
class GroupDeletionTest {

    private static final long SEED = 181L;

    @TempDir
    Path dir;

    private static Map<Integer, Long> committed(Kafko k, String group) {
        return k.groupInfo("t", group).committed();
    }

    private Path offsetsFile(String group) {
        return dir.resolve("t").resolve("groups").resolve(group).resolve("offsets");
    }

    /** The offsets a reopen of the group's file would find: what is on disk, -1 where none. */
    private long[] onDisk(String group, int partitions) {
        return BrokerBridge.openOffsets(FileIo.SYSTEM, offsetsFile(group), partitions);
    }

    private static KafkoObserver deletions(ConcurrentLinkedQueue<String> events) {
        return new KafkoObserver() {
            @Override
            public void onCommit(String topic, String group) {
                events.add("commit " + topic + "/" + group);
            }

            @Override
            public void onGroupDeleted(String topic, String group) {
                events.add("deleted " + topic + "/" + group);
            }
        };
    }

    @Test
    void aDeletedGroupIsGoneFromDiskAndListingAndItsNameStartsByTheResetPolicy() {
        ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(deletions(events)).build())) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            fill(k, "t", 4);
            try (Consumer c = k.groupConsumer("t", "projection-v1")) {
                assertThat(Fixtures.pollUntil(c, 8)).hasSize(8);
                c.commit();
            }
            try (Consumer c = k.groupConsumer("t", "projection-v2")) {
                c.commit(Map.of()); // nothing: no commit
                c.poll(Duration.ofMillis(10));
                c.commit(Map.of(0, 1L));
            }
            assertThat(k.groups("t")).containsExactly("projection-v1", "projection-v2");
            events.clear();

            assertThat(k.deleteGroup("t", "projection-v1")).isTrue();

            assertThat(events).containsExactly("deleted t/projection-v1");
            assertThat(k.groups("t")).containsExactly("projection-v2");
            assertThat(dir.resolve("t").resolve("groups").resolve("projection-v1")).doesNotExist();
            assertThat(committed(k, "projection-v1")).isEmpty();
            assertThat(k.groupInfo("t", "projection-v1").lag()).isEqualTo(Map.of(0, 4L, 1, 4L));
            assertThat(BrokerBridge.keptGroups(k, "t")).doesNotContain("projection-v1");
            assertThat(committed(k, "projection-v2")).isEqualTo(Map.of(0, 1L)); // the other group untouched
            try (Consumer c = k.groupConsumer("t", "projection-v1")) {
                assertThat(c.position(0)).isZero();
                assertThat(c.position(1)).isZero();
                assertThat(c.committed(0)).isEmpty();
            }
            assertThat(k.deleteGroup("t", "projection-v1")).as("known only in memory now, without commits").isTrue();
            assertThat(k.deleteGroup("t", "projection-v1")).as("once deleted, unknown").isFalse();
            assertThat(events).containsExactly("deleted t/projection-v1", "deleted t/projection-v1");
        }
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.groups("t")).containsExactly("projection-v2");
            assertThat(committed(k, "projection-v1")).isEmpty();
        }
    }

    @Test
    void anUnknownGroupIsNotDeletedAndNothingIsMadeForIt() throws Exception {
        ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(deletions(events)).build())) {
            k.createTopic("t");
            List<Path> before = files(dir.resolve("t"));
            for (int i = 0; i < 100; i++) {
                assertThat(k.deleteGroup("t", "ghost-" + i)).isFalse();
            }
            assertThat(files(dir.resolve("t"))).isEqualTo(before);
            assertThat(BrokerBridge.keptGroups(k, "t")).isEmpty();
            assertThat(k.groups("t")).isEmpty();
            assertThat(events).isEmpty();
        }
    }

    @Test
    void aGroupWithLiveMembersIsRefusedWithNothingChangedThenDeletedOnceTheyClose() {
        ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(deletions(events)).build())) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            fill(k, "t", 3);
            Consumer a = k.groupConsumer("t", "g");
            Consumer b = k.groupConsumer("t", "g");
            a.poll(Duration.ofMillis(10));
            a.commit(Map.of(0, 2L));
            events.clear();

            assertThatThrownBy(() -> k.deleteGroup("t", "g")).isInstanceOfSatisfying(GroupNotEmptyException.class, e -> {
                assertThat(e.topic()).isEqualTo("t");
                assertThat(e.group()).isEqualTo("g");
                assertThat(e.members()).isEqualTo(2);
                assertThat(e).isInstanceOf(KafkoException.class)
                        .hasMessageContaining("'g'").hasMessageContaining("'t'").hasMessageContaining("2 live member")
                        .hasMessageContaining("close them first");
            });
            assertThat(events).isEmpty();
            assertThat(committed(k, "g")).isEqualTo(Map.of(0, 2L));
            assertThat(Files.exists(offsetsFile("g"))).isTrue();
            a.commit(Map.of(0, 3L)); // the members go on
            b.close();
            assertThatThrownBy(() -> k.deleteGroup("t", "g")).isInstanceOfSatisfying(GroupNotEmptyException.class,
                    e -> assertThat(e.members()).isEqualTo(1));
            a.close();

            assertThat(k.deleteGroup("t", "g")).isTrue();
            assertThat(events).containsExactly("commit t/g", "deleted t/g");
            assertThat(k.groups("t")).isEmpty();
            assertThat(Files.exists(offsetsFile("g"))).isFalse();
        }
    }

    /**
     * A consumer with fixed partitions is no member: it does not stop the deletion, and its next commit makes the
     * group anew (a fresh file with only that commit), as a standalone consumer's does in Kafka.
     */
    @Test
    void aFixedAssignmentConsumerDoesNotStopTheDeletionAndItsNextCommitMakesTheGroupAnew() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            fill(k, "t", 5);
            try (Consumer fixed = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withPartitions(Set.of(0, 1)))) {
                fixed.commit(Map.of(0, 4L, 1, 4L));
                assertThat(k.deleteGroup("t", "g")).isTrue();
                assertThat(fixed.committed(0)).isEmpty();
                assertThat(k.groups("t")).isEmpty();
                assertThat(BrokerBridge.keptGroups(k, "t")).isEmpty();
                fixed.commit(Map.of(1, 2L));
                assertThat(committed(k, "g")).isEqualTo(Map.of(1, 2L));
                assertThat(fixed.committed(1)).hasValue(2);
                assertThat(onDisk("g", 2)).containsExactly(-1, 2);
            }
        }
    }

    @Test
    void aGroupAFixedAssignmentConsumerMakesAnewReportsItsLagByThatConsumersResetPolicy() {
        // the instance starts groups at the log start; the consumer at the end: a partition it has not committed is
        // no lag of its group, before the deletion and after its next commit made the group anew
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            fill(k, "t", 5);
            try (Consumer fixed = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withPartitions(Set.of(0, 1))
                    .withOffsetReset(OffsetResetPolicy.LATEST))) {
                fixed.commit(Map.of(0, 4L));
                assertThat(k.groupInfo("t", "g").lag()).isEqualTo(Map.of(0, 1L, 1, 0L));
                assertThat(k.deleteGroup("t", "g")).isTrue();
                fixed.commit(Map.of(0, 4L));
                assertThat(k.groupInfo("t", "g").lag()).as("partition 1 starts at its end for this group's consumer")
                        .isEqualTo(Map.of(0, 1L, 1, 0L));
                assertThat(k.groupLag("t", "g", 1)).isZero();
            }
        }
    }

    @Test
    void aDeletedGroupUsedAgainKeepsItsNewCommitsAcrossAReopen() {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().offsetReset(OffsetResetPolicy.LATEST).build())) {
            k.createTopic("t");
            fill(k, "t", 5);
            try (Consumer c = k.groupConsumer("t", "g")) {
                c.seek(0, 1);
                c.commit();
            }
            assertThat(k.deleteGroup("t", "g")).isTrue();
            fill(k, "t", 2);
            try (Consumer c = k.groupConsumer("t", "g")) {
                assertThat(c.position(0)).as("LATEST: the end, not the deleted commit").isEqualTo(7);
                c.commit();
            }
            assertThat(k.groups("t")).containsExactly("g");
        }
        try (Kafko k = Kafko.open(dir)) {
            assertThat(committed(k, "g")).isEqualTo(Map.of(0, 7L));
            assertThat(k.deleteGroup("t", "g")).as("known from disk after a reopen").isTrue();
        }
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.groups("t")).isEmpty();
            try (Consumer c = k.groupConsumer("t", "g")) {
                assertThat(c.position(0)).as("EARLIEST: the log start").isZero();
            }
        }
    }

    /** Offsets in the layout before group directories, beside the current file: both go, the older one first. */
    @Test
    void offsetsOfTheOlderLayoutGoWithTheGroup() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            fill(k, "t", 5);
            try (Consumer c = k.groupConsumer("t", "g")) {
                c.poll(Duration.ofMillis(10));
                c.commit(Map.of(0, 3L));
            }
            // an older version's file, written after this one moved it (the case adoptLegacy warns of)
            Path legacy = dir.resolve("t").resolve("groups").resolve("g.offsets");
            Files.copy(offsetsFile("g"), legacy);
            assertThat(k.deleteGroup("t", "g")).isTrue();
            assertThat(legacy).doesNotExist();
            assertThat(k.groups("t")).isEmpty();
        }
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.groups("t")).isEmpty();
            assertThat(committed(k, "g")).isEmpty();
        }
    }

    @Test
    void namesAreCheckedFirstThenTheTopicAndTheInstance() {
        Kafko k = Kafko.open(dir);
        k.createTopic("t");
        assertThatThrownBy(() -> k.deleteGroup("t", "no/such")).isInstanceOf(InvalidNameException.class);
        assertThatThrownBy(() -> k.deleteGroup("t", "")).isInstanceOf(InvalidNameException.class);
        assertThatThrownBy(() -> k.deleteGroup("..", "g")).isInstanceOf(InvalidNameException.class);
        assertThatThrownBy(() -> k.deleteGroup("absent", "g")).isInstanceOf(UnknownTopicException.class)
                .hasMessageContaining("absent");
        k.deleteTopic("t");
        assertThatThrownBy(() -> k.deleteGroup("t", "g")).isInstanceOf(UnknownTopicException.class);
        k.createTopic("t");
        k.close();
        assertThatThrownBy(() -> k.deleteGroup("t", "g")).isInstanceOf(KafkoClosedException.class);
        // arguments first, also after the close
        assertThatThrownBy(() -> k.deleteGroup("t", "a b")).isInstanceOf(InvalidNameException.class);
        assertThatThrownBy(() -> k.deleteGroup("t b", "g")).isInstanceOf(InvalidNameException.class);
    }

    /** An observer told of the deletion may call back into kafko about the group: it is gone, and can be made anew. */
    @Test
    void anObserverOfTheDeletionSeesTheGroupGoneAndMayUseItsNameAgain() throws Exception {
        List<Object> seen = new ArrayList<>();
        Kafko[] self = new Kafko[1];
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onGroupDeleted(String topic, String group) {
                seen.add(self[0].groupInfo(topic, group).committed());
                seen.add(self[0].groups(topic));
                seen.add(self[0].deleteGroup(topic, group));
                try (Consumer c = self[0].groupConsumer(topic, group)) {
                    seen.add(c.position(0));
                    c.commit(Map.of(0, 1L));
                }
            }
        };
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(observer).build())) {
            self[0] = k;
            k.createTopic("t");
            fill(k, "t", 3);
            try (Consumer c = k.groupConsumer("t", "g")) {
                c.poll(Duration.ofMillis(10));
                c.commit(Map.of(0, 2L));
            }
            CompletableFuture<Boolean> deleted = Fixtures.onNewThread(() -> k.deleteGroup("t", "g"));
            assertThat(deleted.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(seen).containsExactly(Map.of(), Set.of(), false, 0L);
            assertThat(committed(k, "g")).as("made anew by the observer").isEqualTo(Map.of(0, 1L));
        }
        try (Kafko k = Kafko.open(dir)) {
            assertThat(committed(k, "g")).isEqualTo(Map.of(0, 1L));
        }
    }

    /**
     * A member made while the group is deleted, each round started by one latch with a seeded spin before each side:
     * either the deletion is refused (the member joined first, at the group's commit) or it is done and the member
     * started by the reset policy; and the member's own commit is then the group's, in memory and on disk (it went to
     * a live coordinator's file, not to the deleted one's).
     */
    @Test
    void aMemberRacingTheDeletionEndsInTheOldGroupOrAFreshOneNeverInADeletedOne() throws Exception {
        Random random = new Random(SEED);
        int refused = 0;
        int deleted = 0;
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().fsyncMetadata(false).build())) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            fill(k, "t", 10);
            for (int round = 0; round < 300; round++) {
                try (Consumer seed = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withPartitions(Set.of(0, 1)))) {
                    seed.commit(Map.of(0, 5L, 1, 5L));
                }
                int deleterSpins = random.nextInt(2_000);
                int joinerSpins = random.nextInt(2_000);
                long mine = 6 + round % 4;
                CountDownLatch start = new CountDownLatch(1);
                CompletableFuture<Object> deleter = Fixtures.onNewThread(() -> {
                    await(start);
                    spin(deleterSpins);
                    try {
                        return k.deleteGroup("t", "g");
                    } catch (GroupNotEmptyException e) {
                        return e;
                    }
                });
                CompletableFuture<long[]> joiner = Fixtures.onNewThread(() -> {
                    await(start);
                    spin(joinerSpins);
                    try (Consumer c = k.groupConsumer("t", "g")) {
                        long[] started = {c.position(0), c.position(1)};
                        c.commit(Map.of(0, mine));
                        // the group the topic knows counts this member: it joined no coordinator of a deleted group
                        return k.groupInfo("t", "g").members() == 1 ? started : new long[] {-1, -1};
                    }
                });
                start.countDown();
                Object outcome = deleter.get(10, TimeUnit.SECONDS);
                long[] started = joiner.get(10, TimeUnit.SECONDS);
                if (outcome instanceof GroupNotEmptyException) {
                    refused++;
                    assertThat(started).as("round %d: refused, so the member joined the old group", round)
                            .containsExactly(5, 5);
                    assertThat(committed(k, "g")).as("round %d", round).isEqualTo(Map.of(0, mine, 1, 5L));
                    assertThat(onDisk("g", 2)).as("round %d", round).containsExactly(mine, 5);
                } else {
                    assertThat(outcome).as("round %d", round).isEqualTo(true);
                    if (started[0] == 5) {
                        // the member joined, committed and left before the deletion: all of it deleted
                        assertThat(started).as("round %d", round).containsExactly(5, 5);
                        assertThat(k.groups("t")).as("round %d", round).isEmpty();
                        assertThat(offsetsFile("g")).as("round %d", round).doesNotExist();
                    } else {
                        deleted++;
                        assertThat(started).as("round %d: deleted first, so the member started anew", round)
                                .containsExactly(0, 0);
                        assertThat(committed(k, "g")).as("round %d", round).isEqualTo(Map.of(0, mine));
                        assertThat(onDisk("g", 2)).as("round %d", round).containsExactly(mine, -1);
                        assertThat(k.groups("t")).as("round %d", round).containsExactly("g");
                    }
                }
                k.deleteGroup("t", "g");
                assertThat(BrokerBridge.keptGroups(k, "t")).as("round %d", round).isEmpty();
            }
        }
        System.out.printf("member-delete race: %d refused, %d deleted before the join, of 300%n", refused, deleted);
        assertThat(refused + deleted).as("rounds that raced at all").isPositive();
    }

    /**
     * A fixed-assignment consumer commits in a loop while the group is deleted: every commit lands either in the group
     * before its deletion or in the group made anew after it, and what the group reports afterwards is what its file
     * holds (no commit went to a file the deletion removed, none brought it back half way).
     */
    @Test
    void aFixedAssignmentCommitRacingTheDeletionLandsBeforeItOrInTheGroupMadeAnew() throws Exception {
        Random random = new Random(SEED + 1);
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().fsyncMetadata(false).build())) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            for (int round = 0; round < 200; round++) {
                Consumer fixed = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withPartitions(Set.of(0, 1)));
                fixed.commit(Map.of(1, 1L)); // the group exists, with a commit on partition 1
                int deleterSpins = random.nextInt(5_000);
                CountDownLatch start = new CountDownLatch(1);
                CompletableFuture<Boolean> deleter = Fixtures.onNewThread(() -> {
                    await(start);
                    spin(deleterSpins);
                    return k.deleteGroup("t", "g");
                });
                CompletableFuture<String> committer = Fixtures.onNewThread(() -> {
                    await(start);
                    for (long offset = 1; offset <= 40; offset++) {
                        fixed.commit(Map.of(0, offset));
                        // what the group reports is this commit, or nothing when the deletion came right after it;
                        // never an older one (a commit that went to the deleted coordinator, past the group's new one)
                        Long reported = k.groupInfo("t", "g").committed().get(0);
                        if (reported != null && reported != offset) {
                            return "committed " + offset + ", the group reports " + reported;
                        }
                    }
                    return "40 commits";
                });
                start.countDown();
                assertThat(deleter.get(10, TimeUnit.SECONDS)).as("round %d", round).isTrue();
                assertThat(committer.get(10, TimeUnit.SECONDS)).as("round %d", round).isEqualTo("40 commits");
                Map<Integer, Long> reported = committed(k, "g");
                long[] file = onDisk("g", 2);
                assertThat(file[1]).as("round %d: the deleted commit on partition 1 never comes back", round)
                        .isEqualTo(-1);
                assertThat(reported.get(1)).as("round %d", round).isNull();
                if (reported.isEmpty()) {
                    assertThat(file[0]).as("round %d: deleted after the last commit", round).isEqualTo(-1);
                    assertThat(k.groups("t")).as("round %d", round).isEmpty();
                } else {
                    assertThat(reported).as("round %d: made anew by the commits after the deletion", round)
                            .isEqualTo(Map.of(0, 40L));
                    assertThat(file[0]).as("round %d", round).isEqualTo(40);
                }
                assertThat(fixed.committed(1)).as("round %d", round).isEmpty();
                fixed.close();
                k.deleteGroup("t", "g");
            }
        }
    }

    /** A topic deleted while its group is: the group's deletion is done or finds the topic gone; nothing is left. */
    @Test
    void aTopicDeletedMeanwhileLeavesNoFileAndOnlyTypedFailures() throws Exception {
        Random random = new Random(SEED + 2);
        int unknown = 0;
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().fsyncMetadata(false).build())) {
            for (int round = 0; round < 100; round++) {
                k.createTopic("t", TopicConfig.builder().partitions(2).build());
                try (Consumer c = k.groupConsumer("t", "g")) {
                    c.poll(Duration.ofMillis(1));
                    c.commit(Map.of(0, 0L));
                }
                int spins = random.nextInt(20_000);
                CountDownLatch start = new CountDownLatch(1);
                CompletableFuture<Object> groupDelete = Fixtures.onNewThread(() -> {
                    await(start);
                    spin(spins);
                    try {
                        return k.deleteGroup("t", "g");
                    } catch (UnknownTopicException e) {
                        return e;
                    }
                });
                CompletableFuture<Void> topicDelete = Fixtures.onNewThread(() -> {
                    await(start);
                    k.deleteTopic("t");
                });
                start.countDown();
                topicDelete.get(10, TimeUnit.SECONDS);
                Object outcome = groupDelete.get(10, TimeUnit.SECONDS);
                if (outcome instanceof UnknownTopicException) {
                    unknown++;
                } else {
                    assertThat(outcome).as("round %d", round).isEqualTo(true);
                }
                assertThat(dir.resolve("t")).as("round %d", round).doesNotExist();
            }
        }
        System.out.printf("topic-delete race: %d of 100 group deletions found the topic gone%n", unknown);
    }

    /** The instance closed while a group is deleted: done, or refused as closed; the directory opens again at once. */
    @Test
    void anInstanceClosedMeanwhileLeavesNothingOpen() throws Exception {
        Random random = new Random(SEED + 3);
        for (int round = 0; round < 30; round++) {
            Kafko k = Kafko.open(dir, KafkoOptions.builder().fsyncMetadata(false).build());
            if (k.topic("t").isEmpty()) {
                k.createTopic("t");
            }
            try (Consumer c = k.groupConsumer("t", "g")) {
                c.poll(Duration.ofMillis(1));
                c.commit(Map.of(0, 0L));
            }
            int spins = random.nextInt(50_000);
            CountDownLatch start = new CountDownLatch(1);
            CompletableFuture<Object> groupDelete = Fixtures.onNewThread(() -> {
                await(start);
                spin(spins);
                try {
                    return k.deleteGroup("t", "g");
                } catch (KafkoClosedException e) {
                    return e;
                }
            });
            CompletableFuture<Void> close = Fixtures.onNewThread(() -> {
                await(start);
                k.close();
            });
            start.countDown();
            close.get(10, TimeUnit.SECONDS);
            Object outcome = groupDelete.get(10, TimeUnit.SECONDS);
            try (Kafko again = Kafko.open(dir)) {
                if (outcome instanceof KafkoClosedException) {
                    assertThat(again.groups("t")).as("round %d", round).containsExactly("g");
                } else {
                    assertThat(outcome).as("round %d", round).isEqualTo(true);
                    assertThat(again.groups("t")).as("round %d", round).isEmpty();
                }
            }
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /** A seeded amount of work before an action, so that the rounds try many interleavings; no sleep, no timing. */
    private static void spin(int n) {
        for (int i = 0; i < n; i++) {
            Thread.onSpinWait();
        }
    }

    private static List<Path> files(Path root) throws Exception {
        try (Stream<Path> s = Files.walk(root)) {
            return s.sorted().toList();
        }
    }
}
