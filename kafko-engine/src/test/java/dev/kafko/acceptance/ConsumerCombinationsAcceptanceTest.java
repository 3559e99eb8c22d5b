package dev.kafko.acceptance;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kafko.Compression;
import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.ConsumerRebalanceListener;
import dev.kafko.GroupInfo;
import dev.kafko.Headers;
import dev.kafko.InvalidPartitionException;
import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.OffsetOutOfRangeException;
import dev.kafko.OutgoingRecord;
import dev.kafko.PartitionInfo;
import dev.kafko.PartitionState;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.UnknownTopicException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Black-box acceptance tests of combinations a user meets and unit tests tend to miss: timestamp seeks on empty,
 * exhausted and out-of-order partitions; what a group member reports before its first poll and after a rebalance;
 * commits and seeks of partitions a member lost; polls with odd timeouts and from two threads; a topic deleted or
 * grown under its consumers; rebalance callbacks that seek, commit, throw or make admin calls; members churning
 * while the topic grows; lag after retention; and the instance closed under a blocked poll. Only names of
 * {@code dev.kafko} are used; waits are for conditions (a thread parked, a log start moved), never for time.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ConsumerCombinationsAcceptanceTest {

    @TempDir
    Path dir;

    static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    static String s(byte[] bytes) {
        return bytes == null ? null : new String(bytes, UTF_8);
    }

    static OutgoingRecord at(String value, long timestamp) {
        return OutgoingRecord.of(null, b(value), Headers.empty(), timestamp);
    }

    static List<KafkoRecord> pollUntil(Consumer c, int count) {
        List<KafkoRecord> out = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (out.size() < count && System.nanoTime() < deadline) {
            out.addAll(c.poll(Duration.ofMillis(100)));
        }
        return out;
    }

    static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(5);
        }
    }

    /** Waits until {@code t} is parked (or has ended): a poll that waits for records, not one still reading. */
    static void awaitParked(Thread t) throws InterruptedException {
        awaitTrue(t.getName() + " parks", () -> {
            Thread.State state = t.getState();
            return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING
                    || state == Thread.State.TERMINATED;
        });
    }

    /** Runs {@code poll} on a thread of its own; the future holds the records or what the poll threw. */
    static CompletableFuture<Object> pollOnThread(Consumer c, Duration timeout, String name, List<Thread> started) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                result.complete(c.poll(timeout));
            } catch (Throwable e) {
                result.complete(e);
            }
        }, name);
        t.setDaemon(true);
        started.add(t);
        t.start();
        return result;
    }

    static Set<Thread> kafkoThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("kafko") && t.isAlive())
                .collect(Collectors.toSet());
    }

    static Map<Integer, List<Long>> offsetsByPartition(List<KafkoRecord> records) {
        Map<Integer, List<Long>> out = new HashMap<>();
        for (KafkoRecord r : records) {
            out.computeIfAbsent(r.partition(), p -> new ArrayList<>()).add(r.offset());
        }
        return out;
    }

    static TopicConfig partitions(int n) {
        return TopicConfig.builder().partitions(n).build();
    }

    /** A rebalance listener that records what it is told and on which thread. */
    static final class Recorder implements ConsumerRebalanceListener {
        final List<String> events = new CopyOnWriteArrayList<>();
        final List<Thread> threads = new CopyOnWriteArrayList<>();

        @Override
        public void onPartitionsRevoked(Collection<Integer> partitions) {
            events.add("revoked " + new TreeSet<>(partitions));
            threads.add(Thread.currentThread());
        }

        @Override
        public void onPartitionsAssigned(Collection<Integer> partitions) {
            events.add("assigned " + new TreeSet<>(partitions));
            threads.add(Thread.currentThread());
        }
    }

    @Nested
    class TimestampSeeks {

        @Test
        void aTimestampSeekPutsAnEmptyPartitionAtZeroAndItsNextRecordIsReadWhateverItsTime() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", partitions(3));
                Producer p = k.producer("t");
                p.sendBatchTo(1, List.of(at("a", 100), at("b", 200), at("c", 300))).join();
                try (Consumer c = k.consumer("t")) {
                    c.seekToTimestamp(150);
                    assertThat(c.position(0)).isZero();
                    assertThat(c.position(1)).isEqualTo(1);
                    assertThat(c.position(2)).isZero();
                    p.sendTo(0, OutgoingRecord.of(null, b("old"), Headers.empty(), 50)).join();
                    List<KafkoRecord> read = pollUntil(c, 3);
                    assertThat(read).extracting(r -> r.partition() + ":" + r.offset() + ":" + s(r.value()))
                            .containsExactlyInAnyOrder("0:0:old", "1:1:b", "1:2:c");
                }
            }
        }

        @Test
        void aTimestampPastTheLastRecordMovesToTheEndAndAnOlderRecordSentAfterTheSeekIsRead() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                Producer p = k.producer("t");
                p.sendBatch(List.of(at("a", 100), at("b", 200), at("c", 300))).join();
                try (Consumer c = k.consumer("t")) {
                    c.seekToTimestamp(301);
                    assertThat(c.position(0)).isEqualTo(3);
                    assertThat(c.poll(Duration.ZERO)).isEmpty();
                    c.seekToTimestamp(0, Long.MAX_VALUE);
                    assertThat(c.position(0)).isEqualTo(3);
                    p.send(OutgoingRecord.of(null, b("late"), Headers.empty(), 10)).join();
                    assertThat(pollUntil(c, 1)).extracting(r -> r.offset() + ":" + s(r.value()))
                            .containsExactly("3:late");
                }
            }
        }

        @Test
        void outOfOrderTimestampsAcrossAndInsideFramesSeekToTheFirstOffsetAtOrAfterTheTime() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                Producer p = k.producer("t");
                // offsets 0..3 in one frame, 4..5 single frames: 100, 50, 300, 200, 400, 250
                p.sendBatch(List.of(at("0", 100), at("1", 50), at("2", 300), at("3", 200))).join();
                p.send(at("4", 400)).join();
                p.send(at("5", 250)).join();
                long[] stamps = {100, 50, 300, 200, 400, 250};
                try (Consumer c = k.consumer("t")) {
                    for (long target : new long[] {0, 50, 51, 100, 101, 200, 201, 250, 251, 300, 301, 400, 401}) {
                        long expected = stamps.length;
                        for (int i = 0; i < stamps.length; i++) {
                            if (stamps[i] >= target) {
                                expected = i;
                                break;
                            }
                        }
                        c.seekToTimestamp(target);
                        assertThat(c.position(0)).as("target %d", target).isEqualTo(expected);
                        List<KafkoRecord> read = c.poll(Duration.ZERO);
                        if (expected < stamps.length) {
                            assertThat(read).as("target %d", target).isNotEmpty();
                            assertThat(read.get(0).offset()).as("target %d", target).isEqualTo(expected);
                        } else {
                            assertThat(read).as("target %d", target).isEmpty();
                        }
                    }
                }
            }
        }

        @Test
        void timestampSeeksOfAPartitionTheConsumerDoesNotReadAreInvalidPartition() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", partitions(2));
                try (Consumer c = k.consumer("t", ConsumerOptions.DEFAULTS.withPartitions(Set.of(1)))) {
                    assertThatThrownBy(() -> c.seekToTimestamp(0, 10)).isInstanceOf(InvalidPartitionException.class);
                    assertThatThrownBy(() -> c.seekToTimestamp(5, 10)).isInstanceOf(InvalidPartitionException.class);
                    assertThatThrownBy(() -> c.seekToTimestamp(-1, 10)).isInstanceOf(InvalidPartitionException.class);
                    assertThatThrownBy(() -> c.seekToTimestamp(1, -5)).isInstanceOf(IllegalArgumentException.class);
                    c.seekToTimestamp(10);
                    assertThat(c.assignment()).containsExactly(1);
                    assertThat(c.position(1)).isZero();
                }
            }
        }
    }

    @Nested
    class GroupMembersBeforeAndAfterARebalance {

        @Test
        void aMemberReportsItsAssignmentAndCommittedPositionsConsistentlyBeforeItsFirstPoll() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", partitions(2));
                Producer p = k.producer("t");
                for (int i = 0; i < 5; i++) {
                    p.sendTo(0, null, b("a" + i)).join();
                    p.sendTo(1, null, b("b" + i)).join();
                }
                try (Consumer first = k.groupConsumer("t", "g")) {
                    first.commit(Map.of(0, 2L, 1, 3L));
                }
                try (Consumer m = k.groupConsumer("t", "g")) {
                    Set<Integer> before = m.assignment();
                    for (int partition = 0; partition < 2; partition++) {
                        int pp = partition;
                        if (before.contains(partition)) {
                            assertThat(m.position(partition)).isEqualTo(partition == 0 ? 2 : 3);
                        } else {
                            assertThatThrownBy(() -> m.position(pp)).isInstanceOf(InvalidPartitionException.class);
                        }
                    }
                    List<KafkoRecord> read = pollUntil(m, 5);
                    assertThat(m.assignment()).containsExactlyInAnyOrder(0, 1);
                    assertThat(offsetsByPartition(read)).isEqualTo(Map.of(0, List.of(2L, 3L, 4L), 1, List.of(3L, 4L)));
                }
            }
        }

        @Test
        void aJoiningMemberNeverSharesAPartitionAndTheRevokingMembersCommitIsWhereTheNewOwnerStarts() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", partitions(2));
                Producer p = k.producer("t");
                for (int i = 0; i < 6; i++) {
                    p.sendTo(0, null, b("a" + i)).join();
                    p.sendTo(1, null, b("b" + i)).join();
                }
                Recorder firstEvents = new Recorder();
                AtomicReferenceHolder<Consumer> firstRef = new AtomicReferenceHolder<>();
                ConsumerRebalanceListener committing = new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<Integer> partitions) {
                        firstEvents.onPartitionsRevoked(partitions);
                        firstRef.value.commit();
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<Integer> partitions) {
                        firstEvents.onPartitionsAssigned(partitions);
                    }
                };
                Consumer first = k.groupConsumer("t", "g",
                        ConsumerOptions.DEFAULTS.withMaxPollRecords(3).withRebalanceListener(committing));
                firstRef.value = first;
                List<KafkoRecord> firstRead = new ArrayList<>(pollUntil(first, 3));
                assertThat(first.assignment()).containsExactlyInAnyOrder(0, 1);
                Map<Integer, Long> firstPositions = Map.of(0, first.position(0), 1, first.position(1));

                Recorder secondEvents = new Recorder();
                Consumer second = k.groupConsumer("t", "g",
                        ConsumerOptions.DEFAULTS.withRebalanceListener(secondEvents));
                assertThat(second.assignment()).as("before the first member hands anything over")
                        .doesNotContainAnyElementsOf(first.assignment());

                firstRead.addAll(first.poll(Duration.ZERO));
                assertThat(first.assignment()).hasSize(1);
                int lost = first.assignment().contains(0) ? 1 : 0;
                assertThatThrownBy(() -> first.position(lost)).isInstanceOf(InvalidPartitionException.class);
                assertThat(firstEvents.threads).allMatch(t -> t == Thread.currentThread());
                assertThat(firstEvents.events).contains("revoked [" + lost + "]");

                List<KafkoRecord> secondRead = pollUntil(second, 1);
                assertThat(second.assignment()).containsExactly(lost);
                assertThat(second.assignment()).doesNotContainAnyElementsOf(first.assignment());
                assertThat(secondEvents.events).containsExactly("assigned [" + lost + "]");
                assertThat(secondEvents.threads).allMatch(t -> t == Thread.currentThread());
                long firstOffsetOfSecond = secondRead.get(0).offset();
                assertThat(firstOffsetOfSecond).as("the new owner starts where the revoking member committed")
                        .isEqualTo(firstPositions.get(lost));
                first.close();
                second.close();
            }
        }

        @Test
        void aMemberThatLostAPartitionCommitsOnlyWhatItStillOwnsAndCannotCommitOrSeekTheLostOne() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", partitions(2));
                Producer p = k.producer("t");
                for (int i = 0; i < 5; i++) {
                    p.sendTo(0, null, b("a" + i)).join();
                    p.sendTo(1, null, b("b" + i)).join();
                }
                Consumer first = k.groupConsumer("t", "g");
                assertThat(pollUntil(first, 10)).hasSize(10);
                Consumer second = k.groupConsumer("t", "g");
                first.poll(Duration.ZERO); // hands a partition over, without committing it
                int lost = first.assignment().contains(0) ? 1 : 0;
                int kept = 1 - lost;
                List<KafkoRecord> secondRead = pollUntil(second, 5);
                assertThat(second.assignment()).containsExactly(lost);
                assertThat(secondRead).as("no commit: the reset policy, earliest").extracting(KafkoRecord::offset)
                        .containsExactly(0L, 1L, 2L, 3L, 4L);
                second.seek(lost, 2);
                second.commit();

                first.commit();
                assertThat(first.committed(lost)).isEqualTo(OptionalLong.of(2));
                assertThat(first.committed(kept)).isEqualTo(OptionalLong.of(5));
                assertThatThrownBy(() -> first.commit(Map.of(lost, 5L))).isInstanceOf(InvalidPartitionException.class);
                assertThatThrownBy(() -> first.seek(lost, 0)).isInstanceOf(InvalidPartitionException.class);
                assertThatThrownBy(() -> first.seekToBeginning(lost)).isInstanceOf(InvalidPartitionException.class);
                assertThatThrownBy(() -> first.seekToEnd(lost)).isInstanceOf(InvalidPartitionException.class);
                assertThatThrownBy(() -> first.seekToTimestamp(lost, 0)).isInstanceOf(InvalidPartitionException.class);
                assertThat(k.groupInfo("t", "g").committed()).isEqualTo(Map.of(lost, 2L, kept, 5L));
                first.close();
                second.close();
                assertThat(k.groupInfo("t", "g").committed()).isEqualTo(Map.of(lost, 2L, kept, 5L));
            }
        }

        @Test
        void aMemberWithoutPartitionsPollsNothingRefusesPositionsAndItsCommitChangesNothing() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                Producer p = k.producer("t");
                for (int i = 0; i < 4; i++) {
                    p.send(null, b("v" + i)).join();
                }
                Consumer owner = k.groupConsumer("t", "g");
                assertThat(pollUntil(owner, 4)).hasSize(4);
                owner.commit(Map.of(0, 3L));
                try (Consumer idle = k.groupConsumer("t", "g")) {
                    assertThat(idle.poll(Duration.ZERO)).isEmpty();
                    assertThat(idle.assignment()).isEmpty();
                    assertThatThrownBy(() -> idle.position(0)).isInstanceOf(InvalidPartitionException.class);
                    idle.seekToBeginning();
                    idle.seekToEnd();
                    idle.seekAll(1);
                    idle.seekToTimestamp(0);
                    idle.commit();
                    assertThat(idle.committed(0)).isEqualTo(OptionalLong.of(3));
                    assertThat(k.groupInfo("t", "g").members()).isEqualTo(2);
                    owner.close();
                    assertThat(pollUntil(idle, 1)).extracting(KafkoRecord::offset).containsExactly(3L);
                    assertThat(idle.assignment()).containsExactly(0);
                }
            }
        }
    }

    /** A plain holder for a value set after a lambda that reads it is made. */
    static final class AtomicReferenceHolder<T> {
        volatile T value;
    }

    @Nested
    class PollTimeoutsAndThreads {

        @Test
        void zeroAndNegativeTimeoutsAndANullOne() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                try (Consumer c = k.groupConsumer("t", "g")) {
                    assertThat(c.poll(Duration.ZERO)).isEmpty();
                    assertThat(c.poll(Duration.ofNanos(1))).isEmpty();
                    assertThatThrownBy(() -> c.poll(Duration.ofNanos(-1))).isInstanceOf(IllegalArgumentException.class);
                    assertThatThrownBy(() -> c.poll(Duration.ofSeconds(-1)))
                            .isInstanceOf(IllegalArgumentException.class);
                    assertThatThrownBy(() -> c.poll(null)).isInstanceOf(NullPointerException.class);
                    k.producer("t").send(null, b("x")).join();
                    assertThat(c.poll(Duration.ZERO)).extracting(r -> s(r.value())).containsExactly("x");
                }
            }
        }

        @Test
        void aSecondThreadIsRefusedWhileAPollWaitsAndTheConsumerWorksAfterAWakeup() throws Exception {
            List<Thread> threads = new ArrayList<>();
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", partitions(2));
                Consumer c = k.groupConsumer("t", "g");
                CompletableFuture<Object> polled = pollOnThread(c, Duration.ofMinutes(5), "poller", threads);
                awaitParked(threads.get(0));
                assertThatThrownBy(() -> c.position(0)).isInstanceOf(ConcurrentModificationException.class);
                assertThatThrownBy(() -> c.seek(0, 0)).isInstanceOf(ConcurrentModificationException.class);
                assertThatThrownBy(() -> c.commit()).isInstanceOf(ConcurrentModificationException.class);
                assertThatThrownBy(() -> c.assignment()).isInstanceOf(ConcurrentModificationException.class);
                assertThatThrownBy(() -> c.poll(Duration.ZERO)).isInstanceOf(ConcurrentModificationException.class);
                c.wakeup();
                assertThat(polled.get(10, TimeUnit.SECONDS)).isEqualTo(List.of());
                threads.get(0).join(10_000);
                k.producer("t").sendTo(1, null, b("x")).join();
                assertThat(pollUntil(c, 1)).extracting(r -> r.partition() + ":" + r.offset()).containsExactly("1:0");
                c.commit();
                assertThat(c.committed(1)).isEqualTo(OptionalLong.of(1));
                c.close();
            }
        }
    }

    @Nested
    class DeletedUnderUse {

        @Test
        void aTopicDeletedUnderAPollingMemberAndASendingProducerGivesEachUnknownTopic() throws Exception {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", partitions(2));
                Producer p = k.producer("t");
                Consumer c = k.groupConsumer("t", "g");
                AtomicBoolean stop = new AtomicBoolean();
                AtomicLong read = new AtomicLong();
                CompletableFuture<Throwable> consumerEnd = new CompletableFuture<>();
                CompletableFuture<Throwable> producerEnd = new CompletableFuture<>();
                AtomicInteger acknowledged = new AtomicInteger();
                Thread consumer = new Thread(() -> {
                    try {
                        while (!stop.get()) {
                            read.addAndGet(c.poll(Duration.ofSeconds(5)).size());
                        }
                        consumerEnd.complete(null);
                    } catch (Throwable e) {
                        consumerEnd.complete(e);
                    }
                }, "consumer");
                Thread producer = new Thread(() -> {
                    try {
                        long i = 0;
                        while (!stop.get()) {
                            p.send(b("k" + (i % 7)), b("v" + i++)).join();
                            acknowledged.incrementAndGet();
                        }
                        producerEnd.complete(null);
                    } catch (Throwable e) {
                        producerEnd.complete(e);
                    }
                }, "producer");
                consumer.start();
                producer.start();
                awaitTrue("records flow", () -> read.get() > 200);
                k.deleteTopic("t");
                Throwable consumerFailure = consumerEnd.get(10, TimeUnit.SECONDS);
                Throwable producerFailure = producerEnd.get(10, TimeUnit.SECONDS);
                stop.set(true);
                consumer.join(10_000);
                producer.join(10_000);
                assertThat(consumerFailure).isInstanceOf(UnknownTopicException.class).hasMessageContaining("t");
                Throwable producerCause = producerFailure instanceof CompletionException ? producerFailure.getCause()
                        : producerFailure;
                assertThat(producerCause).isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(() -> p.send(null, b("after"))).isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(() -> c.poll(Duration.ZERO)).isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(() -> c.commit()).isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(() -> k.groupInfo("t", "g")).isInstanceOf(UnknownTopicException.class);
                c.close();
                k.createTopic("t", partitions(2));
                assertThatThrownBy(() -> c.poll(Duration.ZERO)).isInstanceOf(KafkoClosedException.class);
                assertThatThrownBy(() -> p.send(null, b("again"))).isInstanceOf(UnknownTopicException.class);
                assertThat(k.groups("t")).isEmpty();
                assertThat(k.topic("t").orElseThrow().partitions()).allMatch(pi -> pi.endOffset() == 0);
            }
        }

        @Test
        void aMemberParkedOnAnIdlePartitionlessSeatEndsWithUnknownTopicWhenTheTopicIsDeleted() throws Exception {
            List<Thread> threads = new ArrayList<>();
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                Consumer owner = k.groupConsumer("t", "g");
                owner.poll(Duration.ZERO);
                Consumer idle = k.groupConsumer("t", "g");
                CompletableFuture<Object> polled = pollOnThread(idle, Duration.ofMinutes(5), "idle", threads);
                awaitParked(threads.get(0));
                k.deleteTopic("t");
                assertThat(polled.get(10, TimeUnit.SECONDS)).isInstanceOf(UnknownTopicException.class);
                owner.close();
                idle.close();
            }
        }
    }

    @Nested
    class GrowingTopics {

        @Test
        void partitionsAddedWhileTwoMembersConsumeAreSharedAndEveryRecordIsReadOnce() {
            try (Kafko k = Kafko.open(dir)) {
                Topic topic = k.createTopic("t", partitions(2));
                Producer p = k.producer("t");
                Recorder aEvents = new Recorder();
                Recorder bEvents = new Recorder();
                Consumer a = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withRebalanceListener(aEvents));
                a.poll(Duration.ZERO);
                Consumer b = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withRebalanceListener(bEvents));
                a.poll(Duration.ZERO);
                b.poll(Duration.ZERO);
                assertThat(a.assignment()).hasSize(1);
                assertThat(b.assignment()).hasSize(1);

                topic.increasePartitions(4);
                assertThat(p.partitionCount()).isEqualTo(4);
                Map<Integer, List<String>> sent = new HashMap<>();
                for (int partition = 0; partition < 4; partition++) {
                    for (int i = 0; i < 3; i++) {
                        p.sendTo(partition, null, b(partition + "-" + i)).join();
                        sent.computeIfAbsent(partition, x -> new ArrayList<>()).add(partition + "-" + i);
                    }
                }
                List<KafkoRecord> readA = new ArrayList<>();
                List<KafkoRecord> readB = new ArrayList<>();
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (readA.size() + readB.size() < 12 && System.nanoTime() < deadline) {
                    readA.addAll(a.poll(Duration.ofMillis(20)));
                    readB.addAll(b.poll(Duration.ofMillis(20)));
                    Set<Integer> overlap = new HashSet<>(a.assignment());
                    overlap.retainAll(b.assignment());
                    assertThat(overlap).as("partitions owned by both").isEmpty();
                }
                Set<Integer> union = new HashSet<>(a.assignment());
                union.addAll(b.assignment());
                assertThat(union).containsExactlyInAnyOrder(0, 1, 2, 3);
                assertThat(a.assignment()).hasSize(2);
                Map<Integer, List<String>> got = new HashMap<>();
                for (KafkoRecord r : readA) {
                    assertThat(a.assignment()).contains(r.partition());
                    got.computeIfAbsent(r.partition(), x -> new ArrayList<>()).add(s(r.value()));
                }
                for (KafkoRecord r : readB) {
                    assertThat(b.assignment()).contains(r.partition());
                    got.computeIfAbsent(r.partition(), x -> new ArrayList<>()).add(s(r.value()));
                }
                assertThat(got).isEqualTo(sent);
                // range assignment over the grown topic moves partition 1 from the second member to the first
                assertThat(aEvents.events).containsExactly("assigned [0, 1]", "revoked [1]", "assigned [1]");
                assertThat(bEvents.events).containsExactly("assigned [1]", "revoked [1]", "assigned [2, 3]");
                a.close();
                b.close();
            }
        }

        @Test
        void aReopenAfterGrowingKeepsTheCountTheRoutingTheRecordsAndTheCommitsOfTheNewPartitions() {
            Map<String, Integer> routes = new HashMap<>();
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t").increasePartitions(3);
                Producer p = k.producer("t");
                for (int i = 0; i < 30; i++) {
                    String key = "key-" + i;
                    RecordPosition pos = p.send(b(key), b("v" + i)).join();
                    assertThat(pos.partition()).isEqualTo(p.partitionFor(b(key)));
                    routes.put(key, pos.partition());
                }
                assertThat(routes.values()).contains(0, 1, 2);
                try (Consumer c = k.groupConsumer("t", "g")) {
                    assertThat(pollUntil(c, 30)).hasSize(30);
                    c.commit();
                }
            }
            try (Kafko k = Kafko.open(dir)) {
                Topic t = k.topic("t").orElseThrow();
                assertThat(t.partitionCount()).isEqualTo(3);
                assertThat(t.config().partitions()).isEqualTo(3);
                Producer p = k.producer("t");
                routes.forEach((key, partition) -> assertThat(p.partitionFor(b(key))).as(key).isEqualTo(partition));
                long total = t.partitions().stream().mapToLong(PartitionInfo::endOffset).sum();
                assertThat(total).isEqualTo(30);
                GroupInfo info = k.groupInfo("t", "g");
                assertThat(info.committed().keySet()).containsExactlyInAnyOrder(0, 1, 2);
                assertThat(info.lag().values()).allMatch(l -> l == 0);
                p.send(b("key-0"), b("after")).join();
                try (Consumer c = k.groupConsumer("t", "g")) {
                    assertThat(pollUntil(c, 1)).extracting(r -> s(r.value())).containsExactly("after");
                }
                t.increasePartitions(5);
            }
            try (Kafko k = Kafko.open(dir)) {
                assertThat(k.topic("t").orElseThrow().partitionCount()).isEqualTo(5);
            }
        }
    }

    @Nested
    class LagAfterRetention {

        @Test
        void lagCountsFromTheLogStartOnceRetentionDeletedWhatTheGroupNeverRead() throws Exception {
            KafkoOptions options = KafkoOptions.builder().retentionCheckInterval(Duration.ofMillis(20)).build();
            try (Kafko k = Kafko.open(dir, options)) {
                Topic t = k.createTopic("t", TopicConfig.builder().segmentBytes(1024).retentionBytes(2048).build());
                try (Consumer c = k.groupConsumer("t", "g")) {
                    c.commit(Map.of(0, 1L));
                }
                Producer p = k.producer("t");
                for (int i = 0; i < 200; i++) {
                    p.send(null, b("value-" + "x".repeat(40) + i)).join();
                }
                awaitTrue("retention deletes segments", () -> t.partition(0).logStartOffset() > 1);
                awaitTrue("retention settles", () -> t.partition(0).sizeBytes() <= 4096);
                PartitionInfo info = t.partition(0);
                GroupInfo group = k.groupInfo("t", "g");
                assertThat(group.committed()).isEqualTo(Map.of(0, 1L));
                assertThat(group.lag()).isEqualTo(Map.of(0, info.endOffset() - info.logStartOffset()));
                try (Consumer c = k.groupConsumer("t", "g")) {
                    List<KafkoRecord> read = c.poll(Duration.ofSeconds(1));
                    assertThat(read).isNotEmpty();
                    assertThat(read.get(0).offset()).isGreaterThanOrEqualTo(info.logStartOffset());
                    c.commit();
                    long position = c.position(0);
                    assertThat(k.groupInfo("t", "g").lag()).isEqualTo(Map.of(0, t.partition(0).endOffset() - position));
                }
            }
        }
    }

    @Nested
    class InstanceClosedUnderABlockedPoll {

        @Test
        void closeEndsBlockedPollsOfEveryKindPromptlyAndLeavesNoKafkoThread() throws Exception {
            Set<Thread> before = kafkoThreads();
            List<Thread> threads = new ArrayList<>();
            Kafko k = Kafko.open(dir);
            k.createTopic("t");
            Consumer anonymous = k.consumer("t");
            Consumer owner = k.groupConsumer("t", "g");
            owner.poll(Duration.ZERO);
            Consumer idle = k.groupConsumer("t", "g");
            Consumer fixed = k.consumer("t", ConsumerOptions.DEFAULTS.withPartitions(Set.of(0)));
            List<CompletableFuture<Object>> polls = List.of(
                    pollOnThread(anonymous, Duration.ofDays(1), "anonymous", threads),
                    pollOnThread(owner, Duration.ofDays(1), "owner", threads),
                    pollOnThread(idle, Duration.ofDays(1), "idle", threads),
                    pollOnThread(fixed, Duration.ofDays(1), "fixed", threads));
            for (Thread t : threads) {
                awaitParked(t);
            }
            k.close();
            for (CompletableFuture<Object> poll : polls) {
                assertThat(poll.get(10, TimeUnit.SECONDS)).isInstanceOf(KafkoClosedException.class);
            }
            for (Thread t : threads) {
                t.join(10_000);
                assertThat(t.isAlive()).as(t.getName()).isFalse();
            }
            for (Consumer c : List.of(anonymous, owner, idle, fixed)) {
                assertThatThrownBy(() -> c.poll(Duration.ZERO)).isInstanceOf(KafkoClosedException.class);
                c.close();
            }
            awaitTrue("no kafko thread is left", () -> {
                Set<Thread> now = kafkoThreads();
                now.removeAll(before);
                return now.isEmpty();
            });
            try (Kafko again = Kafko.open(dir)) {
                assertThat(again.topics()).containsExactly("t");
            }
        }

        @Test
        void aPollStartedAfterCloseFailsAtOnceEvenWithALongTimeout() {
            Kafko k = Kafko.open(dir);
            k.createTopic("t");
            Consumer c = k.groupConsumer("t", "g");
            k.close();
            long start = System.nanoTime();
            assertThatThrownBy(() -> c.poll(Duration.ofDays(1))).isInstanceOf(KafkoClosedException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
            assertThatThrownBy(() -> c.position(0)).isInstanceOf(KafkoClosedException.class);
            assertThatThrownBy(() -> c.assignment()).isInstanceOf(KafkoClosedException.class);
            assertThatThrownBy(() -> c.commit()).isInstanceOf(KafkoClosedException.class);
            c.close();
        }
    }

    @Nested
    class TimestampSeeksOverSealedAndDeletedSegments {

        @ParameterizedTest
        @EnumSource(Compression.class)
        void outOfOrderBatchesAgreeWithBruteForceLiveAfterAReopenAndAfterRetention(Compression codec)
                throws Exception {
            assumeTrue(codec.isAvailable());
            Random random = new Random(42);
            List<Long> stamps = new ArrayList<>();
            TopicConfig config = TopicConfig.builder().compression(codec).segmentBytes(1024).indexIntervalBytes(64)
                    .build();
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", config);
                Producer p = k.producer("t");
                for (int f = 0; f < 120; f++) {
                    if (random.nextInt(3) == 0) {
                        long t = 1000 + 10L * random.nextInt(100);
                        stamps.add(t);
                        p.send(at("s" + stamps.size() + "-" + "x".repeat(random.nextInt(60)), t)).join();
                        continue;
                    }
                    List<OutgoingRecord> batch = new ArrayList<>();
                    int n = 1 + random.nextInt(5);
                    for (int i = 0; i < n; i++) {
                        long t = 1000 + 10L * random.nextInt(100);
                        stamps.add(t);
                        batch.add(at("b" + stamps.size() + "-" + "y".repeat(random.nextInt(60)), t));
                    }
                    p.sendBatch(batch).join();
                }
                try (Consumer c = k.consumer("t")) {
                    assertSeeksAsBruteForce(c, stamps, () -> 0L);
                }
            }
            try (Kafko k = Kafko.open(dir)) {
                assertThat(k.topic("t").orElseThrow().partition(0).segmentCount()).isGreaterThan(4);
                try (Consumer c = k.consumer("t")) {
                    assertSeeksAsBruteForce(c, stamps, () -> 0L);
                }
            }
            // the same records in a topic whose retention deletes its oldest segments
            Path retained = dir.resolve("retained");
            try (Kafko k = Kafko.open(retained, KafkoOptions.builder().retentionCheckInterval(Duration.ofMillis(20))
                    .build())) {
                Topic t = k.createTopic("t", config.toBuilder().retentionBytes(3 * 1024).build());
                Producer p = k.producer("t");
                List<Long> copy = new ArrayList<>();
                for (long stamp : stamps) {
                    copy.add(stamp);
                    p.send(at("r" + copy.size() + "-" + "z".repeat(40), stamp)).join();
                }
                awaitTrue("retention deletes the oldest segments", () -> t.partition(0).logStartOffset() > 0);
                try (Consumer c = k.consumer("t")) {
                    assertSeeksAsBruteForce(c, copy, () -> t.partition(0).logStartOffset());
                }
            }
        }

        /**
         * Every timestamp in and around {@code stamps}, each checked against the first offset from the log start (read
         * before and after each seek: retention may move it meanwhile, and the seek is then made again).
         */
        void assertSeeksAsBruteForce(Consumer c, List<Long> stamps, LongSupplier logStart) {
            Set<Long> targets = new TreeSet<>();
            for (long t : stamps) {
                targets.add(t - 1);
                targets.add(t);
                targets.add(t + 1);
            }
            targets.add(0L);
            targets.add(Long.MAX_VALUE);
            for (long target : targets) {
                long start;
                long position;
                do {
                    start = logStart.getAsLong();
                    c.seekToTimestamp(target);
                    position = c.position(0);
                } while (start != logStart.getAsLong());
                long expected = stamps.size();
                for (int i = (int) start; i < stamps.size(); i++) {
                    if (stamps.get(i) >= target) {
                        expected = i;
                        break;
                    }
                }
                assertThat(position).as("target %d from log start %d", target, start).isEqualTo(expected);
            }
        }
    }

    @Nested
    class CallbacksMeetingCloseAndDelete {

        /**
         * What the poll of a member of group g on topic t ends with when {@code action} runs (within 10 s) while the
         * member waits inside its assign callback.
         */
        private Object pollEndedWhileInAssignCallback(Kafko k, Runnable action) throws Exception {
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Consumer m = k.groupConsumer("t", "g",
                    ConsumerOptions.DEFAULTS.withRebalanceListener(blockingOnAssign(entered, release)));
            CompletableFuture<Object> polled = pollOnThread(m, Duration.ofDays(1), "member", new ArrayList<>());
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Void> acting = CompletableFuture.runAsync(action);
            try {
                acting.get(10, TimeUnit.SECONDS);
            } finally {
                release.countDown();
            }
            Object ended = polled.get(10, TimeUnit.SECONDS);
            m.close();
            return ended;
        }

        /** Opens {@code entered} in its assign callback, then waits there until {@code release} opens. */
        private static ConsumerRebalanceListener blockingOnAssign(CountDownLatch entered, CountDownLatch release) {
            return new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsAssigned(Collection<Integer> partitions) {
                    entered.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            };
        }

        @Test
        void theInstanceClosesWhileAMemberWaitsInsideItsAssignCallbackAndThatPollEndsTyped() throws Exception {
            Kafko k = Kafko.open(dir);
            k.createTopic("t");
            assertThat(pollEndedWhileInAssignCallback(k, k::close)).isInstanceOf(KafkoClosedException.class);
        }

        @Test
        void theInstanceClosedFromAnAssignCallbackEndsThatPollWithKafkoClosed() {
            Kafko k = Kafko.open(dir);
            k.createTopic("t");
            k.producer("t").send(null, b("x")).join();
            ConsumerRebalanceListener closing = new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsAssigned(Collection<Integer> partitions) {
                    k.close();
                }
            };
            Consumer m = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withRebalanceListener(closing));
            assertThatThrownBy(() -> m.poll(Duration.ofSeconds(5))).isInstanceOf(KafkoClosedException.class);
            m.close();
            try (Kafko again = Kafko.open(dir)) {
                assertThat(again.topic("t").orElseThrow().partition(0).endOffset()).isEqualTo(1);
            }
        }

        @Test
        void aTopicDeletedWhileAMemberWaitsInsideItsAssignCallbackEndsThatPollWithUnknownTopic() throws Exception {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                assertThat(pollEndedWhileInAssignCallback(k, () -> k.deleteTopic("t")))
                        .isInstanceOf(UnknownTopicException.class);
            }
        }

        @Test
        void aMemberClosingCommitsFromItsRevokeCallbackAndTheMemberThatTakesOverStartsThere() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                Producer p = k.producer("t");
                for (int i = 0; i < 10; i++) {
                    p.send(null, b("v" + i)).join();
                }
                AtomicReferenceHolder<Consumer> self = new AtomicReferenceHolder<>();
                List<String> told = new CopyOnWriteArrayList<>();
                ConsumerRebalanceListener committing = new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<Integer> partitions) {
                        told.add("revoked " + partitions);
                        self.value.commit();
                    }
                };
                Consumer a = k.groupConsumer("t", "g",
                        ConsumerOptions.DEFAULTS.withMaxPollRecords(4).withRebalanceListener(committing));
                self.value = a;
                Consumer b = k.groupConsumer("t", "g");
                assertThat(pollUntil(a, 4)).hasSize(4);
                assertThat(b.poll(Duration.ZERO)).isEmpty();
                a.close();
                assertThat(told).containsExactly("revoked [0]");
                assertThat(pollUntil(b, 6)).extracting(KafkoRecord::offset).containsExactly(4L, 5L, 6L, 7L, 8L, 9L);
                b.close();
            }
        }

        @Test
        void anIdleMemberWaitingInPollTakesAPartitionAddedMeanwhileAndReadsItsRecordInThatPoll() throws Exception {
            try (Kafko k = Kafko.open(dir)) {
                Topic t = k.createTopic("t");
                Consumer owner = k.groupConsumer("t", "g");
                owner.poll(Duration.ZERO);
                Consumer idle = k.groupConsumer("t", "g");
                List<Thread> threads = new ArrayList<>();
                CompletableFuture<Object> polled = pollOnThread(idle, Duration.ofDays(1), "idle", threads);
                awaitParked(threads.get(0));
                t.increasePartitions(2);
                k.producer("t").sendTo(1, null, b("new")).join();
                Object result = polled.get(10, TimeUnit.SECONDS);
                assertThat(result).isInstanceOf(List.class);
                @SuppressWarnings("unchecked")
                List<KafkoRecord> records = (List<KafkoRecord>) result;
                assertThat(records).extracting(r -> r.partition() + ":" + s(r.value())).containsExactly("1:new");
                assertThat(idle.assignment()).containsExactly(1);
                owner.poll(Duration.ZERO);
                assertThat(owner.assignment()).containsExactly(0);
                owner.close();
                idle.close();
            }
        }
    }

    @Nested
    class CallbacksThatUseTheConsumer {

        @Test
        void seeksFromTheAssignCallbackTakeEffectInThatPollAndCommitsFromTheRevokeCallbackNameThePartition() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", partitions(2));
                Producer p = k.producer("t");
                for (int i = 0; i < 6; i++) {
                    p.sendTo(0, at("a" + i, 1000 + i)).join();
                    p.sendTo(1, at("b" + i, 1000 + i)).join();
                }
                AtomicReferenceHolder<Consumer> self = new AtomicReferenceHolder<>();
                List<String> seen = new CopyOnWriteArrayList<>();
                ConsumerRebalanceListener listener = new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsAssigned(Collection<Integer> partitions) {
                        Consumer c = self.value;
                        for (int partition : partitions) {
                            seen.add("assigned " + partition + " at " + c.position(partition));
                            if (partition == 0) {
                                c.seek(0, 4);
                            } else {
                                c.seekToTimestamp(partition, 1003);
                            }
                        }
                    }

                    @Override
                    public void onPartitionsRevoked(Collection<Integer> partitions) {
                        Consumer c = self.value;
                        Map<Integer, Long> offsets = new HashMap<>();
                        for (int partition : partitions) {
                            offsets.put(partition, c.position(partition) - 1);
                        }
                        c.commit(offsets);
                        seen.add("revoked " + offsets);
                    }
                };
                Consumer a = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withRebalanceListener(listener));
                self.value = a;
                List<KafkoRecord> first = a.poll(Duration.ZERO);
                assertThat(seen).containsExactly("assigned 0 at 0", "assigned 1 at 0");
                assertThat(offsetsByPartition(first).get(0)).first().isEqualTo(4L);
                assertThat(offsetsByPartition(first).get(1)).first().isEqualTo(3L);
                assertThat(first).hasSize(5);
                assertThat(a.position(0)).isEqualTo(6);
                assertThat(a.position(1)).isEqualTo(6);
                try (Consumer b = k.groupConsumer("t", "g")) {
                    a.poll(Duration.ZERO);
                    assertThat(seen).contains("revoked {1=5}");
                    assertThat(b.poll(Duration.ZERO)).extracting(r -> r.partition() + ":" + r.offset())
                            .containsExactly("1:5");
                }
                a.close();
            }
        }

        @Test
        void aThrowingAssignCallbackFailsThatPollButTheMemberKeepsItsPartitionsAndReadsThemNext() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                k.producer("t").send(null, b("x")).join();
                AtomicInteger calls = new AtomicInteger();
                ConsumerRebalanceListener throwing = new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsAssigned(Collection<Integer> partitions) {
                        if (calls.getAndIncrement() == 0) {
                            throw new IllegalStateException("listener failed");
                        }
                    }
                };
                try (Consumer c = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withRebalanceListener(throwing))) {
                    assertThatThrownBy(() -> c.poll(Duration.ZERO)).hasMessageContaining("listener failed");
                    assertThat(c.assignment()).containsExactly(0);
                    assertThat(pollUntil(c, 1)).extracting(r -> s(r.value())).containsExactly("x");
                    try (Consumer other = k.groupConsumer("t", "g")) {
                        assertThat(other.poll(Duration.ZERO)).isEmpty();
                        assertThat(other.assignment()).isEmpty();
                    }
                }
            }
        }

        @Test
        void adminCallsFromRebalanceCallbacksGoThroughAndThePollReportsTheirOutcome() {
            try (Kafko k = Kafko.open(dir)) {
                Topic t = k.createTopic("t");
                k.producer("t").send(null, b("x")).join();
                ConsumerRebalanceListener growing = new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsAssigned(Collection<Integer> partitions) {
                        if (t.partitionCount() == 1) {
                            t.increasePartitions(2);
                        }
                    }
                };
                try (Consumer c = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withRebalanceListener(growing))) {
                    assertThat(pollUntil(c, 1)).extracting(r -> s(r.value())).containsExactly("x");
                    k.producer("t").sendTo(1, null, b("y")).join();
                    assertThat(pollUntil(c, 1)).extracting(r -> r.partition() + ":" + s(r.value()))
                            .containsExactly("1:y");
                    assertThat(c.assignment()).containsExactlyInAnyOrder(0, 1);
                }
                ConsumerRebalanceListener deleting = new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsAssigned(Collection<Integer> partitions) {
                        k.deleteTopic("t");
                    }
                };
                try (Consumer c = k.groupConsumer("t", "h", ConsumerOptions.DEFAULTS.withRebalanceListener(deleting))) {
                    assertThatThrownBy(() -> c.poll(Duration.ofSeconds(5))).isInstanceOf(UnknownTopicException.class);
                }
                assertThat(k.topics()).isEmpty();
            }
        }

        @Test
        void aWakeupAfterTheConsumerOrTheInstanceClosedIsHarmless() {
            Kafko k = Kafko.open(dir);
            k.createTopic("t");
            Consumer c = k.groupConsumer("t", "g");
            Consumer d = k.consumer("t");
            c.close();
            c.wakeup();
            k.close();
            d.wakeup();
            assertThatThrownBy(() -> d.poll(Duration.ZERO)).isInstanceOf(KafkoClosedException.class);
            d.close();
        }
    }

    @Nested
    class LiveMembersUnderChurn {

        /**
         * Members on threads of their own join and leave (each closing itself) while a producer sends and the topic
         * grows from 3 to 5 partitions. Each member commits after each poll and in its revoke callback. No partition
         * is announced to two members at once, no record is read outside its member's assignment, and every record is
         * read exactly once, in offset order per partition.
         */
        @Test
        @Timeout(value = 60, unit = TimeUnit.SECONDS)
        void membersJoiningLeavingAndATopicGrowingReadEveryRecordOnceAndNeverShareAPartition() throws Exception {
            Random random = new Random(20261203);
            int total = 20_000;
            try (Kafko k = Kafko.open(dir)) {
                Topic topic = k.createTopic("t", partitions(3));
                AtomicReferenceArray<Object> announcedOwner =
                        new AtomicReferenceArray<>(5);
                ConcurrentHashMap<String, Integer> reads = new ConcurrentHashMap<>();
                ConcurrentHashMap<Integer, Long> lastOffset = new ConcurrentHashMap<>();
                List<String> violations = new CopyOnWriteArrayList<>();
                AtomicBoolean sending = new AtomicBoolean(true);

                Thread producer = new Thread(() -> {
                    Producer p = k.producer("t");
                    List<CompletableFuture<RecordPosition>> futures = new ArrayList<>();
                    for (int i = 0; i < total; i++) {
                        futures.add(p.send(b("key-" + (i % 50)), b("v" + i)));
                        if (i % 100 == 99) {
                            futures.forEach(CompletableFuture::join);
                            futures.clear();
                            LockSupport.parkNanos(2_000_000); // pacing: the churn happens while records flow
                        }
                    }
                    futures.forEach(CompletableFuture::join);
                    sending.set(false);
                }, "producer");

                class Member implements Runnable {
                    final AtomicBoolean leave = new AtomicBoolean();
                    final Thread thread = new Thread(this, "member");
                    Consumer consumer;

                    @Override
                    public void run() {
                        Object me = this;
                        ConsumerRebalanceListener listener = new ConsumerRebalanceListener() {
                            @Override
                            public void onPartitionsRevoked(Collection<Integer> partitions) {
                                consumer.commit();
                                for (int p : partitions) {
                                    if (!announcedOwner.compareAndSet(p, me, null)) {
                                        violations.add("revoked " + p + " not announced to this member");
                                    }
                                }
                            }

                            @Override
                            public void onPartitionsAssigned(Collection<Integer> partitions) {
                                for (int p : partitions) {
                                    if (!announcedOwner.compareAndSet(p, null, me)) {
                                        violations.add("partition " + p + " assigned while another member holds it");
                                    }
                                    Long committed = k.groupInfo("t", "g").committed().get(p);
                                    long start = committed == null ? 0 : committed;
                                    if (consumer.position(p) != start) {
                                        violations.add("partition " + p + " starts at " + consumer.position(p)
                                                + ", not at the commit " + start);
                                    }
                                }
                            }
                        };
                        consumer = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withMaxPollRecords(200)
                                .withRebalanceListener(listener));
                        try {
                            while (!leave.get()) {
                                for (KafkoRecord r : consumer.poll(Duration.ofMillis(20))) {
                                    if (announcedOwner.get(r.partition()) != me) {
                                        violations.add("read " + r.partition() + ":" + r.offset()
                                                + " outside the assignment");
                                    }
                                    Long previous = lastOffset.put(r.partition(), r.offset());
                                    if (previous != null && previous + 1 != r.offset()) {
                                        violations.add("partition " + r.partition() + " jumped from " + previous
                                                + " to " + r.offset());
                                    }
                                    reads.merge(r.partition() + ":" + r.offset(), 1, Integer::sum);
                                }
                                consumer.commit();
                            }
                        } catch (Throwable e) {
                            violations.add("member failed: " + e);
                        } finally {
                            consumer.close();
                        }
                    }
                }

                List<Member> members = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    Member m = new Member();
                    members.add(m);
                    m.thread.start();
                }
                producer.start();
                int round = 0;
                while (sending.get() || reads.size() < total) {
                    Thread.sleep(10); // pacing of the churn, not a wait for a result
                    round++;
                    if (round == 20) {
                        topic.increasePartitions(5);
                    }
                    if (sending.get() && random.nextBoolean()) {
                        int victim = random.nextInt(members.size());
                        Member old = members.get(victim);
                        old.leave.set(true);
                        old.thread.join(10_000);
                        Member fresh = new Member();
                        members.set(victim, fresh);
                        fresh.thread.start();
                        if (random.nextBoolean() && members.size() < 6) {
                            Member extra = new Member();
                            members.add(extra);
                            extra.thread.start();
                        }
                    }
                    if (round > 3000) {
                        break;
                    }
                }
                for (Member m : members) {
                    m.leave.set(true);
                }
                for (Member m : members) {
                    m.thread.join(10_000);
                }
                producer.join(10_000);
                assertThat(violations).isEmpty();
                assertThat(reads).hasSize(total);
                assertThat(reads.values()).allMatch(n -> n == 1);
                assertThat(k.groupInfo("t", "g").lag().values()).allMatch(l -> l == 0);
            }
        }
    }

    @Nested
    class WaitingWithoutSpinning {

        /**
         * Polls that wait 600 ms each: an anonymous consumer at the end, a member waiting for a partition another
         * member has not handed over yet, a member the group has no partition for, and a consumer of a partition
         * retention emptied. Each waiting thread uses far less CPU time than it waits (a spinning poll uses about
         * all of it).
         */
        @Test
        void waitingPollsOfEveryKindPark() throws Exception {
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            assumeTrue(mx.isCurrentThreadCpuTimeSupported());
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", partitions(2));
                k.producer("t").sendTo(0, null, b("x")).join();
                Consumer holder = k.groupConsumer("t", "g");
                holder.poll(Duration.ZERO); // takes both partitions; never polls again in this test
                Consumer waitingForHandOver = k.groupConsumer("t", "g");
                Consumer extraA = k.groupConsumer("t", "h");
                extraA.poll(Duration.ZERO);
                Consumer extraB = k.groupConsumer("t", "h");
                extraB.poll(Duration.ZERO);
                Consumer idle = k.groupConsumer("t", "h");
                Consumer atEnd = k.consumer("t");
                atEnd.seekToEnd();
                Map<String, Consumer> waiting = Map.of("hand-over", waitingForHandOver, "no-partition", idle,
                        "at-end", atEnd);
                Map<String, Long> cpu = new ConcurrentHashMap<>();
                List<Thread> threads = new ArrayList<>();
                waiting.forEach((name, c) -> {
                    Thread t = new Thread(() -> {
                        long start = mx.getCurrentThreadCpuTime();
                        List<KafkoRecord> read = c.poll(Duration.ofMillis(600));
                        cpu.put(name, mx.getCurrentThreadCpuTime() - start);
                        if (!read.isEmpty()) {
                            cpu.put(name + " read", (long) read.size());
                        }
                    }, name);
                    threads.add(t);
                    t.start();
                });
                for (Thread t : threads) {
                    t.join(10_000);
                }
                assertThat(cpu).doesNotContainKeys("hand-over read", "no-partition read", "at-end read");
                assertThat(cpu).allSatisfy((name, nanos) ->
                        assertThat(Duration.ofNanos(nanos)).as(name).isLessThan(Duration.ofMillis(300)));
                holder.close();
                waitingForHandOver.close();
                extraA.close();
                extraB.close();
                idle.close();
                atEnd.close();
            }
        }
    }

    @Nested
    class Introspection {

        @Test
        void partitionFiguresAreTheSameAfterAReopenAndSizeIsTheSegmentsData() {
            List<PartitionInfo> before;
            try (Kafko k = Kafko.open(dir)) {
                Topic t = k.createTopic("t", TopicConfig.builder().partitions(3).segmentBytes(2048).build());
                Producer p = k.producer("t");
                for (int i = 0; i < 300; i++) {
                    p.send(b("k" + i), b("value " + i)).join();
                }
                before = t.partitions();
            }
            try (Kafko k = Kafko.open(dir)) {
                List<PartitionInfo> after = k.topic("t").orElseThrow().partitions();
                for (int i = 0; i < 3; i++) {
                    PartitionInfo b = before.get(i);
                    PartitionInfo a = after.get(i);
                    assertThat(a.endOffset()).isEqualTo(b.endOffset());
                    assertThat(a.logStartOffset()).isEqualTo(b.logStartOffset());
                    assertThat(a.segmentCount()).isEqualTo(b.segmentCount());
                    assertThat(a.sizeBytes()).as("partition %d", i).isEqualTo(b.sizeBytes());
                    assertThat(a.state()).isEqualTo(PartitionState.RUNNING);
                }
                assertThat(before.stream().mapToLong(PartitionInfo::endOffset).sum()).isEqualTo(300);
                assertThat(before).allMatch(pi -> pi.segmentCount() > 1);
            }
        }
    }

    @Nested
    class ArgumentsBeforeState {

        @Test
        void aNegativeTimestampForOnePartitionIsAnArgumentErrorAfterTheCloseAsForEveryPartition() {
            Kafko k = Kafko.open(dir);
            k.createTopic("t");
            Consumer c = k.consumer("t");
            k.close();
            assertThatThrownBy(() -> c.seekToTimestamp(-1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> c.seekToTimestamp(0, -1)).isInstanceOf(IllegalArgumentException.class);
            c.close();
        }

        @Test
        void aNegativeTimestampForAPartitionNotAssignedIsAnArgumentErrorAsANegativeOffsetIs() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", partitions(2));
                try (Consumer fixed = k.consumer("t", ConsumerOptions.DEFAULTS.withPartitions(Set.of(0)))) {
                    // seek(p, -1) refuses the offset whatever the partition; a timestamp seek refuses its time alike
                    assertThatThrownBy(() -> fixed.seek(1, -1)).isInstanceOf(OffsetOutOfRangeException.class);
                    assertThatThrownBy(() -> fixed.seekToTimestamp(1, -1)).isInstanceOf(IllegalArgumentException.class);
                }
            }
        }

        @Test
        void aStaleTopicHandleAfterTheCloseReportsItsPartitionsClosedOrRefusesTyped() {
            Kafko k = Kafko.open(dir);
            Topic t = k.createTopic("t", partitions(2));
            k.producer("t").send(null, b("x")).join();
            k.close();
            try {
                List<PartitionInfo> infos = t.partitions();
                assertThat(infos).hasSize(2).allMatch(pi -> pi.state() == PartitionState.CLOSED);
                assertThat(infos.stream().mapToLong(PartitionInfo::endOffset).sum()).isEqualTo(1);
            } catch (KafkoClosedException expected) {
                // typed: also acceptable
            }
            assertThatThrownBy(() -> t.increasePartitions(3)).isInstanceOf(KafkoClosedException.class);
        }
    }

}
