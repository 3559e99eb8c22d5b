package dev.kafko.spring.support;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

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

    /**
     * Logs {@code message} at ERROR: with {@code failure}'s stack trace when it is due for this kind of failure
     * ({@code kind} and the exception's class), else with the failure and its cause in one line after it.
     */
    public void error(Logger log, String kind, Throwable failure, String message, Object... args) {
        Object[] all = Arrays.copyOf(args, args.length + 1);
        if (traceDue(kind + '\0' + failure.getClass().getName())) {
            all[args.length] = failure;
            log.error(message, all);
        } else {
            all[args.length] = oneLine(failure);
            log.error(message + ": {} (stack trace logged with an earlier one)", all);
        }
    }

    /** {@code failure} and its cause in one line, for a failure whose trace is not due. */
    public static String oneLine(Throwable failure) {
        Throwable cause = failure.getCause();
        return failure + (cause == null || cause == failure ? "" : ", caused by " + cause);
    }
}
