package dev.kafko.sample.model;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;
import org.springframework.stereotype.Component;

/**
 * Collects end-to-end latencies (order accepted → read model saw it PAID or REJECTED) in
 * microseconds, in windows: {@link #drain()} hands over everything recorded since the last drain.
 * Any thread may record and drain; recording takes a short lock and appends to an array.
 */
@Component
public class LatencyRecorder {

    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by lock. */
    private long[] samples = new long[1024];
    /** Guarded by lock. */
    private int size;

    public void record(Duration latency) {
        long micros = Math.max(0, latency.toNanos() / 1_000);
        lock.lock();
        try {
            if (size == samples.length) {
                samples = Arrays.copyOf(samples, size * 2);
            }
            samples[size++] = micros;
        } finally {
            lock.unlock();
        }
    }

    /** The latencies recorded since the last drain, sorted. */
    public Latencies drain() {
        long[] window;
        lock.lock();
        try {
            window = Arrays.copyOf(samples, size);
            size = 0;
        } finally {
            lock.unlock();
        }
        Arrays.sort(window);
        return new Latencies(window);
    }

    /**
     * Sorted latencies in microseconds, with exact percentiles (nearest rank).
     *
     * @param sortedMicros the samples, ascending
     */
    public record Latencies(long[] sortedMicros) {

        public static Latencies merge(Latencies a, Latencies b) {
            long[] all = Arrays.copyOf(a.sortedMicros, a.sortedMicros.length + b.sortedMicros.length);
            System.arraycopy(b.sortedMicros, 0, all, a.sortedMicros.length, b.sortedMicros.length);
            Arrays.sort(all);
            return new Latencies(all);
        }

        public int count() {
            return sortedMicros.length;
        }

        /** The {@code p}-th percentile (0 &lt; p ≤ 100) in microseconds; 0 when empty. */
        public long percentileMicros(double p) {
            if (sortedMicros.length == 0) {
                return 0;
            }
            int rank = (int) Math.ceil(p / 100.0 * sortedMicros.length);
            return sortedMicros[Math.min(sortedMicros.length, Math.max(1, rank)) - 1];
        }

        public long maxMicros() {
            return sortedMicros.length == 0 ? 0 : sortedMicros[sortedMicros.length - 1];
        }
    }
}
