package dev.kafko.spring.listener;

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
}
