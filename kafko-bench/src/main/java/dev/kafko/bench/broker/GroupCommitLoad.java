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
import java.util.concurrent.locks.LockSupport;

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
 * <p>With a {@code rate} (records per second, all senders together) the senders are paced instead of
 * closed-loop: each sends its share at fixed times (interleaved with the other senders), and a send's
 * latency runs from the time it was due, so that a stall counts for every send it held back
 * (the window then only bounds what is in flight). A closed loop with a window sets its own latency
 * (senders × window in flight divided by the rate, by Little's law); a paced run asks what latency a
 * given rate gets. Keep the window modest there (256): a slot holds its completed future until it is
 * reused, and 16 windows of 16,384 kept some 260 K of them alive, which made every young collection
 * take 40-50 ms.
 *
 * <p>Usage: {@code java -cp benchmarks.jar dev.kafko.bench.broker.GroupCommitLoad [senders] [window] [seconds] [rate]}
 */
public final class GroupCommitLoad {

    /** Latency buckets of one microsecond, up to 100 ms (anything slower counts in the last). */
    private static final int BUCKETS = 100_000;
    /** The shortest park of a paced sender, in nanoseconds. */
    private static final long PACING_STEP = 200_000;

    private GroupCommitLoad() {
    }

    public static void main(String[] args) throws Exception {
        int senders = args.length > 0 ? Integer.parseInt(args[0]) : 16;
        int window = args.length > 1 ? Integer.parseInt(args[1]) : 64;
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        double rate = args.length > 3 ? Double.parseDouble(args[3]) : 0;
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
            Run warm = run(producer, senders, window, rate, 2_000_000_000L);
            fsyncs.set(new AtomicLongArray(BUCKETS));
            Run measured = run(producer, senders, window, rate, seconds * 1_000_000_000L);
            Run forced = new Run(fsyncs.get(), sum(fsyncs.get()), measured.nanos());
            System.out.printf("warm-up: %,.0f records/s%n", warm.rate());
            System.out.printf("EVERY_BATCH, %d senders, window %d%s: %,.0f acknowledged records/s; latency p50 %s,"
                    + " p99 %s, p99.9 %s, max bucket %s (%,d records)%n", senders, window,
                    rate > 0 ? String.format(", paced at %,.0f/s", rate) : "", measured.rate(),
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

    /**
     * Parks until {@code due} (a {@link System#nanoTime} value), for at least {@link #PACING_STEP} at a
     * time, and returns it: a paced sender wakes at most every 200 us and sends every record due by
     * then (16 senders waking for each record would cost more CPU than the sends on 2 vCPUs). The
     * latency of a send still runs from its due time, so it includes the up to 200 us it waited.
     */
    private static long due(long due) {
        for (long now = System.nanoTime(); now < due; now = System.nanoTime()) {
            LockSupport.parkNanos(Math.max(due - now, PACING_STEP));
        }
        return due;
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

    private static Run run(Producer producer, int senders, int window, double rate, long nanos)
            throws InterruptedException {
        AtomicLongArray histogram = new AtomicLongArray(BUCKETS);
        LongAdder acknowledged = new LongAdder();
        byte[] value = new byte[ProduceBenchmark.VALUE_BYTES];
        // paced senders start 50 ms from now, once every thread is running: a send due before its thread
        // started would count the thread's start-up as latency
        long start = System.nanoTime() + (rate > 0 ? 50_000_000L : 0);
        long end = start + nanos;
        Thread[] threads = new Thread[senders];
        // paced: sender s sends its i-th record at start + (i * senders + s) * interval
        double interval = rate > 0 ? 1e9 / rate : 0;
        for (int s = 0; s < senders; s++) {
            int sender = s;
            threads[s] = new Thread(() -> {
                @SuppressWarnings("unchecked")
                CompletableFuture<RecordPosition>[] inFlight = new CompletableFuture[window];
                for (long i = 0; System.nanoTime() < end; i++) {
                    int slot = (int) (i % window);
                    if (inFlight[slot] != null) {
                        inFlight[slot].join();
                    }
                    long sentAt = interval > 0 ? due(start + (long) ((i * senders + sender) * interval)) : System.nanoTime();
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
