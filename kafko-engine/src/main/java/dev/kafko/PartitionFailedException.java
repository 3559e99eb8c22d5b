package dev.kafko;

import org.jspecify.annotations.Nullable;

/** The partition failed earlier (for example after an I/O error) and refuses further work; the cause is the original failure. */
public class PartitionFailedException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public PartitionFailedException(String message) {
        super(message);
    }

    public PartitionFailedException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
