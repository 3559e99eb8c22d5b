package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.Producer;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Producers, a consumer, retention at age 0 and a byte cap, and {@code close()} at a seeded random
 * moment, repeated: the consumer sees offsets strictly increasing and without gaps except jumps
 * over ranges retention deleted (checked against the log start), the only exception anyone sees
 * is {@link KafkoClosedException}, every send future completes, and no kafko-* thread or file
 * descriptor is left behind.
 */
class CloseRaceTest {

    private static final long SEED = Workload.seed("kafko.closerace.seed", 0x5EED_0009L);

    @TempDir
    Path tmp;

    @Test
    void closeRacingProducersConsumerAndRetentionLeavesNothingBehind() throws Exception {
        run(8, SEED);
    }

    @Test
    @Tag("stress")
    void hundredClosesRacingProducersConsumerAndRetention() throws Exception {
        run(100, SEED + 1);
    }

    private void run(int rounds, long seed) throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        round(tmp.resolve("warm-up"), 100);
        List<String> fdsBefore = Workload.openFileDescriptorTargets();
        java.util.Set<Thread> threadsBefore = Workload.kafkoThreadSet();
        long sent = 0;
        long seen = 0;
        long jumps = 0;
        for (int r = 0; r < rounds; r++) {
            long[] figures = round(tmp.resolve("round-" + r), 30 + random.nextInt(400));
            sent += figures[0];
            seen += figures[1];
            jumps += figures[2];
        }
        System.gc();
        List<String> fdsAfter = Workload.openFileDescriptorTargets();
        List<String> opened = new ArrayList<>(fdsAfter);
        fdsBefore.forEach(opened::remove);
        System.out.printf("close race seed=%d: %d rounds, %d sends, %d records consumed, %d jumps over deleted"
                + " ranges, fds %d -> %d (new: %s), kafko threads %d -> %d%n", seed, rounds, sent, seen, jumps,
                fdsBefore.size(), fdsAfter.size(), opened, threadsBefore.size(), Workload.kafkoThreads());
        Workload.awaitKafkoThreadsEnded(threadsBefore); // a close from a callback may still be ending its thread
        // every file kafko opens lies in its data directory; the JVM opens its own lazily (a jar, a pipe)
        assertThat(fdsAfter.stream().filter(target -> target.startsWith(tmp.toString())))
                .as("descriptors left open on files of the data directories").isEmpty();
    }

    /** One round; returns {sends, records consumed, jumps}. */
    private long[] round(Path dir, long closeAfterMillis) throws Exception {
        ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<CompletableFuture<?>> futures = new ConcurrentLinkedQueue<>();
        AtomicLong consumed = new AtomicLong();
        AtomicLong jumps = new AtomicLong();
        Kafko kafko = Kafko.open(dir, KafkoOptions.builder().retentionCheckInterval(Duration.ofMillis(5)).build());
        Topic topic = kafko.createTopic(Workload.TOPIC, TopicConfig.builder().partitions(2).segmentBytes(4096)
                .retention(Duration.ZERO).retentionBytes(16 * 1024).build());
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
            String writer = "w" + w;
            threads.add(Workload.start("close-race-producer-" + w, () -> produce(kafko, writer, futures, unexpected)));
        }
        threads.add(Workload.start("close-race-consumer", () -> consume(kafko, topic, consumed, jumps, unexpected)));
        Thread.sleep(closeAfterMillis);
        kafko.close();
        for (Thread t : threads) {
            t.join(30_000);
            assertThat(t.isAlive()).as("%s ended after close", t.getName()).isFalse();
        }
        for (CompletableFuture<?> f : futures) {
            try {
                f.get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                if (!(e.getCause() instanceof KafkoClosedException)) {
                    unexpected.add(e.getCause());
                }
            }
        }
        assertThat(unexpected).as("exceptions other than KafkoClosedException").isEmpty();
        return new long[] {futures.size(), consumed.get(), jumps.get()};
    }

    private static void produce(Kafko kafko, String writer, ConcurrentLinkedQueue<CompletableFuture<?>> futures,
            ConcurrentLinkedQueue<Throwable> unexpected) {
        try {
            Producer p = kafko.producer(Workload.TOPIC);
            for (long seq = 0; ; seq++) {
                byte[] key = Workload.key(writer, seq);
                CompletableFuture<?> f = p.send(key, Workload.value(key));
                futures.add(f);
                if (seq % 64 == 0) {
                    f.join();
                }
            }
        } catch (KafkoClosedException | CompletionException e) {
            if (!(e instanceof KafkoClosedException) && !(e.getCause() instanceof KafkoClosedException)) {
                unexpected.add(e);
            }
        } catch (RuntimeException e) {
            unexpected.add(e);
        }
    }

    private static void consume(Kafko kafko, Topic topic, AtomicLong consumed, AtomicLong jumps,
            ConcurrentLinkedQueue<Throwable> unexpected) {
        Map<Integer, Long> last = new ConcurrentHashMap<>();
        // a slow reader, so that retention deletes records it has not read yet
        try (Consumer c = kafko.consumer(Workload.TOPIC, dev.kafko.ConsumerOptions.DEFAULTS.withMaxPollRecords(16))) {
            while (true) {
                Thread.sleep(2);
                for (KafkoRecord r : c.poll(Duration.ofMillis(20))) {
                    Long prev = last.put(r.partition(), r.offset());
                    long expected = prev == null ? 0 : prev + 1;
                    if (r.offset() != expected) {
                        assertThat(r.offset()).as("offsets only move forward").isGreaterThan(expected);
                        // a jump is allowed only over records retention deleted
                        assertThat(topic.partition(r.partition()).logStartOffset())
                                .as("log start after a jump from %d to %d", expected, r.offset())
                                .isGreaterThan(expected);
                        jumps.incrementAndGet();
                    }
                    assertThat(Workload.checksum(r.value())).isEqualTo(Workload.checksum(Workload.value(r.key())));
                    consumed.incrementAndGet();
                }
            }
        } catch (KafkoClosedException e) {
            // the documented end
        } catch (RuntimeException | AssertionError e) {
            unexpected.add(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
