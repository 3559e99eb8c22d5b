package dev.kafko.tryout;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Compression;
import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.FsyncPolicy;
import dev.kafko.GroupNotEmptyException;
import dev.kafko.InvalidPartitionException;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.OffsetOutOfRangeException;
import dev.kafko.OffsetResetPolicy;
import dev.kafko.Producer;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.UnknownTopicException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The operations side of the tryout: config changes, growth, retention and deletion under live producers and members. */
class OperationsTryoutTest {

    private static final Duration WAIT = Duration.ofSeconds(5);

    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    private static String s(byte[] b) {
        return b == null ? null : new String(b, UTF_8);
    }

    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadline);
            new CountDownLatch(1).await(5, TimeUnit.MILLISECONDS);
        }
    }

    @Test
    void alterConfigOfCodecFsyncAndRetentionWhileProducersRunKeepsEveryRecordReadable() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            Topic t = k.createTopic("inventory", TopicConfig.builder().partitions(3).build());
            Producer p = k.producer("inventory");
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService pool = Executors.newFixedThreadPool(2);
            List<Future<Integer>> senders = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                int worker = w;
                senders.add(pool.submit(() -> {
                    int n = 0;
                    while ((!stop.get() || n < 200) && n < 20_000) {
                        p.send(b("sku-" + worker + "-" + (n % 7)), b(worker + ":" + n)).join();
                        n++;
                    }
                    return n;
                }));
            }
            t.alterConfig(t.config().toBuilder().compression(Compression.LZ4).build());
            t.alterConfig(t.config().toBuilder().compression(Compression.ZSTD).fsync(FsyncPolicy.EVERY_BATCH).build());
            t.alterConfig(t.config().toBuilder().fsync(FsyncPolicy.interval(Duration.ofMillis(5)))
                    .retention(Duration.ofDays(1)).retentionBytes(1L << 30).build());
            assertThatThrownBy(() -> t.alterConfig(t.config().toBuilder().partitions(5).build()))
                    .isInstanceOf(InvalidPartitionException.class);
            stop.set(true);
            int total = 0;
            for (Future<Integer> f : senders) {
                total += f.get(20, TimeUnit.SECONDS);
            }
            pool.shutdown();
            assertThat(t.config().compression()).isEqualTo(Compression.ZSTD);
            assertThat(t.config().fsync()).isEqualTo(FsyncPolicy.interval(Duration.ofMillis(5)));

            try (Consumer c = k.consumer("inventory")) {
                List<KafkoRecord> all = InventoryTryoutTest.drain(c, total);
                assertThat(all).hasSize(total);
                // per key, in send order
                java.util.Map<String, Integer> last = new java.util.HashMap<>();
                for (KafkoRecord r : all) {
                    int n = Integer.parseInt(s(r.value()).split(":")[1]);
                    Integer prev = last.put(s(r.key()), n);
                    if (prev != null) {
                        assertThat(n).isGreaterThan(prev);
                    }
                }
            }
        }
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topic("inventory").get().config().compression()).isEqualTo(Compression.ZSTD);
        }
    }

    @Test
    void increasePartitionsWhileProducersAndMembersRunDeliversEveryRecordToTheGroup() throws Exception {
        int total = 4_000;
        try (Kafko k = Kafko.open(dir)) {
            Topic t = k.createTopic("inventory", TopicConfig.builder().partitions(2).build());
            Producer p = k.producer("inventory");
            Set<String> acked = ConcurrentHashMap.newKeySet();
            Set<String> seen = ConcurrentHashMap.newKeySet();
            CountDownLatch membersUp = new CountDownLatch(2);
            CountDownLatch quarterSent = new CountDownLatch(1);
            CountDownLatch grown = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(4);
            // one producer stops at a quarter of its records until the topic grew (so the rest surely route over six
            // partitions), the other sends throughout
            List<Future<?>> producers = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                boolean gated = w == 0;
                String prefix = "w" + w + "-";
                producers.add(pool.submit(() -> {
                    for (int n = 0; n < total / 2; n++) {
                        if (gated && n == total / 8) {
                            quarterSent.countDown();
                            assertThat(grown.await(10, TimeUnit.SECONDS)).isTrue();
                        }
                        String v = prefix + n;
                        p.send(b("sku-" + (n % 64)), b(v)).join();
                        acked.add(v);
                    }
                    return null;
                }));
            }
            List<Future<Set<Integer>>> members = new ArrayList<>();
            for (int m = 0; m < 2; m++) {
                members.add(pool.submit(() -> {
                    Set<Integer> owned = new HashSet<>();
                    try (Consumer c = k.groupConsumer("inventory", "projector")) {
                        membersUp.countDown();
                        while (seen.size() < total) {
                            for (KafkoRecord r : c.poll(Duration.ofMillis(50))) {
                                seen.add(s(r.value()));
                                owned.add(r.partition());
                            }
                            c.commit();
                        }
                        owned.addAll(c.assignment());
                    }
                    return owned;
                }));
            }
            assertThat(membersUp.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(quarterSent.await(10, TimeUnit.SECONDS)).isTrue();
            t.increasePartitions(6);
            grown.countDown();
            for (Future<?> f : producers) {
                f.get(20, TimeUnit.SECONDS);
            }
            Set<Integer> owned = new HashSet<>();
            for (Future<Set<Integer>> f : members) {
                owned.addAll(f.get(20, TimeUnit.SECONDS));
            }
            pool.shutdown();
            assertThat(seen).hasSize(total).containsAll(acked);
            for (int part = 2; part < 6; part++) {
                assertThat(t.partition(part).endOffset()).as("records routed to new partition %d", part).isPositive();
            }
            assertThat(owned).contains(0, 1, 2, 3, 4, 5);
            assertThat(k.groupInfo("inventory", "projector").lag().values()).containsOnly(0L);
            assertThat(k.groupInfo("inventory", "projector").members()).isZero();
            assertThat(p.partitionCount()).isEqualTo(6);
        }
    }

    private static KafkoOptions fastRetention() {
        return KafkoOptions.builder().retentionCheckInterval(Duration.ofMillis(20)).build();
    }

    @Test
    void aMemberLaggingBehindRetentionBytesResetsAsItsPolicySaysEarliestLatestOrFail() throws Exception {
        try (Kafko k = Kafko.open(dir, fastRetention())) {
            Topic t = k.createTopic("inventory", TopicConfig.builder().partitions(1).segmentBytes(1024).build());
            Producer p = k.producer("inventory");
            try (Consumer lagging = k.groupConsumer("inventory", "slow")) {
                assertThat(InventoryTryoutTest.drain(lagging, 0)).isEmpty();
                p.send(null, b("first")).join();
                assertThat(InventoryTryoutTest.drain(lagging, 1)).hasSize(1);
                lagging.commit(); // committed 1
                for (int i = 0; i < 200; i++) {
                    p.send(null, new byte[100]).join();
                }
                t.alterConfig(t.config().toBuilder().retentionBytes(2048).build());
                await("retention moved the log start", () -> t.partition(0).logStartOffset() > 100);
                long start = t.partition(0).logStartOffset();
                assertThat(k.groupInfo("inventory", "slow").lag()).containsEntry(0, t.partition(0).endOffset() - start);

                List<KafkoRecord> got = lagging.poll(WAIT);
                assertThat(got).isNotEmpty();
                assertThat(got.get(0).offset()).isEqualTo(start);
            }
            try (Consumer strict = k.groupConsumer("inventory", "strict",
                    ConsumerOptions.DEFAULTS.withOffsetReset(OffsetResetPolicy.FAIL))) {
                strict.commit(java.util.Map.of(0, 1L));
                strict.seek(0, 1);
                assertThatThrownBy(() -> strict.poll(WAIT)).isInstanceOf(OffsetOutOfRangeException.class);
            }
            try (Consumer latest = k.groupConsumer("inventory", "late",
                    ConsumerOptions.DEFAULTS.withOffsetReset(OffsetResetPolicy.LATEST))) {
                latest.seek(0, 1);
                assertThat(latest.poll(Duration.ZERO)).isEmpty();
                assertThat(latest.position(0)).isEqualTo(t.partition(0).endOffset());
            }
        }
    }

    @Test
    void deleteGroupWithALiveMemberIsRefusedAndWorksOnceItClosed() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("inventory", TopicConfig.builder().partitions(2).build());
            k.producer("inventory").send(b("a"), b("1")).join();
            Consumer member = k.groupConsumer("inventory", "old-projection");
            InventoryTryoutTest.drain(member, 1);
            member.commit();
            assertThatThrownBy(() -> k.deleteGroup("inventory", "old-projection"))
                    .isInstanceOfSatisfying(GroupNotEmptyException.class, e -> {
                        assertThat(e.topic()).isEqualTo("inventory");
                        assertThat(e.group()).isEqualTo("old-projection");
                        assertThat(e.members()).isEqualTo(1);
                    });
            assertThat(k.groups("inventory")).contains("old-projection");
            member.close();
            assertThat(k.deleteGroup("inventory", "old-projection")).isTrue();
            assertThat(k.groups("inventory")).doesNotContain("old-projection");
            assertThat(k.deleteGroup("inventory", "old-projection")).isFalse();
            assertThat(k.groupInfo("inventory", "old-projection").committed()).isEmpty();
        }
    }

    @Test
    void deleteTopicWhileAMemberBlocksInPollFailsItsHandlesWithUnknownTopic() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("inventory", TopicConfig.builder().partitions(2).build());
            Producer p = k.producer("inventory");
            Consumer member = k.groupConsumer("inventory", "projector");
            CountDownLatch polling = new CountDownLatch(1);
            CompletableFuture<Object> outcome = CompletableFuture.supplyAsync(() -> {
                polling.countDown();
                try {
                    return member.poll(Duration.ofSeconds(30));
                } catch (RuntimeException e) {
                    return e;
                }
            });
            assertThat(polling.await(5, TimeUnit.SECONDS)).isTrue();
            k.deleteTopic("inventory");
            Object result = outcome.get(10, TimeUnit.SECONDS);
            assertThat(result).isInstanceOf(UnknownTopicException.class);
            assertThatThrownBy(() -> p.send(null, b("x"))).isInstanceOf(UnknownTopicException.class);
            assertThatThrownBy(() -> member.poll(Duration.ZERO)).isInstanceOf(UnknownTopicException.class);
            member.close();
            assertThat(k.topics()).doesNotContain("inventory");
            k.createTopic("inventory");
            assertThat(k.groups("inventory")).isEmpty();
        }
    }

    @Test
    void wakeupFromAnotherThreadEndsABlockedPollAndCloseFromAnotherThreadIsRefused() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("inventory", TopicConfig.builder().partitions(2).build());
            try (Consumer c = k.groupConsumer("inventory", "projector")) {
                CountDownLatch polling = new CountDownLatch(1);
                CompletableFuture<List<KafkoRecord>> poll = CompletableFuture.supplyAsync(() -> {
                    polling.countDown();
                    return c.poll(Duration.ofSeconds(30));
                });
                assertThat(polling.await(5, TimeUnit.SECONDS)).isTrue();
                c.wakeup();
                assertThat(poll.get(5, TimeUnit.SECONDS)).isEmpty();

                c.wakeup(); // the next poll returns at once
                long t0 = System.nanoTime();
                assertThat(c.poll(Duration.ofSeconds(30))).isEmpty();
                assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(5));

                CompletableFuture<Thread> poller = new CompletableFuture<>();
                CompletableFuture<Object> blocked = CompletableFuture.supplyAsync(() -> {
                    poller.complete(Thread.currentThread());
                    try {
                        return c.poll(Duration.ofSeconds(30));
                    } catch (RuntimeException e) {
                        return e;
                    }
                });
                Thread pollThread = poller.get(5, TimeUnit.SECONDS);
                await("the poll waits", () -> pollThread.getState() == Thread.State.TIMED_WAITING);
                assertThatThrownBy(c::close).isInstanceOf(ConcurrentModificationException.class);
                c.wakeup();
                assertThat(blocked.get(5, TimeUnit.SECONDS)).isEqualTo(List.of());
            }
        }
    }

    @Test
    void aPausedPartitionsAppendDoesNotEndAPollsWaitAndResumeReadsIt() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("inventory", TopicConfig.builder().partitions(2).build());
            Producer p = k.producer("inventory");
            try (Consumer c = k.groupConsumer("inventory", "projector")) {
                c.pause(List.of(0));
                assertThatThrownBy(() -> c.pause(List.of(0, 5))).isInstanceOf(InvalidPartitionException.class);
                assertThat(c.paused()).containsExactly(0);
                p.sendTo(0, null, b("p0")).join();
                assertThat(c.poll(Duration.ofMillis(200))).isEmpty();
                p.sendTo(1, null, b("p1")).join();
                assertThat(c.poll(WAIT)).extracting(r -> s(r.value())).containsExactly("p1");
                c.resume(List.of(0));
                assertThat(c.poll(WAIT)).extracting(r -> s(r.value())).containsExactly("p0");
            }
        }
    }
}
