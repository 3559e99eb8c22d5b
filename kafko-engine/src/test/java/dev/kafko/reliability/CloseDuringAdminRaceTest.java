package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.ConsumerRebalanceListener;
import dev.kafko.InterruptException;
import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.Producer;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.TopicExistsException;
import dev.kafko.UnknownTopicException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code Kafko.close()} at a seeded moment, from a third thread or from a group member's rebalance callback, while
 * a topic grows ({@code increasePartitions}) under keyed sends and a rebalancing group whose members seek by
 * timestamp, and while a second topic is deleted and created again in a loop. Checked: every call ends, the only
 * failures are {@link KafkoClosedException}, the deleted topic's {@link UnknownTopicException}, a create that finds
 * the name taken or being deleted ({@link TopicExistsException}) and a poll's {@link InterruptException}; no kafko
 * thread is left; the directory reopens with the grown topic's partition count equal to its partition directories,
 * and every acknowledged record of it at its offset.
 */
class CloseDuringAdminRaceTest {

    @TempDir
    Path tmp;

    final ConcurrentLinkedQueue<String> unexpected = new ConcurrentLinkedQueue<>();
    final Map<String, String> acked = new ConcurrentHashMap<>();
    final AtomicBoolean stop = new AtomicBoolean();

    void failed(String who, Throwable t) {
        Workload.collectUnexpected(unexpected, who, t, KafkoClosedException.class, UnknownTopicException.class,
                TopicExistsException.class, InterruptException.class);
    }

    @ParameterizedTest
    @CsvSource({"41, thread", "42, rebalance", "43, thread", "44, rebalance", "45, thread", "46, rebalance"})
    @Timeout(value = 40, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCloseRacingGrowthDeletionAndARebalanceEndsEveryCallAndReopensConsistent(long seed, String from)
            throws Exception {
        Set<Thread> threadsBefore = Workload.kafkoThreadSet();
        SplittableRandom chaos = new SplittableRandom(seed);
        Path dir = tmp.resolve("data");
        Kafko k = Kafko.open(dir, KafkoOptions.builder().build());
        Topic grown = k.createTopic("grown", TopicConfig.builder().partitions(2).segmentBytes(2048).build());
        k.createTopic("churn", TopicConfig.builder().partitions(2).build());
        int closeAtRebalance = from.equals("rebalance") ? 2 + chaos.nextInt(6) : -1;
        AtomicReference<Throwable> closedInCallback = new AtomicReference<>();
        AtomicBoolean closedByCallback = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        threads.add(Workload.start("admin-race-sender", () -> {
            try {
                Producer p = k.producer("grown");
                for (long seq = 0; !stop.get(); seq++) {
                    String text = "k" + (seq % 16) + ":" + seq;
                    p.send(text.substring(0, text.indexOf(':')).getBytes(StandardCharsets.UTF_8),
                            text.getBytes(StandardCharsets.UTF_8)).whenComplete((pos, e) -> {
                                if (e == null) {
                                    acked.put(pos.partition() + "/" + pos.offset(), text);
                                } else {
                                    failed("send future", e);
                                }
                            });
                }
            } catch (Throwable t) {
                failed("sender", t);
            }
        }));
        threads.add(Workload.start("admin-race-grower", () -> {
            try {
                while (!stop.get() && grown.partitionCount() < 10) {
                    Thread.sleep(5 + chaos.nextInt(20));
                    grown.increasePartitions(grown.partitionCount() + 1);
                }
            } catch (InterruptedException e) {
                // the end
            } catch (Throwable t) {
                failed("grower", t);
            }
        }));
        threads.add(Workload.start("admin-race-churn", () -> {
            while (!stop.get()) {
                try {
                    Producer p = k.producer("churn");
                    p.send(null, new byte[10]);
                    k.deleteTopic("churn");
                    k.createTopic("churn", TopicConfig.builder().partitions(2).build());
                } catch (Throwable t) {
                    failed("churn", t);
                    if (t instanceof KafkoClosedException) {
                        return;
                    }
                }
            }
        }));
        AtomicReference<Integer> rebalances = new AtomicReference<>(0);
        for (int m = 0; m < 2; m++) {
            int member = m;
            threads.add(Workload.start("admin-race-member-" + m, () -> {
                try {
                    while (!stop.get()) {
                        AtomicReference<Consumer> self = new AtomicReference<>();
                        Consumer c = k.groupConsumer("grown", "g", ConsumerOptions.DEFAULTS.withRebalanceListener(
                                new ConsumerRebalanceListener() {
                                    @Override
                                    public void onPartitionsRevoked(Collection<Integer> partitions) {
                                        self.get().commit();
                                    }

                                    @Override
                                    public void onPartitionsAssigned(Collection<Integer> partitions) {
                                        int n;
                                        synchronized (rebalances) {
                                            n = rebalances.get() + 1;
                                            rebalances.set(n);
                                        }
                                        if (n == closeAtRebalance) {
                                            try {
                                                k.close();
                                                closedByCallback.set(true);
                                            } catch (Throwable t) {
                                                closedInCallback.set(t);
                                            }
                                        }
                                    }
                                }));
                        self.set(c);
                        try {
                            for (int i = 0; i < 5 + member * 7 && !stop.get(); i++) {
                                try {
                                    List<KafkoRecord> records = c.poll(Duration.ofMillis(20));
                                    if (i % 3 == 0) {
                                        c.seekToTimestamp(System.currentTimeMillis() - 20);
                                    }
                                    if (!records.isEmpty()) {
                                        c.commit();
                                    }
                                } catch (InterruptException e) {
                                    Thread.interrupted();
                                }
                            }
                        } finally {
                            c.close();
                        }
                    }
                } catch (Throwable t) {
                    failed("member", t);
                }
            }));
        }
        long closeAfter = 20 + chaos.nextInt(400);
        long start = System.nanoTime();
        while (System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(closeAfter) && !closedByCallback.get()) {
            Thread.sleep(3);
            if (chaos.nextInt(5) == 0) {
                threads.get(3 + chaos.nextInt(2)).interrupt(); // a member
            }
        }
        if (from.equals("thread")) {
            Thread closer = Workload.start("admin-race-closer", k::close);
            closer.join(20_000);
            assertThat(closer.isAlive()).as("close returned").isFalse();
        }
        k.close();
        stop.set(true);
        for (Thread t : threads) {
            t.interrupt();
            t.join(15_000);
            assertThat(t.isAlive()).as("%s ended after close", t.getName()).isFalse();
        }
        if (closedInCallback.get() != null) {
            failed("close in a rebalance callback", closedInCallback.get());
        }
        System.out.printf("seed %d close from %s after %d ms (rebalance %d): %d acknowledged, %d partitions%n", seed,
                from, closeAfter, closeAtRebalance, acked.size(), grown.partitionCount());
        assertThat(unexpected).as("unexpected").isEmpty();
        Workload.awaitKafkoThreadsEnded(threadsBefore);
        try (Kafko again = Kafko.open(dir)) {
            Topic t = again.topic("grown").orElseThrow();
            long dirs;
            try (Stream<Path> s = Files.list(dir.resolve("grown"))) {
                dirs = s.filter(Files::isDirectory).filter(p -> p.getFileName().toString().matches("\\d+")).count();
            }
            assertThat(t.partitionCount()).as("partition count against directories").isEqualTo((int) dirs);
            Map<String, String> read = new ConcurrentHashMap<>();
            long ends = t.partitions().stream().mapToLong(p -> p.endOffset()).sum();
            try (Consumer c = again.consumer("grown")) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (read.size() < ends && System.nanoTime() < deadline) {
                    for (KafkoRecord r : c.poll(Duration.ofMillis(50))) {
                        read.put(r.partition() + "/" + r.offset(), new String(r.value(), StandardCharsets.UTF_8));
                    }
                }
            }
            assertThat(read).as("records after reopen").hasSize((int) ends);
            acked.forEach((pos, value) -> assertThat(read.get(pos)).as("after reopen at %s", pos).isEqualTo(value));
        }
    }
}
