package dev.kafko.spring.listener;

/**
 * Carries an {@link Error} (other than a {@link VirtualMachineError}) that a listener method threw,
 * so that it goes through retries and recovery like any exception instead of ending the polling
 * thread.
 */
public class ListenerExecutionFailedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ListenerExecutionFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
