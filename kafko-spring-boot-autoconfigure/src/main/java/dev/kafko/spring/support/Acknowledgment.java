package dev.kafko.spring.support;

import java.time.Duration;

/**
 * Handed to a listener method that declares it; {@link #acknowledge()} marks the record (or the
 * batch) as processed. With ack mode {@code MANUAL} the offset is committed after the records of
 * the current poll are processed; with {@code MANUAL_IMMEDIATE} at once (or, when called from
 * another thread, before the container's next poll). In the other ack modes ({@code RECORD}, {@code BATCH},
 * {@code COUNT}, {@code TIME}, {@code COUNT_TIME}) the container commits by itself: a listener method that declares
 * an {@code Acknowledgment} parameter fails the start, naming the listener, and the one a message carries in its
 * {@link KafkoHeaders#ACKNOWLEDGMENT} header does nothing when acknowledged and throws
 * {@link UnsupportedOperationException} when nacked. {@link #nack(Duration)} asks for the record again later
 * instead.
 */
@FunctionalInterface
public interface Acknowledgment {

    /** Marks the delivery as processed; its offset plus one becomes committable. Any thread may call it. */
    void acknowledge();

    /**
     * Acknowledges part of a batch (a batch listener, in a manual ack mode): the records up to and including
     * {@code index} count as processed, as spring-kafka's partial batch acknowledgment; the rest of the batch is
     * acknowledged by a later call with a higher index or by {@link #acknowledge()}. A call at or below an index
     * acknowledged before (by an earlier attempt too) changes nothing. Call it on the listener's own thread,
     * inside the call; under {@code MANUAL_IMMEDIATE} it commits at once.
     *
     * @throws IllegalStateException on another thread, from a record listener, or at or past an index the
     *     listener nacked in the same call
     * @throws IndexOutOfBoundsException when {@code index} is not in the batch
     */
    default void acknowledge(int index) {
        throw new UnsupportedOperationException("partial acknowledgment is not supported by " + getClass().getName());
    }

    /**
     * Refuses the record for now (a record listener, in a manual ack mode): once the listener returns, it and
     * the records of its poll not delivered yet are delivered again after {@code sleep}, in their order, and
     * nothing is committed for it. Call it on the listener's own thread, inside the call, instead of
     * {@link #acknowledge()}; a listener that throws after it fails as it would without it (retries, then
     * recovery), and a retry that nacks and returns has the record delivered again after the pause.
     *
     * @throws IllegalStateException on another thread, after {@link #acknowledge()}, or from a batch listener
     * @throws IllegalArgumentException when {@code sleep} is negative
     */
    default void nack(Duration sleep) {
        throw new UnsupportedOperationException("nack is not supported by " + getClass().getName());
    }

    /**
     * {@link #nack(Duration)} for a batch listener: the records before {@code index} count as acknowledged,
     * the one at {@code index} and those after it are delivered again after {@code sleep}.
     *
     * @throws IllegalStateException on another thread, after {@link #acknowledge()}, or from a record listener
     * @throws IndexOutOfBoundsException when {@code index} is not in the batch
     * @throws IllegalArgumentException when {@code sleep} is negative, or {@code index} is at or below an index
     *     acknowledged before with {@link #acknowledge(int)}
     */
    default void nack(int index, Duration sleep) {
        throw new UnsupportedOperationException("nack is not supported by " + getClass().getName());
    }
}
