package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import dev.kafko.Compression;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.JMException;
import javax.management.ObjectName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Soak (profile {@code stress} only): {@code kafko.soak.minutes} (default 10) of mixed load on one
 * instance: producers on an uncompressed and an LZ4 topic, group consumers that commit, retention
 * at a byte cap, and a short-lived topic created, used and deleted over and over. Two more threads
 * pipeline bursts of 5,000 sends into one partition without waiting for any, through send queues
 * bounded at 256 KiB ({@code maxQueuedBytes}), so that senders wait for room all along. Heap after GC,
 * kafko-* threads and open file descriptors are sampled every 30 s and printed; the last samples
 * must be flat against the first ones.
 */
@Tag("stress")
class SoakTest {

    private static final long MINUTES = Long.getLong("kafko.soak.minutes", 10);
    /** A heap after GC above this is printed with the classes that fill it. */
    private static final long HEAP_WORTH_EXPLAINING = Long.getLong("kafko.soak.explainHeapMiB", 48) << 20;

    @TempDir
    Path tmp;

    @Test
    void tenMinutesOfMixedLoadKeepHeapThreadsAndFileDescriptorsFlat() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong sent = new AtomicLong();
        AtomicLong consumed = new AtomicLong();
        AtomicLong churn = new AtomicLong();
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        List<long[]> samples = new ArrayList<>();
        KafkoOptions options = KafkoOptions.builder().retentionCheckInterval(Duration.ofMillis(500))
                .maxQueuedBytes(256 << 10).build();
        try (Kafko kafko = Kafko.open(tmp, options)) {
            TopicConfig base = TopicConfig.builder().partitions(4).segmentBytes(1 << 20).retentionBytes(4 << 20)
                    .build();
            kafko.createTopic("plain", base);
            kafko.createTopic("packed", base.toBuilder().compression(Compression.LZ4).build());
            List<Thread> threads = new ArrayList<>();
            for (String topic : List.of("plain", "packed")) {
                threads.add(Workload.start("soak-producer-" + topic,
                        guard(errors, () -> produce(kafko, topic, stop, sent))));
                threads.add(Workload.start("soak-consumer-" + topic, guard(errors, () -> consume(kafko, topic, stop,
                        consumed))));
            }
            threads.add(Workload.start("soak-churn", guard(errors, () -> churn(kafko, stop, churn))));
            for (int i = 0; i < 2; i++) {
                threads.add(Workload.start("soak-pipeliner-" + i, guard(errors, () -> pipeline(kafko, stop, sent))));
            }
            long end = System.nanoTime() + Duration.ofMinutes(MINUTES).toNanos();
            long started = System.nanoTime();
            while (System.nanoTime() < end && errors.isEmpty()) {
                Thread.sleep(Math.min(30_000, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
                long[] s = sample(started, sent.get(), consumed.get(), churn.get());
                samples.add(s);
                System.out.printf("soak t=%ds heap-after-gc=%d KiB kafko-threads=%d fds=%d sent=%d consumed=%d"
                        + " topics-churned=%d%n", s[0], s[1] / 1024, s[2], s[3], s[4], s[5], s[6]);
            }
            stop.set(true);
            for (Thread t : threads) {
                t.join(30_000);
            }
        }
        assertThat(errors).as("errors under load").isEmpty();
        assertThat(samples.size()).isGreaterThanOrEqualTo(2);
        long[] first = samples.get(Math.min(1, samples.size() - 1));
        long[] last = samples.get(samples.size() - 1);
        assertThat(last[1]).as("heap after GC, last vs second sample").isLessThan(first[1] * 3 / 2 + (16 << 20));
        assertThat(last[2]).as("kafko threads").isEqualTo(first[2]);
        // open descriptors swing by a score with the segments, tail-read channels, churned topics and the
        // rolled segments whose seal is pending (up to 4 a partition, each with its channels) open at the
        // moment of a sample (82-102 within one run, 70-102 in one beside a build): a leak raises their level
        // with every churned topic or segment (thousands here), so the medians of the early and the late
        // samples are compared, not two single samples, with room for that swing
        int window = Math.max(1, Math.min(5, (samples.size() - 1) / 2));
        List<long[]> early = samples.subList(1, Math.min(samples.size(), 1 + window));
        List<long[]> late = samples.subList(samples.size() - window, samples.size());
        assertThat(median(late, 3)).as("file descriptors, median of the last %d samples", late.size())
                .isLessThanOrEqualTo(median(early, 3) + 32);
    }

    private static long median(List<long[]> samples, int column) {
        long[] values = samples.stream().mapToLong(s -> s[column]).sorted().toArray();
        return values[values.length / 2];
    }

    private static long[] sample(long started, long sent, long consumed, long churn) {
        return new long[] {(System.nanoTime() - started) / 1_000_000_000, heapAfterGc(),
                Workload.kafkoThreads(), Workload.openFileDescriptors(), sent, consumed, churn};
    }

    /**
     * The heap in use right after a full GC, the least of three tries: the load threads go on
     * allocating while this thread reads the figure, and one sample read 54 MiB, another 138 MiB, among
     * readings of 13-15 MiB. A figure still high after three tries is live data: the largest classes
     * on the heap are printed, to say what holds it.
     */
    private static long heapAfterGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 3 && least > HEAP_WORTH_EXPLAINING; i++) {
            System.gc();
            least = Math.min(least, memory.getHeapMemoryUsage().getUsed());
        }
        if (least > HEAP_WORTH_EXPLAINING) {
            System.out.println("soak heap after GC is " + least / 1024 + " KiB; largest classes:\n" + histogram());
        }
        return least;
    }

    private static String histogram() {
        try {
            Object out = ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
            return String.join("\n", String.valueOf(out).lines().limit(20).toList());
        } catch (JMException e) {
            return "(no histogram: " + e + ")";
        }
    }

    private static Runnable guard(ConcurrentLinkedQueue<Throwable> errors, Runnable body) {
        return () -> {
            try {
                body.run();
            } catch (RuntimeException | AssertionError e) {
                errors.add(e);
            }
        };
    }

    private static void produce(Kafko kafko, String topic, AtomicBoolean stop, AtomicLong sent) {
        Producer p = kafko.producer(topic);
        for (long seq = 0; !stop.get(); seq++) {
            byte[] key = Workload.key(topic, seq);
            var f = p.send(key, Workload.value(key));
            if (seq % 256 == 0) {
                f.join();
                sleep(1);
            }
            sent.incrementAndGet();
        }
    }

    /** Bursts of 5,000 sends to partition 0 of "plain", none waited for; a failed one is an error. */
    private static void pipeline(Kafko kafko, AtomicBoolean stop, AtomicLong sent) {
        Producer p = kafko.producer("plain");
        String name = Thread.currentThread().getName();
        for (long seq = 0; !stop.get(); seq++) {
            byte[] key = Workload.key(name, seq);
            var f = p.sendTo(0, key, Workload.value(key));
            if (f.isCompletedExceptionally()) {
                f.join();
            }
            sent.incrementAndGet();
            if (seq % 5_000 == 4_999) {
                sleep(50);
            }
        }
    }

    private static void consume(Kafko kafko, String topic, AtomicBoolean stop, AtomicLong consumed) {
        try (Consumer c = kafko.groupConsumer(topic, "soak")) {
            while (!stop.get()) {
                List<KafkoRecord> got = c.poll(Duration.ofMillis(50));
                for (KafkoRecord r : got) {
                    assertThat(Workload.checksum(r.value())).isEqualTo(Workload.checksum(Workload.value(r.key())));
                }
                consumed.addAndGet(got.size());
                if (!got.isEmpty()) {
                    c.commit();
                }
            }
        }
    }

    private static void churn(Kafko kafko, AtomicBoolean stop, AtomicLong churn) {
        while (!stop.get()) {
            kafko.createTopic("short-lived", TopicConfig.builder().partitions(2).build());
            Producer p = kafko.producer("short-lived");
            for (int i = 0; i < 100; i++) {
                p.send(null, new byte[100]).join();
            }
            try (Consumer c = kafko.groupConsumer("short-lived", "g")) {
                c.poll(Duration.ofMillis(20));
                c.commit();
            }
            kafko.deleteTopic("short-lived");
            churn.incrementAndGet();
            sleep(50);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
