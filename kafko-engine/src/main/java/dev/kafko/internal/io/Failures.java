package dev.kafko.internal.io;

import org.jspecify.annotations.Nullable;

/**
 * Internal: the failures of work that goes on after a step failed (a close that releases every resource): the first
 * failure is the one thrown, the later ones suppressed in it.
 */
public final class Failures {

    private Failures() {
    }

    /** {@code first}, with {@code next} added to it as suppressed; {@code next} when there is no first. */
    public static @Nullable Throwable suppress(@Nullable Throwable first, @Nullable Throwable next) {
        if (first == null) {
            return next;
        }
        if (next != null && next != first) {
            first.addSuppressed(next);
        }
        return first;
    }

    /** Throws {@code failure} as it is, when it is an unchecked one; does nothing when it is {@code null}. */
    public static void rethrow(@Nullable Throwable failure) {
        if (failure instanceof RuntimeException e) {
            throw e;
        }
        if (failure instanceof Error e) {
            throw e;
        }
    }
}
