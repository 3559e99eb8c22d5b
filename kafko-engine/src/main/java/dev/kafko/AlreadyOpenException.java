package dev.kafko;

import org.jspecify.annotations.Nullable;

/** The data directory is already open, in this JVM or in another process. */
public class AlreadyOpenException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public AlreadyOpenException(String message) {
        super(message);
    }

    public AlreadyOpenException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
