package dev.kafko.spring.listener;

/**
 * A {@link ContainerCustomizer} or {@link ContainerPostProcessor} failed on a new container: its message names the
 * listener and which one failed, its cause is what that threw. The container is not used.
 */
public class ContainerCustomizationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ContainerCustomizationException(String message, Throwable cause) {
        super(message, cause);
    }
}
