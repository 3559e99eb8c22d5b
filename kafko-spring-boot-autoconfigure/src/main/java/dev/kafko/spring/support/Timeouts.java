package dev.kafko.spring.support;

import java.time.Duration;

/** Timeouts as nanoseconds, for the starter's waits. */
public final class Timeouts {

    private Timeouts() {
    }

    /** {@code timeout} in nanoseconds, or {@link Long#MAX_VALUE} (292 years) for a longer one. */
    public static long saturatedNanos(Duration timeout) {
        try {
            return timeout.toNanos();
        } catch (ArithmeticException e) {
            return timeout.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }
}
