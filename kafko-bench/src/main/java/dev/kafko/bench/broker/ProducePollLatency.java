package dev.kafko.bench.broker;

import dev.kafko.Consumer;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * Produce-to-poll latency at a fixed rate (default 100,000 records/s of 256 bytes for 5 s after
 * 2 s of warm-up): a consumer thread waits in {@code poll} (parked, never spinning) and measures,
 * per record, the time from just before {@code send} to its return from {@code poll}. The producer
 * paces itself by the clock, parking while it is ahead. Not a JMH benchmark because JMH measures
 * the caller's operation, not a hand-off between two threads at a set rate.
 *
 * <p>Usage: {@code java -cp ... dev.kafko.bench.broker.ProducePollLatency [rate] [seconds]}
 */
public final class ProducePollLatency {

    private ProducePollLatency() {
    }

    public static void main(String[] args) throws Exception {
        int rate = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int warmup = 2 * rate;
        int total = warmup + seconds * rate;
        long[] latencies = new long[total];
        Path dir = BenchDirs.create();
        try (Kafko kafko = Kafko.open(dir)) {
            kafko.createTopic("t", TopicConfig.builder().segmentBytes(512L << 20).build());
            Producer producer = kafko.producer("t");
            Consumer consumer = kafko.consumer("t");
            Thread reader = new Thread(() -> {
                int seen = 0;
                while (seen < total) {
                    for (KafkoRecord r : consumer.poll(Duration.ofSeconds(1))) {
                        long now = System.nanoTime();
                        latencies[seen++] = now - ByteBuffer.wrap(r.value()).getLong();
                    }
                }
            }, "latency-reader");
            reader.start();
            byte[] template = new byte[ProduceBenchmark.VALUE_BYTES];
            long interval = 1_000_000_000L / rate;
            long start = System.nanoTime();
            for (int i = 0; i < total; i++) {
                long due = start + i * interval;
                long ahead = due - System.nanoTime();
                if (ahead > 20_000) {
                    LockSupport.parkNanos(ahead - 10_000);
                }
                byte[] value = template.clone();
                ByteBuffer.wrap(value).putLong(System.nanoTime());
                producer.send(null, value);
            }
            reader.join();
            consumer.close();
        } finally {
            BenchDirs.delete(dir);
        }
        long[] measured = Arrays.copyOfRange(latencies, warmup, total);
        Arrays.sort(measured);
        System.out.printf("rate %d/s, %d records: p50 %.1f us, p90 %.1f us, p99 %.1f us, p99.9 %.1f us, max %.1f us%n",
                rate, measured.length, pct(measured, 0.50), pct(measured, 0.90), pct(measured, 0.99),
                pct(measured, 0.999), measured[measured.length - 1] / 1e3);
    }

    private static double pct(long[] sorted, double q) {
        return sorted[(int) Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))] / 1e3;
    }
}
