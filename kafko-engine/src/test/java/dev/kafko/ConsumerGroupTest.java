package dev.kafko;

import static dev.kafko.Fixtures.bytes;
import static dev.kafko.Fixtures.fill;
import static dev.kafko.Fixtures.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.internal.broker.BrokerBridge;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.log.CapturedWarnings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ConsumerGroupTest {

    @TempDir
    Path dir;

    @Test
    void groupResumesFromItsCommittedOffsetPerPartitionAfterReopen() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            fill(k, "t", 10);
            try (Consumer c = k.groupConsumer("t", "g")) {
                assertThat(c.group()).contains("g");
                c.poll(Duration.ofSeconds(1)); // both partitions, 10 each (default max 500)
                c.seek(0, 3);
                c.seek(1, 7);
                c.commit();
                assertThat(c.committed(0)).hasValue(3);
                assertThat(c.committed(1)).hasValue(7);
            }
        }
        try (Kafko k = Kafko.open(dir); Consumer c = k.groupConsumer("t", "g")) {
            assertThat(c.position(0)).isEqualTo(3);
            assertThat(c.position(1)).isEqualTo(7);
            List<KafkoRecord> got = Fixtures.pollUntil(c, 10);
            assertThat(got).hasSize(10);
            assertThat(got.stream().filter(r -> r.partition() == 0).map(KafkoRecord::offset).findFirst()).contains(3L);
            assertThat(k.groups("t")).containsExactly("g");
            GroupInfo info = k.groupInfo("t", "g");
            assertThat(info.committed()).isEqualTo(Map.of(0, 3L, 1, 7L));
            assertThat(info.lag()).isEqualTo(Map.of(0, 7L, 1, 3L));
            assertThat(info.members()).isEqualTo(1);
        }
    }

    @Test
    void distinctGroupsKeepIndependentPositions() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            fill(k, "t", 10);
            try (Consumer a = k.groupConsumer("t", "a", ConsumerOptions.DEFAULTS.withMaxPollRecords(4));
                 Consumer b = k.groupConsumer("t", "b", ConsumerOptions.DEFAULTS.withMaxPollRecords(7))) {
                a.poll(Duration.ofSeconds(1));
                b.poll(Duration.ofSeconds(1));
                a.commit();
                b.commit();
                assertThat(a.committed(0)).hasValue(4);
                assertThat(b.committed(0)).hasValue(7);
            }
            try (Consumer a = k.groupConsumer("t", "a"); Consumer b = k.groupConsumer("t", "b")) {
                assertThat(a.poll(Duration.ofSeconds(1)).get(0).offset()).isEqualTo(4);
                assertThat(b.poll(Duration.ofSeconds(1)).get(0).offset()).isEqualTo(7);
            }
            assertThat(k.groups("t")).containsExactly("a", "b");
        }
    }

    /** Topic {@code t} with {@code records} records, all committed by group {@code g}: its offsets file. */
    private Path committedOffsetsFile(int records) {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            fill(k, "t", records);
            try (Consumer c = k.groupConsumer("t", "g")) {
                c.poll(Duration.ofSeconds(1));
                c.commit();
            }
        }
        return FileNames.groupOffsetsFile(dir.resolve("t"), "g");
    }

    @Test
    void corruptOffsetFileFallsBackToTheResetPolicyWithAWarning() throws Exception {
        Path file = committedOffsetsFile(10);
        byte[] b = Files.readAllBytes(file);
        b[1] ^= 0x5a;
        Files.write(file, b);
        try (CapturedWarnings warnings = CapturedWarnings.of("dev.kafko.internal.broker.GroupOffsetsFile");
             Kafko k = Kafko.open(dir); Consumer c = k.groupConsumer("t", "g")) {
            assertThat(c.committed(0)).isEmpty();
            assertThat(c.poll(Duration.ofSeconds(1)).get(0).offset()).isZero();
            assertThat(warnings.lines()).anySatisfy(line -> assertThat(line).contains(file.toString()));
        }
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().offsetReset(OffsetResetPolicy.LATEST).build());
             Consumer c = k.groupConsumer("t", "other")) {
            assertThat(c.position(0)).isEqualTo(10);
        }
    }

    @Test
    void commitOfAPartitionNotOwnedIsRefused() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            try (Consumer a = k.groupConsumer("t", "g"); Consumer b = k.groupConsumer("t", "g")) {
                a.poll(Duration.ofMillis(10));
                b.poll(Duration.ofMillis(10));
                a.poll(Duration.ofMillis(10));
                assertThat(a.assignment()).containsExactly(0);
                assertThat(b.assignment()).containsExactly(1);
                assertThatThrownBy(() -> a.commit(Map.of(1, 0L))).isInstanceOf(InvalidPartitionException.class);
                assertThatThrownBy(() -> a.commit(Map.of(0, -1L))).isInstanceOf(OffsetOutOfRangeException.class);
                a.commit(Map.of(0, 0L));
                assertThat(b.committed(0)).hasValue(0);
            }
        }
    }

    @Test
    void membersShareByRangeAndExtraMembersGetNothing() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(5).build());
            List<Consumer> members = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                members.add(k.groupConsumer("t", "g"));
            }
            settle(members);
            assertThat(members.get(0).assignment()).containsExactly(0, 1);
            assertThat(members.get(1).assignment()).containsExactly(2, 3);
            assertThat(members.get(2).assignment()).containsExactly(4);
            members.get(0).close();
            settle(members.subList(1, 3));
            assertThat(members.get(1).assignment()).containsExactly(0, 1, 2);
            assertThat(members.get(2).assignment()).containsExactly(3, 4);
            for (int i = 0; i < 5; i++) {
                members.add(k.groupConsumer("t", "g"));
            }
            settle(members.subList(1, members.size()));
            long empty = members.subList(1, members.size()).stream().filter(c -> c.assignment().isEmpty()).count();
            assertThat(empty).isEqualTo(2); // 7 live members, 5 partitions
            assertThat(k.groupInfo("t", "g").members()).isEqualTo(7);
            members.forEach(Consumer::close);
        }
    }

    /** Polls every member a few times so that revocations and assignments go through. */
    private static void settle(List<Consumer> members) {
        for (int round = 0; round < 3; round++) {
            for (Consumer c : members) {
                c.poll(Duration.ZERO);
            }
        }
    }

    @Test
    void revokedPartitionMovesOnlyAfterItsOwnerCommittedInItsCallback() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            fill(k, "t", 10);
            List<String> events = new CopyOnWriteArrayList<>();
            Consumer[] self = new Consumer[1];
            Thread[] pollingThread = new Thread[1];
            ConsumerRebalanceListener listener = new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<Integer> partitions) {
                    assertThat(Thread.currentThread()).isSameAs(pollingThread[0]);
                    events.add("revoked " + partitions);
                    self[0].commit();
                }

                @Override
                public void onPartitionsAssigned(Collection<Integer> partitions) {
                    assertThat(Thread.currentThread()).isSameAs(pollingThread[0]);
                    events.add("assigned " + partitions);
                }
            };
            pollingThread[0] = Thread.currentThread();
            Consumer a = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withRebalanceListener(listener).withMaxPollRecords(6));
            self[0] = a;
            List<KafkoRecord> first = a.poll(Duration.ofSeconds(1));
            assertThat(events).containsExactly("assigned [0, 1]");
            assertThat(first).hasSize(6);
            Consumer b = k.groupConsumer("t", "g");
            // b wants partition 1, which a still owns: b gets nothing until a lets go
            assertThat(b.poll(Duration.ZERO)).isEmpty();
            assertThat(b.assignment()).isEmpty();
            a.poll(Duration.ZERO);
            assertThat(events).contains("revoked [1]");
            assertThat(a.assignment()).containsExactly(0);
            long committed1 = a.committed(1).orElseThrow();
            List<KafkoRecord> fromB = Fixtures.pollUntil(b, 10 - (int) committed1);
            assertThat(b.assignment()).containsExactly(1);
            assertThat(fromB.get(0).offset()).isEqualTo(committed1);
            assertThat(fromB).allSatisfy(r -> assertThat(r.partition()).isEqualTo(1));
            a.close();
            b.close();
        }
    }

    @Test
    void memberThatStopsPollingKeepsItsPartitionsUntilItCloses() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            fill(k, "t", 3);
            Consumer idle = k.groupConsumer("t", "g");
            idle.poll(Duration.ZERO);
            Consumer active = k.groupConsumer("t", "g");
            assertThat(active.poll(Duration.ofMillis(20))).isEmpty();
            idle.close();
            List<KafkoRecord> got = Fixtures.pollUntil(active, 6);
            assertThat(got).hasSize(6);
            assertThat(active.assignment()).containsExactly(0, 1);
            active.close();
        }
    }

    /** One partition's lag says what the whole group's info says of it, before and after commits, and refuses as it. */
    @ParameterizedTest
    @EnumSource(OffsetResetPolicy.class)
    void groupLagOfOnePartitionIsWhatGroupInfoSaysOfIt(OffsetResetPolicy reset) {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().offsetReset(reset).build())) {
            k.createTopic("t", TopicConfig.builder().partitions(3).build());
            fill(k, "t", 5);
            assertLagsAgree(k, reset == OffsetResetPolicy.LATEST ? Map.of(0, 0L, 1, 0L, 2, 0L)
                    : Map.of(0, 5L, 1, 5L, 2, 5L));
            try (Consumer c = k.groupConsumer("t", "g")) {
                c.poll(Duration.ofMillis(50));
                c.commit(Map.of(0, 2L, 1, 5L));
            }
            assertLagsAgree(k, Map.of(0, 3L, 1, 0L, 2, reset == OffsetResetPolicy.LATEST ? 0L : 5L));
            assertThatThrownBy(() -> k.groupLag("t", "g", 3)).isInstanceOf(InvalidPartitionException.class)
                    .hasMessageContaining("partition 3");
            assertThatThrownBy(() -> k.groupLag("t", "g", -1)).isInstanceOf(InvalidPartitionException.class);
            assertThatThrownBy(() -> k.groupLag("nope", "g", 0)).isInstanceOf(UnknownTopicException.class);
            assertThatThrownBy(() -> k.groupLag("t", "a/b", 0)).isInstanceOf(InvalidNameException.class);
        }
    }

    /**
     * A group whose consumers have a reset policy of their own counts its lag without a commit from where they start,
     * not from where the instance's policy would start them; so do the fixed-partition consumers of a group.
     */
    @ParameterizedTest
    @EnumSource(OffsetResetPolicy.class)
    void theLagWithoutACommitFollowsThePolicyTheGroupsConsumersWereMadeWith(OffsetResetPolicy instance) {
        OffsetResetPolicy own = instance == OffsetResetPolicy.LATEST ? OffsetResetPolicy.EARLIEST
                : OffsetResetPolicy.LATEST;
        Map<Integer, Long> underOwn = own == OffsetResetPolicy.LATEST ? Map.of(0, 0L, 1, 0L, 2, 0L)
                : Map.of(0, 5L, 1, 5L, 2, 5L);
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().offsetReset(instance).build())) {
            k.createTopic("t", TopicConfig.builder().partitions(3).build());
            fill(k, "t", 5);
            try (Consumer c = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withOffsetReset(own))) {
                c.poll(Duration.ofMillis(50));
                assertLagsAgree(k, underOwn);
                c.commit(Map.of(0, 2L));
                assertThat(k.groupLag("t", "g", 0)).as("a commit counts whatever the policy").isEqualTo(3);
            }
            assertThat(k.groupLag("t", "g", 1)).as("after the member left").isEqualTo(underOwn.get(1));
            try (Consumer fixed = k.groupConsumer("t", "h", ConsumerOptions.DEFAULTS.withOffsetReset(own)
                    .withPartitions(Set.of(2)))) {
                assertThat(k.groupLag("t", "h", 2)).isEqualTo(underOwn.get(2));
            }
            assertThat(k.groupInfo("t", "never").lag()).as("a group without consumers: the instance's")
                    .isEqualTo(instance == OffsetResetPolicy.LATEST ? Map.of(0, 0L, 1, 0L, 2, 0L)
                            : Map.of(0, 5L, 1, 5L, 2, 5L));
        }
    }

    /**
     * The lag without a commit follows the policy of the group's consumer made last, whether it has one of its own or
     * takes the instance's: a member made without one starts at the log start under an {@code EARLIEST} instance,
     * whatever an earlier member's own {@code LATEST} was. A consumer the group refused (a partition the topic does
     * not have) made nothing, and changes nothing.
     */
    @Test
    void theLagWithoutACommitFollowsTheGroupsLastConsumerAndNotOneRefused() {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().offsetReset(OffsetResetPolicy.EARLIEST).build())) {
            k.createTopic("t", TopicConfig.builder().partitions(3).build());
            fill(k, "t", 5);
            try (Consumer latest = k.groupConsumer("t", "g",
                    ConsumerOptions.DEFAULTS.withOffsetReset(OffsetResetPolicy.LATEST))) {
                latest.poll(Duration.ofMillis(50));
                assertLagsAgree(k, Map.of(0, 0L, 1, 0L, 2, 0L));
            }
            try (Consumer plain = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS)) {
                assertThat(plain.poll(Duration.ofMillis(200))).as("it starts at the log start").isNotEmpty();
                assertThat(k.groupLag("t", "g", 0)).as("the instance's EARLIEST, as this member").isEqualTo(5);
            }
            assertThatThrownBy(() -> k.groupConsumer("t", "h", ConsumerOptions.DEFAULTS
                    .withOffsetReset(OffsetResetPolicy.LATEST).withPartitions(Set.of(7))))
                    .isInstanceOf(InvalidPartitionException.class);
            assertThat(k.groupLag("t", "h", 0)).as("no consumer was made").isEqualTo(5);
        }
    }

    /** Asking about names never used keeps nothing for them; a group with commits on disk is read from them. */
    @Test
    void groupInfoAndLagOfUnknownNamesKeepNothing() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            fill(k, "t", 3);
            for (int i = 0; i < 1_000; i++) {
                assertThat(k.groupInfo("t", "ghost-" + i).lag()).isEqualTo(Map.of(0, 3L, 1, 3L));
                assertThat(k.groupLag("t", "ghost-" + i, 1)).isEqualTo(3);
            }
            assertThat(BrokerBridge.keptGroups(k, "t")).isEmpty();
            assertThat(k.groups("t")).isEmpty();
            try (Consumer c = k.groupConsumer("t", "g")) {
                c.poll(Duration.ofMillis(50));
                c.commit(Map.of(0, 2L));
            }
        }
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.groupInfo("t", "g").committed()).isEqualTo(Map.of(0, 2L));
            assertThat(k.groupLag("t", "g", 0)).isEqualTo(1);
            assertThat(BrokerBridge.keptGroups(k, "t")).containsExactly("g");
        }
    }

    private static void assertLagsAgree(Kafko k, Map<Integer, Long> expected) {
        assertThat(k.groupInfo("t", "g").lag()).isEqualTo(expected);
        for (int p = 0; p < 3; p++) {
            assertThat(k.groupLag("t", "g", p)).as("partition %d", p).isEqualTo(expected.get(p));
        }
    }

    /** Under LATEST a group without a commit reads next at the end: no lag, as its members start there. */
    @Test
    void aGroupWithoutACommitHasNoLagUnderLatestAndLagsFromItsCommitOnceItHasOne() {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().offsetReset(OffsetResetPolicy.LATEST).build())) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            fill(k, "t", 4);
            assertThat(k.groupInfo("t", "g").lag()).isEqualTo(Map.of(0, 0L, 1, 0L));
            try (Consumer c = k.groupConsumer("t", "g")) {
                assertThat(c.poll(Duration.ofMillis(50))).isEmpty();
                assertThat(c.position(0)).isEqualTo(4);
                c.commit(Map.of(0, 1L));
                assertThat(k.groupInfo("t", "g").lag()).isEqualTo(Map.of(0, 3L, 1, 0L));
            }
        }
    }

    @Test
    void groupInfoAndGroupsReportLiveAndCommittedGroups() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            fill(k, "t", 4);
            assertThat(k.groups("t")).isEmpty();
            try (Consumer c = k.groupConsumer("t", "live")) {
                assertThat(k.groups("t")).containsExactly("live");
                GroupInfo info = k.groupInfo("t", "live");
                assertThat(info.committed()).isEmpty();
                assertThat(info.lag()).isEqualTo(Map.of(0, 4L, 1, 4L));
                assertThat(info.members()).isEqualTo(1);
                assertThat(c.poll(Duration.ofSeconds(1))).hasSize(8);
            }
            assertThat(k.groups("t")).isEmpty();
            assertThat(text(bytes("x"))).isEqualTo("x");
        }
    }

    @Test
    void aCommitOfNothingLeavesNoGroupBehind() {
        List<String> commits = new CopyOnWriteArrayList<>();
        KafkoOptions options = KafkoOptions.builder().observer(new KafkoObserver() {
            @Override
            public void onCommit(String topic, String group) {
                commits.add(group);
            }
        }).build();
        try (Kafko k = Kafko.open(dir, options)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            try (Consumer c = k.groupConsumer("t", "empty-map")) {
                c.commit(Map.of());
            }
            try (Consumer a = k.groupConsumer("t", "extra");
                    Consumer b = k.groupConsumer("t", "extra");
                    Consumer extra = k.groupConsumer("t", "extra")) {
                settle(List.of(a, b, extra));
                assertThat(extra.assignment()).isEmpty();
                extra.commit(); // a member that owns nothing commits nothing
                extra.commit(Map.of());
            }
            assertThat(k.groups("t")).isEmpty();
            assertThat(k.groupInfo("t", "empty-map").committed()).isEmpty();
            assertThat(commits).isEmpty();
        }
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.groups("t")).as("after a reopen").isEmpty();
        }
    }

    @Test
    void aCommitAheadOfTheLogStartsTheMemberAtTheEndAndSkipsNoRecordAppendedAfterIt() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            Producer p = k.producer("t");
            for (int i = 0; i < 10; i++) {
                p.send(null, bytes("v" + i)).join();
            }
            try (Consumer a = k.groupConsumer("t", "g")) {
                a.poll(Duration.ofMillis(10));
                // what a log cut back by recovery looks like to the group: a commit past its end
                a.commit(Map.of(0, 1000L));
            }
        }
        try (Kafko k = Kafko.open(dir); Consumer b = k.groupConsumer("t", "g")) {
            assertThat(b.poll(Duration.ofMillis(10))).isEmpty();
            assertThat(b.position(0)).isEqualTo(10);
            k.producer("t").send(null, bytes("after the member joined")).join();
            assertThat(b.poll(Duration.ofSeconds(1))).extracting(KafkoRecord::offset).containsExactly(10L);
        }
    }

    @ParameterizedTest
    @EnumSource(OffsetResetPolicy.class)
    void aCommitAheadOfTheLogIsMovedToItsEndAtOpenSoRecordsAppendedBeforeAMemberJoinsAreRead(OffsetResetPolicy reset) {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            for (int i = 0; i < 10; i++) {
                k.producer("t").send(null, bytes("v" + i)).join();
            }
            try (Consumer a = k.groupConsumer("t", "g")) {
                a.poll(Duration.ofMillis(10));
                // what a log cut back by recovery or restored from an older copy looks like to the group
                a.commit(Map.of(0, 1000L));
            }
        }
        List<String> warnings;
        try (CapturedWarnings captured = CapturedWarnings.of("dev.kafko.internal.broker.GroupCoordinator");
             Kafko k = Kafko.open(dir)) {
            assertThat(k.groupInfo("t", "g").committed()).as("moved at open, before any member").containsEntry(0, 10L);
            // appended before any member of the group takes the partition, past nothing but the stale commit
            for (int i = 10; i < 15; i++) {
                k.producer("t").send(null, bytes("v" + i)).join();
            }
            try (Consumer b = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withOffsetReset(reset))) {
                assertThat(Fixtures.pollUntil(b, 5)).extracting(KafkoRecord::offset)
                        .containsExactly(10L, 11L, 12L, 13L, 14L);
            }
            warnings = captured.lines();
        }
        assertThat(warnings).singleElement().satisfies(line -> assertThat(line)
                .contains("group 'g' of topic 't' partition 0: committed offset 1000 is past the log's end 10"));
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.groupInfo("t", "g").committed()).as("durable").containsEntry(0, 10L);
        }
    }

    @Test
    void anEmptyOffsetsFileIsReportedOnceAndTheGroupStartsByItsResetPolicy() throws Exception {
        Path file = committedOffsetsFile(3);
        Files.write(file, new byte[0]);
        List<String> warnings;
        try (CapturedWarnings captured = CapturedWarnings.of("dev.kafko.internal.broker.GroupOffsetsFile");
             Kafko k = Kafko.open(dir); Consumer c = k.groupConsumer("t", "g")) {
            assertThat(c.committed(0)).isEmpty();
            assertThat(c.poll(Duration.ofSeconds(1)).get(0).offset()).isZero();
            warnings = captured.lines();
        }
        assertThat(warnings).singleElement().satisfies(line -> assertThat(line)
                .contains(file + " is empty; no committed offset survived"));
    }

    @Test
    void offsetsKeptInTheLayoutBeforeGroupDirectoriesAreFoundAndMovedOnFirstUse() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            for (int i = 0; i < 3; i++) {
                k.producer("t").send(null, bytes("v" + i)).join();
            }
            try (Consumer c = k.groupConsumer("t", "g")) {
                c.poll(Duration.ofSeconds(1));
                c.commit(Map.of(0, 2L));
            }
        }
        // what an older version left: groups/g.offsets, no directory per group
        Path file = FileNames.groupOffsetsFile(dir.resolve("t"), "g");
        Path legacy = FileNames.legacyGroupOffsetsFile(dir.resolve("t"), "g");
        Files.move(file, legacy);
        Files.delete(file.getParent());

        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.groups("t")).containsExactly("g");
            try (Consumer c = k.groupConsumer("t", "g")) {
                assertThat(c.poll(Duration.ofSeconds(1))).extracting(KafkoRecord::offset).containsExactly(2L);
                c.commit();
            }
        }
        assertThat(legacy).doesNotExist();
        assertThat(file).exists();
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.groupInfo("t", "g").committed()).containsEntry(0, 3L);
        }

        // an older version opened the directory after this one moved the file, and committed into a file of its own
        Files.copy(file, legacy);
        try (CapturedWarnings warnings = CapturedWarnings.of("dev.kafko.internal.broker.GroupOffsetsFile");
             Kafko k = Kafko.open(dir)) {
            assertThat(k.groupInfo("t", "g").committed()).containsEntry(0, 3L);
            assertThat(warnings.lines()).filteredOn(line -> line.contains("group offsets in both layouts"))
                    .as("told once, at the open, not again at the group's first use").singleElement()
                    .satisfies(line -> assertThat(line).contains(legacy.toString()));
        }
        assertThat(legacy).as("left for the user to move").exists();
    }

    @Test
    void aGroupNamedLikeAnOffsetsFileOfTheOlderLayoutIsAGroupOfItsOwn() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            for (int i = 0; i < 10; i++) {
                k.producer("t").send(null, bytes("v" + i)).join();
            }
            try (Consumer c = k.groupConsumer("t", "a.offsets")) {
                c.commit(Map.of(0, 7L));
            }
            try (Consumer c = k.groupConsumer("t", "b.offsets")) {
                // a member that never committed: its directory exists, its offsets file does not
                assertThat(k.groups("t")).doesNotContain("b");
            }
            try (Consumer c = k.groupConsumer("t", "a")) {
                assertThat(c.position(0)).as("group 'a' never committed").isZero();
                c.commit(Map.of(0, 2L));
            }
            assertThat(k.groups("t")).contains("a", "a.offsets").doesNotContain("b");
        }
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.groupInfo("t", "a.offsets").committed()).containsEntry(0, 7L);
            assertThat(k.groupInfo("t", "a").committed()).containsEntry(0, 2L);
        }
    }

    @Test
    void callbacksNeverAnnounceAPartitionTakenAndGivenUpBetweenTwoPolls() {
        List<String> events = new CopyOnWriteArrayList<>();
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(4).build());
            Consumer a = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withRebalanceListener(recording("a", events)));
            Consumer b = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withRebalanceListener(recording("b", events)));
            a.poll(Duration.ZERO);
            b.poll(Duration.ZERO);
            // a took all four when it joined, gave two up to b before its first poll: told only of its two
            assertThat(events).containsExactly("a assigned [0, 1]", "b assigned [2, 3]");
            assertThat(a.assignment()).containsExactly(0, 1);
            assertThat(b.assignment()).containsExactly(2, 3);

            Consumer c = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withRebalanceListener(recording("c", events)));
            c.close(); // never polled: never told of anything, so nothing to revoke
            assertThat(events).noneMatch(e -> e.startsWith("c "));
            a.close();
            b.close();
            assertThat(events).containsExactly("a assigned [0, 1]", "b assigned [2, 3]", "a revoked [0, 1]",
                    "b revoked [2, 3]");
        }
    }

    private static ConsumerRebalanceListener recording(String member, List<String> events) {
        return new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<Integer> partitions) {
                events.add(member + " revoked " + new java.util.TreeSet<>(partitions));
            }

            @Override
            public void onPartitionsAssigned(Collection<Integer> partitions) {
                events.add(member + " assigned " + new java.util.TreeSet<>(partitions));
            }
        };
    }
}
