package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.ConsumerRebalanceListener;
import dev.kafko.InterruptException;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Topic.increasePartitions} while keyed senders run, while a group rebalances (a member leaves and joins
 * again in a loop) and while a member is blocked in a long poll; {@code wakeup()} and {@code Thread.interrupt()}
 * of members and senders at seeded moments. Members commit after every poll and in {@code onPartitionsRevoked},
 * so the group sees every acknowledged record exactly once. Checked: no record delivered twice to the group, none
 * missing, per key and partition the sequence grows, no exception but those documented (a poll's
 * {@link InterruptException}), no thread left after close, and after a reopen every acknowledged record is at its
 * acknowledged offset and the offsets of each partition run from 0 without a gap.
 */
class IncreasePartitionsRaceTest {

    private static final int KEYS_PER_SENDER = 8;
    private static final int SENDERS = 2;
    private static final int MEMBERS = 3;
    private static final long SEND_MILLIS = 2_500;

    @TempDir
    Path tmp;

    final ConcurrentLinkedQueue<String> unexpected = new ConcurrentLinkedQueue<>();
    /** partition → offset → "key:seq", of every acknowledged send. */
    final Map<Integer, Map<Long, String>> acked = new ConcurrentHashMap<>();
    /** partition → offset → "key:seq", of every record the group was given. */
    final Map<Integer, Map<Long, String>> seen = new ConcurrentHashMap<>();
    final ConcurrentLinkedQueue<String> duplicates = new ConcurrentLinkedQueue<>();
    final AtomicBoolean stopSending = new AtomicBoolean();
    final AtomicBoolean stopMembers = new AtomicBoolean();

    void unexpected(String who, Throwable t) {
        java.io.StringWriter sw = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(sw));
        unexpected.add(who + ": " + sw);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {0x1A, 0x2B, 0x3C})
    @Timeout(value = 40, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void growingUnderKeyedSendsARebalanceAndABlockedPollDeliversEveryAckedRecordOnce(long seed) throws Exception {
        Set<Thread> threadsBefore = Workload.kafkoThreadSet();
        Path dir = tmp.resolve("data");
        Kafko k = Kafko.open(dir, KafkoOptions.builder().build());
        Topic topic = k.createTopic("t", TopicConfig.builder().partitions(2).segmentBytes(16 * 1024).build());
        List<Thread> senders = new ArrayList<>();
        for (int s = 0; s < SENDERS; s++) {
            int sender = s;
            senders.add(new Thread(() -> send(k, sender, new SplittableRandom(seed * 31 + sender)), "race-sender-" + s));
        }
        List<Thread> members = new ArrayList<>();
        List<AtomicReference<Consumer>> consumers = new ArrayList<>();
        for (int m = 0; m < MEMBERS; m++) {
            int member = m;
            AtomicReference<Consumer> holder = new AtomicReference<>();
            consumers.add(holder);
            members.add(new Thread(() -> consume(k, member, holder, new SplittableRandom(seed * 17 + member)),
                    "race-member-" + m));
        }
        members.forEach(Thread::start);
        senders.forEach(Thread::start);
        SplittableRandom chaos = new SplittableRandom(seed);
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SEND_MILLIS);
        int count = 2;
        while (System.nanoTime() < end) {
            Thread.sleep(40 + chaos.nextInt(80));
            switch (chaos.nextInt(6)) {
                case 0, 1 -> {
                    if (count < 12) {
                        topic.increasePartitions(++count);
                    }
                }
                case 2 -> {
                    Consumer c = consumers.get(chaos.nextInt(MEMBERS)).get();
                    if (c != null) {
                        c.wakeup();
                    }
                }
                case 3 -> members.get(chaos.nextInt(MEMBERS)).interrupt();
                case 4 -> senders.get(chaos.nextInt(SENDERS)).interrupt();
                default -> {
                    // a pause
                }
            }
        }
        stopSending.set(true);
        for (Thread t : senders) {
            t.join(10_000);
            assertThat(t.isAlive()).as("%s ended", t.getName()).isFalse();
        }
        k.producer("t").flush();
        long ackedCount = count(acked);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (count(seen) < ackedCount && System.nanoTime() < deadline && unexpected.isEmpty()) {
            Thread.sleep(20);
        }
        stopMembers.set(true);
        for (int m = 0; m < MEMBERS; m++) {
            Consumer c = consumers.get(m).get();
            if (c != null) {
                c.wakeup();
            }
            members.get(m).join(10_000);
            assertThat(members.get(m).isAlive()).as("member %d ended", m).isFalse();
        }
        System.out.printf("seed %d: %d partitions, %d acknowledged, %d delivered, %d duplicates%n", seed, count,
                ackedCount, count(seen), duplicates.size());
        assertThat(unexpected).as("unexpected failures").isEmpty();
        assertThat(duplicates).as("records the group was given twice").isEmpty();
        for (Map.Entry<Integer, Map<Long, String>> e : acked.entrySet()) {
            Map<Long, String> got = seen.getOrDefault(e.getKey(), Map.of());
            for (Map.Entry<Long, String> r : e.getValue().entrySet()) {
                assertThat(got.get(r.getKey())).as("partition %d offset %d delivered", e.getKey(), r.getKey())
                        .isEqualTo(r.getValue());
            }
        }
        k.close();
        Workload.awaitKafkoThreadsEnded(threadsBefore);
        verifyAfterReopen(dir, count);
    }

    private static long count(Map<Integer, Map<Long, String>> m) {
        return m.values().stream().mapToLong(Map::size).sum();
    }

    private void send(Kafko k, int sender, SplittableRandom random) {
        Producer p = k.producer("t");
        long[] seq = new long[KEYS_PER_SENDER];
        CompletableFuture<RecordPosition> last = null;
        try {
            for (int i = 0; !stopSending.get(); i++) {
                Thread.interrupted(); // an interrupt of the test's chaos is for one send at most
                int key = random.nextInt(KEYS_PER_SENDER);
                String text = "s" + sender + "k" + key + ":" + seq[key]++;
                String keyText = text.substring(0, text.indexOf(':'));
                last = p.send(keyText.getBytes(StandardCharsets.UTF_8), text.getBytes(StandardCharsets.UTF_8));
                last.whenComplete((pos, e) -> {
                    if (e == null) {
                        acked.computeIfAbsent(pos.partition(), x -> new ConcurrentHashMap<>()).put(pos.offset(), text);
                    } else if (!(e instanceof InterruptException)) {
                        unexpected("send future " + text, e);
                    }
                });
                if (i % 16 == 0) {
                    last.exceptionally(e -> null).join();
                }
            }
        } catch (RuntimeException e) {
            unexpected("sender " + sender, e);
        }
    }

    private void consume(Kafko k, int member, AtomicReference<Consumer> holder, SplittableRandom random) {
        Map<String, Long> lastSeq = new HashMap<>(); // "partition/key" → seq, per member: a key's order within a partition
        long rejoinAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100 + random.nextInt(300));
        Duration timeout = member == 0 ? Duration.ofSeconds(3) : Duration.ofMillis(50);
        try {
            while (!stopMembers.get()) {
                Consumer c = holder.get();
                if (c == null) {
                    AtomicReference<Consumer> self = new AtomicReference<>();
                    c = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withRebalanceListener(
                            new ConsumerRebalanceListener() {
                                @Override
                                public void onPartitionsRevoked(Collection<Integer> partitions) {
                                    self.get().commit();
                                }
                            }));
                    self.set(c);
                    holder.set(c);
                    lastSeq.clear(); // another member may have read the partitions meanwhile
                }
                List<KafkoRecord> records;
                try {
                    records = c.poll(timeout);
                } catch (InterruptException e) {
                    Thread.interrupted();
                    continue;
                }
                for (KafkoRecord r : records) {
                    String text = new String(r.value(), StandardCharsets.UTF_8);
                    String before = seen.computeIfAbsent(r.partition(), x -> new ConcurrentHashMap<>())
                            .putIfAbsent(r.offset(), text);
                    if (before != null) {
                        duplicates.add("member " + member + " partition " + r.partition() + " offset " + r.offset());
                    }
                    String key = text.substring(0, text.indexOf(':'));
                    long s = Long.parseLong(text.substring(text.indexOf(':') + 1));
                    Long prev = lastSeq.put(r.partition() + "/" + key, s);
                    if (prev != null && prev >= s) {
                        unexpected.add("member " + member + ": key " + key + " in partition " + r.partition()
                                + " went from seq " + prev + " to " + s + " at offset " + r.offset());
                    }
                    assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo(key);
                }
                c.commit();
                if (member == 2 && System.nanoTime() > rejoinAt) {
                    c.close(); // commits in onPartitionsRevoked; the others take its partitions
                    holder.set(null);
                    rejoinAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100 + random.nextInt(300));
                }
            }
            Consumer c = holder.get();
            if (c != null) {
                c.close();
            }
        } catch (Throwable t) {
            unexpected("member " + member, t);
        }
    }

    /** Every acknowledged record at its offset; each partition's offsets from 0 without a gap. */
    private void verifyAfterReopen(Path dir, int partitions) {
        try (Kafko k = Kafko.open(dir); Consumer c = k.consumer("t")) {
            assertThat(k.topic("t").orElseThrow().partitionCount()).isEqualTo(partitions);
            Map<Integer, TreeMap<Long, String>> read = new HashMap<>();
            long total = 0;
            long ends = k.topic("t").orElseThrow().partitions().stream().mapToLong(p -> p.endOffset()).sum();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (total < ends && System.nanoTime() < deadline) {
                for (KafkoRecord r : c.poll(Duration.ofMillis(100))) {
                    read.computeIfAbsent(r.partition(), x -> new TreeMap<>())
                            .put(r.offset(), new String(r.value(), StandardCharsets.UTF_8));
                    total++;
                }
            }
            for (Map.Entry<Integer, TreeMap<Long, String>> e : read.entrySet()) {
                long expected = 0;
                for (long offset : e.getValue().keySet()) {
                    assertThat(offset).as("partition %d: offsets without a gap", e.getKey()).isEqualTo(expected++);
                }
            }
            for (Map.Entry<Integer, Map<Long, String>> e : acked.entrySet()) {
                for (Map.Entry<Long, String> r : e.getValue().entrySet()) {
                    assertThat(read.getOrDefault(e.getKey(), new TreeMap<>()).get(r.getKey()))
                            .as("after reopen, partition %d offset %d", e.getKey(), r.getKey()).isEqualTo(r.getValue());
                }
            }
        }
    }
}
