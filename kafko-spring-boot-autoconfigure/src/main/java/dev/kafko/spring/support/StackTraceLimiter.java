package dev.kafko.spring.support;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Decides when a failure's stack trace is worth logging again: the first time for each kind of failure,
 * then at most once a minute per kind, so that a failure repeated under steady traffic (every send to a
 * failed partition, every record of a replay that no longer converts) does not flood the log; the
 * failures between are logged in one line by the caller. Thread-safe; two threads may both be told to
 * log one trace at the same moment.
 */
public final class StackTraceLimiter {

    private static final long TRACE_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);
    private static final int MAX_KINDS = 1024;

    /** When the stack trace of each kind of failure was last logged. */
    private final Map<String, Long> tracedAt = new ConcurrentHashMap<>();

    /** Whether the stack trace of this kind of failure (a topic and an exception class, say) is due. */
    public boolean traceDue(String kind) {
        long now = System.nanoTime();
        Long last = tracedAt.get(kind);
        if (last != null && now - last < TRACE_EVERY_NANOS) {
            return false;
        }
        tracedAt.put(kind, now);
        if (tracedAt.size() > MAX_KINDS) {
            tracedAt.clear(); // many kinds: forget, and trace each again once
        }
        return true;
    }

    /** {@code failure} and its cause in one line, for a failure whose trace is not due. */
    public static String oneLine(Throwable failure) {
        Throwable cause = failure.getCause();
        return failure + (cause == null || cause == failure ? "" : ", caused by " + cause);
    }
}
