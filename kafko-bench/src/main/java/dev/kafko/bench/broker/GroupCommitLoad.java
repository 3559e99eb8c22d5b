package dev.kafko.bench.broker;

import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.TopicConfig;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Durable throughput and acknowledgement latency under {@link FsyncPolicy#EVERY_BATCH}: {@code senders}
 * threads (default 16) each keep up to {@code window} sends (default 64) in flight into one partition,
 * waiting for their oldest send only when the window is full. A send's latency runs from just before
 * {@code send} to the completion of its future, which happens only after the fdatasync that covers
 * it (group commit: one fsync covers every append waiting at that moment). Runs 2 s of warm-up, then
 * {@code seconds} (default 5) measured. Not a JMH benchmark: JMH times the caller's operation, not
 * the completion of futures it does not wait for. Through a {@link KafkoObserver} it also reports how
 * long each fdatasync took and how many records one covered; with a window of 1 every sender awaits
 * each send, as in {@code GroupCommitBenchmark}.
 *
 * <p>Usage: {@code java -cp benchmarks.jar dev.kafko.bench.broker.GroupCommitLoad [senders] [window] [seconds]}
 */
public final class GroupCommitLoad {

    /** Latency buckets of one microsecond, up to 100 ms (anything slower counts in the last). */
    private static final int BUCKETS = 100_000;

    private GroupCommitLoad() {
    }

    public static void main(String[] args) throws Exception {
        int senders = args.length > 0 ? Integer.parseInt(args[0]) : 16;
        int window = args.length > 1 ? Integer.parseInt(args[1]) : 64;
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        Path dir = BenchDirs.create();
        AtomicReference<AtomicLongArray> fsyncs = new AtomicReference<>(new AtomicLongArray(BUCKETS));
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onFsync(String topic, int partition, long nanos) {
                fsyncs.get().incrementAndGet((int) Math.min(nanos / 1000, BUCKETS - 1));
            }
        };
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().observer(observer).build())) {
            kafko.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.EVERY_BATCH).segmentBytes(256L << 20).build());
            Producer producer = kafko.producer("t");
            Run warm = run(producer, senders, window, 2_000_000_000L);
            fsyncs.set(new AtomicLongArray(BUCKETS));
            Run measured = run(producer, senders, window, seconds * 1_000_000_000L);
            Run forced = new Run(fsyncs.get(), sum(fsyncs.get()), measured.nanos());
            System.out.printf("warm-up: %,.0f records/s%n", warm.rate());
            System.out.printf("EVERY_BATCH, %d senders, window %d: %,.0f acknowledged records/s; latency p50 %s,"
                    + " p99 %s, p99.9 %s, max bucket %s (%,d records)%n", senders, window, measured.rate(),
                    measured.percentile(0.50), measured.percentile(0.99), measured.percentile(0.999),
                    measured.percentile(1.0), measured.count());
            System.out.printf("fdatasync: %,.0f/s, %.1f records each; p50 %s, p99 %s, p99.9 %s%n", forced.rate(),
                    measured.count() / (double) Math.max(1, forced.count()), forced.percentile(0.50),
                    forced.percentile(0.99), forced.percentile(0.999));
        } finally {
            BenchDirs.delete(dir);
        }
    }

    private static long sum(AtomicLongArray histogram) {
        long n = 0;
        for (int i = 0; i < histogram.length(); i++) {
            n += histogram.get(i);
        }
        return n;
    }

    private record Run(AtomicLongArray histogram, long count, long nanos) {
        double rate() {
            return count * 1e9 / nanos;
        }

        String percentile(double p) {
            long rank = (long) Math.ceil(p * count);
            long seen = 0;
            for (int i = 0; i < BUCKETS; i++) {
                seen += histogram.get(i);
                if (seen >= rank && seen > 0) {
                    return i >= 1000 ? String.format("%.2f ms", i / 1000.0) : i + " µs";
                }
            }
            return "-";
        }
    }

    private static Run run(Producer producer, int senders, int window, long nanos) throws InterruptedException {
        AtomicLongArray histogram = new AtomicLongArray(BUCKETS);
        LongAdder acknowledged = new LongAdder();
        byte[] value = new byte[ProduceBenchmark.VALUE_BYTES];
        long start = System.nanoTime();
        long end = start + nanos;
        Thread[] threads = new Thread[senders];
        for (int s = 0; s < senders; s++) {
            threads[s] = new Thread(() -> {
                @SuppressWarnings("unchecked")
                CompletableFuture<RecordPosition>[] inFlight = new CompletableFuture[window];
                for (long i = 0; System.nanoTime() < end; i++) {
                    int slot = (int) (i % window);
                    if (inFlight[slot] != null) {
                        inFlight[slot].join();
                    }
                    long sentAt = System.nanoTime();
                    inFlight[slot] = producer.send(null, value).whenComplete((p, e) -> {
                        if (e == null) {
                            long micros = (System.nanoTime() - sentAt) / 1000;
                            histogram.incrementAndGet((int) Math.min(micros, BUCKETS - 1));
                            acknowledged.increment();
                        }
                    });
                }
                for (CompletableFuture<RecordPosition> f : inFlight) {
                    if (f != null) {
                        f.join();
                    }
                }
            }, "sender-" + s);
            threads[s].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        return new Run(histogram, acknowledged.sum(), System.nanoTime() - start);
    }
}
