package dev.kafko;

import org.jspecify.annotations.Nullable;

/**
 * A record read from a topic. Instances are immutable and may be kept after the next poll.
 */
public interface KafkoRecord {

    String topic();

    int partition();

    long offset();

    /** Epoch milliseconds: the producer's explicit timestamp or the append time. */
    long timestamp();

    /** The key, or {@code null} when the record was sent without one. */
    byte @Nullable [] key();

    /** The value, or {@code null} for a tombstone. */
    byte @Nullable [] value();

    Headers headers();
}
