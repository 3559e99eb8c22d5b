package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.InterruptException;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.Producer;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.internal.log.LogBridge;
import dev.kafko.internal.log.MutableClock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Retention deleting segments continuously (a retention time against an injected clock moved by a test thread, or a
 * tiny {@code retentionBytes}; checked every millisecond) while group members seek to the log start, to timestamps
 * and to offsets near the start, read there and commit; sends go on meanwhile, and callers are interrupted and woken
 * at seeded moments. Under {@code EARLIEST} nothing may throw but a poll's {@link InterruptException}; every record
 * read is the one acknowledged at its offset; within a partition a member's reads only move forward, and a jump over
 * offsets it did not read is a jump over offsets retention deleted (below the log start afterwards); a commit is
 * never past the end.
 */
class RetentionRaceTest {

    private static final long RUN_MILLIS = 2_500;

    @TempDir
    Path tmp;

    final ConcurrentLinkedQueue<String> unexpected = new ConcurrentLinkedQueue<>();
    final Map<Integer, Map<Long, String>> acked = new ConcurrentHashMap<>();
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong reads = new AtomicLong();
    final AtomicLong jumps = new AtomicLong();

    @AfterEach
    void restoreTheMappingLimit() {
        LogBridge.setMappingLimit(-1);
    }

    void unexpected(String who, Throwable t) {
        java.io.StringWriter sw = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(sw));
        unexpected.add(who + ": " + sw);
    }

    @ParameterizedTest
    @CsvSource({"21, time, true", "22, bytes, true", "23, time, false", "24, bytes, false"})
    @Timeout(value = 40, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void readersAtTheLogStartRacingRetentionSeeOnlyAckedRecordsAndJumpOnlyOverDeletedOnes(long seed, String by,
            boolean mapped) throws Exception {
        Set<Thread> threadsBefore = Workload.kafkoThreadSet();
        if (!mapped) {
            LogBridge.setMappingLimit(0); // sealed segments read through channels opened at the read
        }
        MutableClock clock = new MutableClock(1_700_000_000_000L);
        TopicConfig.Builder config = TopicConfig.builder().partitions(2).segmentBytes(1024);
        config = by.equals("time") ? config.retention(Duration.ofSeconds(5)) : config.retentionBytes(4 * 1024);
        Kafko k = Kafko.open(tmp.resolve("data"), KafkoOptions.builder().clock(clock)
                .retentionCheckInterval(Duration.ofMillis(1)).build());
        Topic topic = k.createTopic("t", config.build());
        List<Thread> threads = new ArrayList<>();
        threads.add(Workload.start("retention-sender", () -> send(k)));
        for (int m = 0; m < 2; m++) {
            int member = m;
            threads.add(Workload.start("retention-member-" + m,
                    () -> read(k, topic, clock, member, new SplittableRandom(seed * 13 + member))));
        }
        SplittableRandom chaos = new SplittableRandom(seed);
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RUN_MILLIS);
        while (System.nanoTime() < end) {
            Thread.sleep(5);
            clock.advance(Duration.ofMillis(200 + chaos.nextInt(400)));
            if (chaos.nextInt(20) == 0) {
                threads.get(chaos.nextInt(threads.size())).interrupt();
            }
        }
        stop.set(true);
        for (Thread t : threads) {
            t.join(10_000);
            assertThat(t.isAlive()).as("%s ended", t.getName()).isFalse();
        }
        k.close();
        System.out.printf("seed %d by %s mapped %s: %d acknowledged, %d read, %d jumps over deleted offsets%n", seed, by,
                mapped, acked.values().stream().mapToLong(Map::size).sum(), reads.get(), jumps.get());
        assertThat(unexpected).as("unexpected").isEmpty();
        Workload.awaitKafkoThreadsEnded(threadsBefore);
    }

    private void send(Kafko k) {
        Producer p = k.producer("t");
        try {
            for (long seq = 0; !stop.get(); seq++) {
                Thread.interrupted();
                String text = "v" + seq + "-" + "x".repeat((int) (seq % 90));
                p.send(null, text.getBytes(StandardCharsets.UTF_8)).whenComplete((pos, e) -> {
                    if (e == null) {
                        acked.computeIfAbsent(pos.partition(), x -> new ConcurrentHashMap<>()).put(pos.offset(), text);
                    } else if (!(e instanceof InterruptException)) {
                        unexpected("send future", e);
                    }
                });
                if (seq % 8 == 0) {
                    p.flush();
                }
            }
        } catch (InterruptException e) {
            // flush of an interrupted thread: documented
        } catch (Throwable t) {
            unexpected("sender", t);
        }
    }

    private void read(Kafko k, Topic topic, MutableClock clock, int member, SplittableRandom random) {
        Consumer c = k.groupConsumer("t", "g");
        long[] last = {-1, -1}; // the offset after the last record read, per partition; -1 after a seek
        try {
            while (!stop.get()) {
                Thread.interrupted();
                try {
                    switch (random.nextInt(7)) {
                        case 0 -> {
                            c.seekToBeginning();
                            last[0] = last[1] = -1;
                        }
                        case 1 -> {
                            c.seekToTimestamp(clock.millis() - 4_000 - random.nextInt(4_000));
                            last[0] = last[1] = -1;
                        }
                        case 2 -> {
                            for (int p : c.assignment()) {
                                // at the log start, or just below it: retention may have moved it meanwhile
                                c.seek(p, Math.max(0, topic.partition(p).logStartOffset() - random.nextInt(3)));
                                last[p] = -1;
                            }
                        }
                        case 3 -> {
                            c.commit();
                            for (int p : c.assignment()) {
                                long committed = c.committed(p).orElse(0);
                                assertThat(committed).as("commit of partition %d", p)
                                        .isLessThanOrEqualTo(topic.partition(p).endOffset());
                            }
                        }
                        case 4 -> k.groupInfo("t", "g");
                        default -> {
                            List<KafkoRecord> records = c.poll(Duration.ofMillis(random.nextInt(5)));
                            check(topic, records, last);
                        }
                    }
                } catch (InterruptException e) {
                    // a poll that would wait on an interrupted thread: documented
                }
            }
            c.close();
        } catch (Throwable t) {
            unexpected("member " + member, t);
        }
    }

    private void check(Topic topic, List<KafkoRecord> records, long[] last) {
        for (KafkoRecord r : records) {
            reads.incrementAndGet();
            String want = acked.getOrDefault(r.partition(), Map.of()).get(r.offset());
            String got = new String(r.value(), StandardCharsets.UTF_8);
            if (want != null) {
                assertThat(got).as("partition %d offset %d", r.partition(), r.offset()).isEqualTo(want);
            } else {
                assertThat(got).startsWith("v"); // acknowledged after the read: its callback has not run yet
            }
            long expected = last[r.partition()];
            if (expected >= 0 && r.offset() != expected) {
                assertThat(r.offset()).as("partition %d moves forward", r.partition()).isGreaterThan(expected);
                assertThat(topic.partition(r.partition()).logStartOffset())
                        .as("partition %d: a jump from %d to %d is over deleted offsets", r.partition(), expected,
                                r.offset())
                        .isGreaterThan(expected);
                jumps.incrementAndGet();
            }
            last[r.partition()] = r.offset() + 1;
        }
    }
}
