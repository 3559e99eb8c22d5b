package dev.kafko;

import static dev.kafko.Fixtures.bytes;
import static dev.kafko.Fixtures.fill;
import static dev.kafko.Fixtures.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Consumers with a fixed assignment ({@link ConsumerOptions#withPartitions}), Kafka's {@code assign}. */
class FixedAssignmentTest {

    @TempDir
    Path dir;

    private static ConsumerOptions partitions(Integer... partitions) {
        return ConsumerOptions.DEFAULTS.withPartitions(Set.of(partitions));
    }

    private static Set<Integer> partitionsOf(List<KafkoRecord> records) {
        return records.stream().map(KafkoRecord::partition).collect(Collectors.toSet());
    }

    @Test
    void anAnonymousConsumerReadsOnlyItsPartitionsFromOffsetZero() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(4).build());
            fill(k, "t", 5);
            try (Consumer c = k.consumer("t", partitions(0, 2))) {
                assertThat(c.assignment()).containsExactly(0, 2);
                assertThat(c.position(0)).isZero();
                assertThat(c.position(2)).isZero();
                List<KafkoRecord> got = Fixtures.pollUntil(c, 10);
                assertThat(got).hasSize(10);
                assertThat(partitionsOf(got)).containsExactlyInAnyOrder(0, 2);
                assertThat(got.stream().filter(r -> r.partition() == 2).map(r -> text(r.value())))
                        .containsExactly("2-0", "2-1", "2-2", "2-3", "2-4");
                assertThat(c.poll(Duration.ofMillis(50))).isEmpty();
                c.commit(); // anonymous: a no-op, as for any anonymous consumer
                assertThat(c.committed(0)).isEmpty();
            }
        }
    }

    @Test
    void aFixedAssignmentDoesNotGrowWithTheTopic() {
        try (Kafko k = Kafko.open(dir)) {
            Topic t = k.createTopic("t", TopicConfig.builder().partitions(2).build());
            try (Consumer c = k.consumer("t", partitions(1))) {
                t.increasePartitions(4);
                k.producer("t").sendTo(3, null, bytes("new")).join();
                k.producer("t").sendTo(1, null, bytes("mine")).join();
                List<KafkoRecord> got = Fixtures.pollUntil(c, 1);
                assertThat(c.poll(Duration.ofMillis(100))).isEmpty();
                assertThat(got).extracting(r -> text(r.value())).containsExactly("mine");
                assertThat(c.assignment()).containsExactly(1);
            }
        }
    }

    @Test
    void aGroupConsumerStartsAtTheGroupsCommitsAndResumesAfterReopen() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(4).build());
            fill(k, "t", 10);
            try (Consumer member = k.groupConsumer("t", "g")) {
                Fixtures.pollUntil(member, 40);
                member.commit(Map.of(0, 3L, 2, 6L));
            }
            try (Consumer c = k.groupConsumer("t", "g", partitions(0, 2))) {
                assertThat(c.group()).contains("g");
                assertThat(c.position(0)).isEqualTo(3);
                assertThat(c.position(2)).isEqualTo(6);
                List<KafkoRecord> got = Fixtures.pollUntil(c, 11);
                assertThat(got).hasSize(11);
                assertThat(partitionsOf(got)).containsExactlyInAnyOrder(0, 2);
                c.seek(0, 8);
                c.commit(); // no live member: the group's offsets are written
                assertThat(c.committed(0)).hasValue(8);
                assertThat(c.committed(2)).hasValue(10);
            }
        }
        try (Kafko k = Kafko.open(dir); Consumer c = k.groupConsumer("t", "g", partitions(0, 2))) {
            assertThat(c.position(0)).isEqualTo(8);
            assertThat(c.position(2)).isEqualTo(10);
            assertThat(k.groupInfo("t", "g").committed()).isEqualTo(Map.of(0, 8L, 2, 10L));
        }
    }

    @Test
    void withoutACommitAGroupConsumerStartsWhereTheResetPolicySays() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            fill(k, "t", 5);
            try (Consumer earliest = k.groupConsumer("t", "g", partitions(1));
                 Consumer latest = k.groupConsumer("t", "g",
                         partitions(1).withOffsetReset(OffsetResetPolicy.LATEST))) {
                assertThat(earliest.position(1)).isZero();
                assertThat(latest.position(1)).isEqualTo(5);
            }
        }
    }

    @Test
    void partitionsTheTopicDoesNotHaveAndEmptySetsAreRefused() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("orders", TopicConfig.builder().partitions(3).build());
            assertThatThrownBy(() -> k.consumer("orders", partitions(1, 3)))
                    .isInstanceOf(InvalidPartitionException.class)
                    .hasMessageContaining("partition 3").hasMessageContaining("'orders'")
                    .hasMessageContaining("3 partition(s), 0 to 2");
            assertThatThrownBy(() -> k.groupConsumer("orders", "g", partitions(7)))
                    .isInstanceOf(InvalidPartitionException.class)
                    .hasMessageContaining("partition 7").hasMessageContaining("'orders'")
                    .hasMessageContaining("3 partition(s)");
            assertThat(k.groupInfo("orders", "g").members()).isZero();
        }
        assertThatThrownBy(() -> ConsumerOptions.DEFAULTS.withPartitions(Set.of()))
                .isInstanceOf(InvalidConfigException.class).hasMessageContaining("at least one partition");
        assertThatThrownBy(() -> ConsumerOptions.DEFAULTS.withPartitions(Set.of(0, -1)))
                .isInstanceOf(InvalidPartitionException.class).hasMessageContaining("-1");
        assertThat(ConsumerOptions.DEFAULTS.withPartitions(Set.of(3, 1)).partitions()).containsExactly(1, 3);
        assertThat(ConsumerOptions.DEFAULTS.withPartitions(Set.of(1)).withPartitions(null).partitions()).isNull();
        assertThat(new ConsumerOptions(5, null, ConsumerRebalanceListener.NOOP).partitions()).isNull();
    }

    @Test
    void aCommitIsRefusedWhileTheGroupHasALiveMemberAndAcceptedOnceItLeft() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            fill(k, "t", 3);
            try (Consumer fixed = k.groupConsumer("t", "g", partitions(1))) {
                Fixtures.pollUntil(fixed, 3);
                Consumer member = k.groupConsumer("t", "g");
                assertThatThrownBy(fixed::commit).isInstanceOf(CommitFailedException.class)
                        .isInstanceOf(KafkoException.class)
                        .hasMessageContaining("group 'g'").hasMessageContaining("topic 't'")
                        .hasMessageContaining("1 live member(s)");
                assertThatThrownBy(() -> fixed.commit(Map.of(1, 2L))).isInstanceOf(CommitFailedException.class);
                assertThat(fixed.committed(1)).isEmpty();
                fixed.commit(Map.of()); // nothing to commit: no commit, nothing refused
                member.close();
                fixed.commit();
                assertThat(fixed.committed(1)).hasValue(3);
            }
        }
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.groupInfo("t", "g").committed()).isEqualTo(Map.of(1, 3L));
        }
    }

    @Test
    void aFixedConsumerIsNoMemberAndLeavesTheMembersRangesAlone() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(4).build());
            fill(k, "t", 2);
            List<String> calls = new CopyOnWriteArrayList<>();
            ConsumerRebalanceListener recording = new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsAssigned(Collection<Integer> partitions) {
                    calls.add("assigned " + partitions);
                }

                @Override
                public void onPartitionsRevoked(Collection<Integer> partitions) {
                    calls.add("revoked " + partitions);
                }
            };
            try (Consumer member = k.groupConsumer("t", "g")) {
                member.poll(Duration.ofMillis(100));
                assertThat(member.assignment()).containsExactly(0, 1, 2, 3);
                Consumer fixed = k.groupConsumer("t", "g", partitions(0, 3).withRebalanceListener(recording));
                assertThat(k.groupInfo("t", "g").members()).isEqualTo(1);
                // the member keeps all four: the fixed consumer took nothing from it
                member.poll(Duration.ofMillis(50));
                assertThat(member.assignment()).containsExactly(0, 1, 2, 3);
                // both read partitions 0 and 3
                assertThat(Fixtures.pollUntil(fixed, 4)).hasSize(4);
                fixed.close();
                member.poll(Duration.ofMillis(50));
                assertThat(member.assignment()).containsExactly(0, 1, 2, 3);
                assertThat(k.groupInfo("t", "g").members()).isEqualTo(1);
                assertThat(calls).isEmpty();
            }
            assertThat(k.groups("t")).isEmpty(); // nothing committed, no live member
        }
    }

    @Test
    void twoMembersKeepTheirRangesWithAFixedConsumerBeside() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(4).build());
            try (Consumer fixed = k.groupConsumer("t", "g", partitions(0));
                 Consumer a = k.groupConsumer("t", "g");
                 Consumer b = k.groupConsumer("t", "g")) {
                for (int i = 0; i < 3; i++) {
                    a.poll(Duration.ofMillis(20));
                    b.poll(Duration.ofMillis(20));
                }
                assertThat(a.assignment()).containsExactly(0, 1);
                assertThat(b.assignment()).containsExactly(2, 3);
                assertThat(fixed.assignment()).containsExactly(0);
                assertThat(k.groupInfo("t", "g").members()).isEqualTo(2);
            }
        }
    }

    @Test
    void seeksPositionsAndCommitsAreRestrictedToTheFixedPartitions() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(3).build());
            fill(k, "t", 4);
            try (Consumer c = k.groupConsumer("t", "g", partitions(0, 2))) {
                assertThatThrownBy(() -> c.seek(1, 0)).isInstanceOf(InvalidPartitionException.class)
                        .hasMessageContaining("not assigned");
                assertThatThrownBy(() -> c.position(1)).isInstanceOf(InvalidPartitionException.class);
                assertThatThrownBy(() -> c.seekToEnd(1)).isInstanceOf(InvalidPartitionException.class);
                assertThatThrownBy(() -> c.commit(Map.of(1, 1L))).isInstanceOf(InvalidPartitionException.class);
                c.seekToEnd();
                assertThat(c.position(0)).isEqualTo(4);
                assertThat(c.position(2)).isEqualTo(4);
                c.seekAll(1);
                assertThat(c.position(0)).isEqualTo(1);
                c.seekToBeginning(2);
                assertThat(c.position(2)).isZero();
                assertThat(c.committed(1)).isEmpty(); // any partition of the topic may be asked about
                List<KafkoRecord> got = Fixtures.pollUntil(c, 7);
                assertThat(partitionsOf(got)).containsExactlyInAnyOrder(0, 2);
                assertThat(got).hasSize(7);
            }
        }
    }

    @Test
    void aPollWaitsWithoutSpinningAndWakesForAnAppendToItsPartition() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            try (Consumer member = k.groupConsumer("t", "g");
                 Consumer c = k.groupConsumer("t", "g", partitions(1))) {
                member.poll(Duration.ofMillis(10));
                CountDownLatch polling = new CountDownLatch(1);
                CompletableFuture<List<KafkoRecord>> got = Fixtures.onNewThread(() -> {
                    polling.countDown();
                    return c.poll(Duration.ofSeconds(10));
                });
                polling.await();
                Thread.sleep(50);
                k.producer("t").sendTo(1, null, bytes("x")).join();
                assertThat(got.get(5, TimeUnit.SECONDS)).extracting(r -> text(r.value())).containsExactly("x");
                // a rebalance of the group (a member leaving) does not wake it into a busy loop
                member.close();
                long start = System.nanoTime();
                assertThat(c.poll(Duration.ofMillis(200))).isEmpty();
                assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(150));
            }
        }
    }

    @Test
    void deleteTopicUnderAPollingFixedConsumerEndsItAsOtherConsumers() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            Consumer anonymous = k.consumer("t", partitions(1));
            Consumer grouped = k.groupConsumer("t", "g", partitions(0));
            CountDownLatch polling = new CountDownLatch(2);
            CompletableFuture<Throwable> first = pollUntilFailure(anonymous, polling);
            CompletableFuture<Throwable> second = pollUntilFailure(grouped, polling);
            polling.await();
            Thread.sleep(50);
            k.deleteTopic("t");
            assertThat(first.get(5, TimeUnit.SECONDS)).isInstanceOf(UnknownTopicException.class);
            assertThat(second.get(5, TimeUnit.SECONDS)).isInstanceOf(UnknownTopicException.class);
            anonymous.close();
            grouped.close();
        }
    }

    private static CompletableFuture<Throwable> pollUntilFailure(Consumer c, CountDownLatch polling) {
        return Fixtures.onNewThread(() -> {
            polling.countDown();
            try {
                for (int i = 0; i < 100; i++) {
                    c.poll(Duration.ofMillis(100));
                }
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
    }

    @Test
    void closingAFixedConsumerReleasesItsWaitersAndIsIdempotent() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            Consumer c = k.groupConsumer("t", "g", partitions(0, 1));
            c.close();
            c.close();
            assertThatThrownBy(c::assignment).isInstanceOf(KafkoClosedException.class);
            Set<Integer> seen = new HashSet<>();
            try (Consumer member = k.groupConsumer("t", "g")) {
                member.poll(Duration.ofMillis(10));
                seen.addAll(member.assignment());
            }
            assertThat(seen).containsExactly(0, 1);
        }
    }
}
