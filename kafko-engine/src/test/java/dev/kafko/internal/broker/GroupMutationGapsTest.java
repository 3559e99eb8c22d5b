package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.AppendHold;
import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.FsyncPolicy;
import dev.kafko.InvalidPartitionException;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.OffsetResetPolicy;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.TopicConfig;
import dev.kafko.UnknownTopicException;
import dev.kafko.internal.io.FileIo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consumer groups, positions and consumers at edges no other test reached (found by mutation testing of
 * {@code GroupCoordinator}, {@code ConsumerImpl} and {@code PartitionPositions}, B226): a commit of offset 0 under
 * {@code LATEST}, positions exactly at the log start or end, one offsets force per period, the offsets file of a
 * deleted group closed, the waiters of a closed consumer gone, and the wakes of a consumer waiting in a long poll.
 */
class GroupMutationGapsTest {

    @TempDir
    Path dir;

    private final OffsetsFileChannels offsets = new OffsetsFileChannels();
    private final AtomicInteger forces = offsets.forces;
    /** Channels of offsets files open. */
    private final AtomicInteger openChannels = offsets.openChannels;
    private final FileIo io = offsets.io;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void send(Kafko k, int records) {
        Producer p = k.producer("t");
        for (int i = 0; i < records; i++) {
            p.send(null, bytes("r" + i)).join();
        }
    }

    /** A commit of offset 0 is where a new member starts, also under {@code LATEST}: not a missing commit. */
    @Test
    void aMemberStartsAtACommitOfOffsetZeroUnderLatest() {
        KafkoOptions latest = KafkoOptions.builder().offsetReset(OffsetResetPolicy.LATEST).build();
        try (Kafko k = Kafko.open(dir, latest)) {
            k.createTopic("t");
            send(k, 3);
            try (Consumer first = k.groupConsumer("t", "g")) {
                assertThat(first.position(0)).as("no commit: the end").isEqualTo(3);
                first.commit(Map.of(0, 0L));
            }
            try (Consumer next = k.groupConsumer("t", "g")) {
                assertThat(next.position(0)).isZero();
                assertThat(next.poll(Duration.ofSeconds(5))).extracting(KafkoRecord::offset)
                        .containsExactly(0L, 1L, 2L);
            }
        }
    }

    /** A position at the log start is inside the log: a {@code LATEST} consumer reads from it, not from the end. */
    @Test
    void aLatestConsumerAtTheLogStartReadsFromThere() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            send(k, 3);
            try (Consumer c = k.consumer("t", ConsumerOptions.DEFAULTS.withOffsetReset(OffsetResetPolicy.LATEST))) {
                c.seek(0, 0);
                assertThat(c.poll(Duration.ofSeconds(5))).extracting(KafkoRecord::offset).containsExactly(0L, 1L, 2L);
            }
        }
    }

    /** A position at the log end is inside the log: a {@code FAIL} consumer there polls nothing, and no error. */
    @Test
    void aFailConsumerAtTheEndPollsNothingWithoutAnError() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            send(k, 3);
            try (Consumer c = k.consumer("t", ConsumerOptions.DEFAULTS.withOffsetReset(OffsetResetPolicy.FAIL))) {
                c.seekToEnd();
                assertThat(c.poll(Duration.ZERO)).isEmpty();
                assertThat(c.position(0)).isEqualTo(3);
                send(k, 1);
                assertThat(c.poll(Duration.ofSeconds(5))).extracting(KafkoRecord::offset).containsExactly(3L);
            }
        }
    }

    /**
     * Under {@code EVERY_BATCH}, a seek to exactly the log's end while its last record waits for its fsync stays
     * there (the position is not past the end): the record below it is not read, as the seek asked.
     */
    @Test
    void aSeekToExactlyTheEndBeforeItsRecordIsFsyncedStaysThere() throws Exception {
        AppendHold hold = new AppendHold();
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(hold).build())) {
            k.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.EVERY_BATCH).build());
            try (Consumer g = k.groupConsumer("t", "g")) {
                assertThat(g.poll(Duration.ZERO)).isEmpty();
                CompletableFuture<RecordPosition> sent = CompletableFuture.supplyAsync(
                        () -> k.producer("t").send(null, bytes("x")).join());
                hold.awaitHeld();
                try {
                    g.seek(0, 1); // the log's end: record 0 is appended, not yet fsynced
                    assertThat(g.position(0)).isEqualTo(1);
                } finally {
                    hold.release();
                }
                assertThat(sent.get().offset()).isZero();
                k.producer("t").send(null, bytes("y")).join();
                assertThat(g.poll(Duration.ofSeconds(10))).extracting(KafkoRecord::offset).containsExactly(1L);
            }
        }
    }

    /**
     * Under an interval policy, the commits made while a force is scheduled schedule no other: one force per
     * period, however many commits. The scheduler's one thread is held so that the first force cannot run before
     * the last commit.
     */
    @Test
    void theCommitsOfOnePeriodScheduleOneForce() throws Exception {
        KafkoOptions options = KafkoOptions.builder().fsyncMetadata(false).build();
        try (Kafko k = BrokerBridge.open(dir, options, io)) {
            k.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.interval(Duration.ofMillis(1))).build());
            Scheduler scheduler = ((TopicImpl) k.topic("t").orElseThrow()).broker.context().scheduler();
            CountDownLatch running = new CountDownLatch(1);
            CountDownLatch go = new CountDownLatch(1);
            scheduler.schedule(() -> {
                running.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, Duration.ZERO);
            assertThat(running.await(10, TimeUnit.SECONDS)).as("the scheduler's thread is held").isTrue();
            try (Consumer member = k.groupConsumer("t", "g")) {
                for (int i = 0; i < 10; i++) {
                    member.commit(Map.of(0, 0L));
                }
                CountDownLatch after = new CountDownLatch(1);
                scheduler.schedule(after::countDown, Duration.ofMillis(1)); // due after every force scheduled above
                go.countDown();
                assertThat(after.await(10, TimeUnit.SECONDS)).isTrue();
                assertThat(forces.get()).as("ten commits in one period").isEqualTo(1);
            }
        }
    }

    /** A deleted group's offsets file is closed with its deletion, not left open. */
    @Test
    void aGroupsDeletionClosesItsOffsetsFile() {
        KafkoOptions options = KafkoOptions.builder().fsyncMetadata(false).build();
        try (Kafko k = BrokerBridge.open(dir, options, io)) {
            k.createTopic("t");
            try (Consumer member = k.groupConsumer("t", "g")) {
                member.commit(Map.of(0, 0L));
            }
            assertThat(openChannels.get()).as("the group's offsets file, open for its next commit").isEqualTo(1);
            k.deleteGroup("t", "g");
            assertThat(openChannels.get()).isZero();
            assertThat(k.groups("t")).isEmpty();
        }
    }

    /** A fixed assignment of a partition the topic lacks names the partitions it has. */
    @Test
    void aFixedAssignmentOfAMissingPartitionNamesThoseThereAre() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            assertThatThrownBy(() -> k.consumer("t", ConsumerOptions.DEFAULTS.withPartitions(Set.of(2))))
                    .isInstanceOf(InvalidPartitionException.class)
                    .hasMessageContaining("the topic has 2 partition(s), 0 to 1");
        }
    }

    /** A null among the partitions of a pause or resume is refused before anything changes. */
    @Test
    void aNullPartitionInAPauseOrResumeIsRefusedAndChangesNothing() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            try (Consumer c = k.consumer("t")) {
                c.pause(List.of(0));
                assertThatThrownBy(() -> c.resume(Arrays.asList(0, null)))
                        .isInstanceOf(NullPointerException.class).hasMessageContaining("a null partition");
                assertThat(c.paused()).containsExactly(0);
                assertThatThrownBy(() -> c.pause(Arrays.asList(1, null)))
                        .isInstanceOf(NullPointerException.class).hasMessageContaining("a null partition");
                assertThat(c.paused()).containsExactly(0);
            }
        }
    }

    /** A closed consumer is no longer woken by its partitions' appends: it leaves no waiter behind. */
    @Test
    void aClosedConsumerLeavesNoWaiterOnItsPartitions() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            PartitionActor[] actors = ((TopicImpl) k.topic("t").orElseThrow()).actors();
            Consumer anonymous = k.consumer("t");
            Consumer member = k.groupConsumer("t", "g");
            assertThat(member.poll(Duration.ZERO)).isEmpty();
            assertThat(actors[0].waiters.size()).isEqualTo(2);
            assertThat(actors[1].waiters.size()).isEqualTo(2);
            anonymous.close();
            member.close();
            assertThat(actors[0].waiters.size()).isZero();
            assertThat(actors[1].waiters.size()).isZero();
        }
    }

    /**
     * An anonymous consumer waiting in a long poll takes the partitions added meanwhile, and a record in the first
     * of them ends the wait.
     */
    @Test
    void aRecordInTheFirstPartitionAddedEndsAnAnonymousConsumersWait() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            try (Consumer c = k.consumer("t")) {
                assertThat(c.poll(Duration.ZERO)).isEmpty();
                CompletableFuture<List<KafkoRecord>> waiting = CompletableFuture.supplyAsync(
                        () -> c.poll(Duration.ofSeconds(60)));
                PartitionActor[] before = ((TopicImpl) k.topic("t").orElseThrow()).actors();
                awaitParked(before[0]);
                k.topic("t").orElseThrow().increasePartitions(3);
                PartitionActor[] after = ((TopicImpl) k.topic("t").orElseThrow()).actors();
                awaitParked(after[1]); // it took the new partitions and waits again
                k.producer("t").sendTo(1, null, bytes("x")).join();
                assertThat(waiting.get(10, TimeUnit.SECONDS)).extracting(KafkoRecord::partition).containsExactly(1);
            }
        }
    }

    /** Waits until a consumer registered with {@code actor} is parked. */
    private static void awaitParked(PartitionActor actor) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!actor.waiters.anyParked()) {
            assertThat(System.nanoTime()).as("a consumer parked on the partition").isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    /** A member without partitions waiting in a long poll hears of its topic's deletion at once. */
    @Test
    void aMemberWithoutPartitionsWaitingInAPollHearsOfItsTopicsDeletion() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            try (Consumer a = k.groupConsumer("t", "g"); Consumer b = k.groupConsumer("t", "g")) {
                a.poll(Duration.ZERO);
                b.poll(Duration.ZERO);
                assertThat(b.assignment()).isEmpty();
                CompletableFuture<List<KafkoRecord>> waiting = CompletableFuture.supplyAsync(
                        () -> b.poll(Duration.ofSeconds(60)));
                Waiter waiter = ((ConsumerImpl) b).waiter;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!waiter.isParked()) {
                    assertThat(System.nanoTime()).as("b parked").isLessThan(deadline);
                    Thread.sleep(5);
                }
                k.deleteTopic("t");
                assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                        .cause().isInstanceOf(UnknownTopicException.class);
            }
        }
    }
}
