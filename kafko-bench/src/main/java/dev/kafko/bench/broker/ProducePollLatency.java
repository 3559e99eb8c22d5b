package dev.kafko.bench.broker;

import dev.kafko.Consumer;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Produce-to-poll latency at a fixed rate (default 100,000 records/s of 256 bytes for 5 s after
 * 10 s of warm-up): a consumer thread waits in {@code poll} (parked, never spinning) and measures,
 * per record, the time from just before {@code send} to its return from {@code poll}. The producer
 * paces itself by the clock, parking while it is ahead. Not a JMH benchmark because JMH measures
 * the caller's operation, not a hand-off between two threads at a set rate.
 *
 * <p>With {@code baseline} as third argument, the same two threads and the same pacing hand the
 * values over through a {@link ConcurrentLinkedQueue} and {@link LockSupport#unpark} instead of
 * kafko: the floor that parking and waking a thread sets on this machine, for comparison.
 *
 * <p>The warm-up is long because the pacing producer keeps one of the machine's two vCPUs busy: with
 * 2 s, the JIT compiler was still competing with the consumer for the other one, and most records
 * slower than 300 µs fell in the first two measured seconds (p99 0.5-2.0 ms, against 80-146 µs
 * after 10 s).
 *
 * <p>Usage: {@code java -cp ... dev.kafko.bench.broker.ProducePollLatency [rate] [seconds] [baseline]}
 */
public final class ProducePollLatency {

    private static final int WARMUP_SECONDS = 10;

    private ProducePollLatency() {
    }

    /** One way from the producer thread to the consumer thread. */
    private interface Channel extends AutoCloseable {
        void send(byte[] value);

        /** Waits for values (parked) and returns the ones that arrived, possibly none. */
        Iterable<byte[]> receive();

        @Override
        void close();
    }

    public static void main(String[] args) throws Exception {
        int rate = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        boolean baseline = args.length > 2 && args[2].equals("baseline");
        int warmup = WARMUP_SECONDS * rate;
        int total = warmup + seconds * rate;
        long[] latencies = new long[total];
        Path dir = BenchDirs.create();
        try (Kafko kafko = Kafko.open(dir); Channel channel = baseline ? queue() : kafko(kafko)) {
            Thread reader = new Thread(() -> {
                int seen = 0;
                while (seen < total) {
                    for (byte[] value : channel.receive()) {
                        long now = System.nanoTime();
                        latencies[seen++] = now - ByteBuffer.wrap(value).getLong();
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
                channel.send(value);
            }
            reader.join();
        } finally {
            BenchDirs.delete(dir);
        }
        long[] measured = Arrays.copyOfRange(latencies, warmup, total);
        Arrays.sort(measured);
        System.out.printf("%s, rate %d/s, %d records: p50 %.1f us, p90 %.1f us, p99 %.1f us, p99.9 %.1f us, max %.1f us%n",
                baseline ? "queue + unpark (baseline)" : "kafko send -> poll", rate, measured.length,
                pct(measured, 0.50), pct(measured, 0.90), pct(measured, 0.99), pct(measured, 0.999),
                measured[measured.length - 1] / 1e3);
    }

    private static Channel kafko(Kafko kafko) {
        kafko.createTopic("t", TopicConfig.builder().segmentBytes(512L << 20).build());
        Producer producer = kafko.producer("t");
        Consumer consumer = kafko.consumer("t");
        return new Channel() {
            @Override
            public void send(byte[] value) {
                producer.send(null, value);
            }

            @Override
            public Iterable<byte[]> receive() {
                return consumer.poll(Duration.ofSeconds(1)).stream().map(KafkoRecord::value).toList();
            }

            @Override
            public void close() {
                consumer.close();
            }
        };
    }

    private static Channel queue() {
        ConcurrentLinkedQueue<byte[]> queue = new ConcurrentLinkedQueue<>();
        AtomicReference<Thread> reader = new AtomicReference<>();
        return new Channel() {
            @Override
            public void send(byte[] value) {
                queue.add(value);
                Thread r = reader.get();
                if (r != null) {
                    LockSupport.unpark(r);
                }
            }

            @Override
            public Iterable<byte[]> receive() {
                reader.set(Thread.currentThread());
                byte[] first = queue.poll();
                if (first == null) {
                    LockSupport.parkNanos(1_000_000_000L);
                    return List.of();
                }
                List<byte[]> out = new ArrayList<>();
                out.add(first);
                for (byte[] v; (v = queue.poll()) != null; ) {
                    out.add(v);
                }
                return out;
            }

            @Override
            public void close() {
                // nothing held
            }
        };
    }

    private static double pct(long[] sorted, double q) {
        return sorted[(int) Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))] / 1e3;
    }
}
