package dev.kafko;

/**
 * The calling thread was interrupted while kafko would have made it wait: a {@link Consumer#poll} with
 * nothing to return yet, a {@link Producer#flush}, or a send waiting for room in a full partition queue
 * (that send fails with it). The thread's interrupt status is still set when this is thrown, as with
 * Kafka's {@code InterruptException}.
 */
public class InterruptException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public InterruptException(String message) {
        super(message, new InterruptedException(message));
    }
}
