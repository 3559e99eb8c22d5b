package dev.kafko.internal.broker;

import java.time.Duration;

/** Internal: durations as the nanoseconds that timed waits take. */
final class Durations {

    private Durations() {
    }

    /**
     * {@code d} in nanoseconds; a duration too long for a long (about 292 years, such as
     * {@code TopicConfig.MAX_DURATION}) gives {@code Long.MAX_VALUE / 4}, which still leaves room to add
     * {@code System.nanoTime()} to it.
     */
    static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 4;
        }
    }
}
