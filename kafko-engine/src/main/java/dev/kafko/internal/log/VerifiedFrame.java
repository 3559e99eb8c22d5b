package dev.kafko.internal.log;

import org.jspecify.annotations.Nullable;

/**
 * Internal: the frame one reader checked last. A published frame never changes, so a later read by
 * the same reader that starts inside it (a poll that stopped in the middle of a large frame, at its
 * record limit) decodes it again without checking its CRC again. One per reader and partition; used
 * by one thread at a time.
 */
public final class VerifiedFrame {

    @Nullable Segment segment;
    int position;

    /** Whether the frame at {@code position} of {@code segment} is the one checked last. */
    boolean is(Segment segment, int position) {
        return this.segment == segment && this.position == position;
    }

    void set(Segment segment, int position) {
        this.segment = segment;
        this.position = position;
    }
}
