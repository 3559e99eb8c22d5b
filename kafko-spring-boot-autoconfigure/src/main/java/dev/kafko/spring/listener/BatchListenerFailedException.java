package dev.kafko.spring.listener;

import org.jspecify.annotations.Nullable;

/**
 * Thrown by a batch listener to say which record of the batch failed, as with spring-kafka's exception
 * of the same name: the records before it are finished (committed as its ack mode commits), the failed
 * one goes to the error handler alone (its attempts invoke the listener with a batch of that one record;
 * then it is recovered, to the dead-letter topic for instance, with the cause given here), and the
 * records after it are delivered again by the next poll. Any other exception fails the whole batch.
 */
public class BatchListenerFailedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int index;

    /**
     * @param index the failed record's index in the list the listener was given
     */
    public BatchListenerFailedException(String message, @Nullable Throwable cause, int index) {
        super(message, cause);
        if (index < 0) {
            throw new IllegalArgumentException("index must not be negative, was " + index);
        }
        this.index = index;
    }

    public BatchListenerFailedException(String message, int index) {
        this(message, null, index);
    }

    /** The failed record's index in the batch. */
    public int getIndex() {
        return index;
    }

    /** The first {@code BatchListenerFailedException} in {@code failure}'s cause chain, itself included; or null. */
    public static @Nullable BatchListenerFailedException findIn(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof BatchListenerFailedException b) {
                return b;
            }
        }
        return null;
    }
}
