package dev.kafko.spring.listener;

import java.util.concurrent.CompletionException;

/**
 * What a listener method threw, wrapped: an {@link Error} (other than a {@link VirtualMachineError}),
 * so that it goes through retries and recovery like any exception instead of ending the polling
 * thread; and whatever the method threw when it is handed to a {@link KafkoListenerErrorHandler}.
 * Its cause is what was thrown.
 */
public class ListenerExecutionFailedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ListenerExecutionFailedException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * What the listener threw: {@code failure} without the wrappers that say nothing their cause does not (this
     * exception, the {@link CompletionException} of a future joined, a
     * {@link BatchListenerFailedException} with a cause).
     */
    static Throwable thrown(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof ListenerExecutionFailedException
                || cause instanceof CompletionException
                || cause instanceof BatchListenerFailedException)
                && cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause;
    }
}
