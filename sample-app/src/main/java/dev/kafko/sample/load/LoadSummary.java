package dev.kafko.sample.load;

import java.util.Locale;

/**
 * The outcome of one load run.
 *
 * @param orders orders sent (fewer than asked only when the read model fell behind past the timeout)
 * @param failedSends sends that failed
 * @param paid orders of this run that the read model saw PAID
 * @param rejected orders of this run that the read model saw REJECTED
 * @param complete whether the read model saw every sent order finish before the timeout
 * @param seconds from the first send until the read model saw the last order finish
 * @param p50Micros median end-to-end latency (order accepted → read model saw it finish)
 * @param p99Micros 99th percentile of it
 * @param maxMicros the largest
 */
public record LoadSummary(long orders, long failedSends, long paid, long rejected, boolean complete, double seconds,
                          long p50Micros, long p99Micros, long maxMicros) {

    /** Orders per second, end to end. */
    public double ordersPerSecond() {
        return seconds > 0 ? (paid + rejected) / seconds : 0;
    }

    /** The line the load mode prints last. */
    public String line() {
        return String.format(Locale.ROOT, "load summary: %d orders in %.2f s, %.0f orders/s end to end;"
                        + " %d paid, %d rejected, %d failed sends%s;"
                        + " e2e latency p50 %s, p99 %s, max %s",
                orders, seconds, ordersPerSecond(), paid, rejected, failedSends,
                complete ? "" : " (INCOMPLETE: the read model did not see every order)",
                millis(p50Micros), millis(p99Micros), millis(maxMicros));
    }

    static String millis(long micros) {
        return String.format(Locale.ROOT, "%.2f ms", micros / 1000.0);
    }
}
