package dev.kafko.bench.spring;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Hands the arrival of records from a listener thread to the measuring thread. {@link #expect} and
 * {@link #await} are called by the one measuring thread; {@link #received} by listener threads.
 */
final class Probe {

    private volatile CountDownLatch pending = new CountDownLatch(0);

    /** Arms the probe for the next {@code records} arrivals. */
    void expect(int records) {
        pending = new CountDownLatch(records);
    }

    void received() {
        pending.countDown();
    }

    /** Parks until every expected record arrived; fails after {@code timeout}. */
    void await(Duration timeout) {
        CountDownLatch latch = pending;
        try {
            if (!latch.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new IllegalStateException(latch.getCount() + " records did not reach the listener within " + timeout);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the listener", e);
        }
    }
}
