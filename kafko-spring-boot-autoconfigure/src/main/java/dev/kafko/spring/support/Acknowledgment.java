package dev.kafko.spring.support;

/**
 * Handed to a listener method that declares it; {@link #acknowledge()} marks the record (or the
 * batch) as processed. With ack mode {@code MANUAL} the offset is committed after the records of
 * the current poll are processed; with {@code MANUAL_IMMEDIATE} at once (or, when called from
 * another thread, before the container's next poll). Under {@code RECORD} and {@code BATCH} the
 * container commits by itself and this call changes nothing.
 */
@FunctionalInterface
public interface Acknowledgment {

    /** Marks the delivery as processed; its offset plus one becomes committable. Any thread may call it. */
    void acknowledge();
}
