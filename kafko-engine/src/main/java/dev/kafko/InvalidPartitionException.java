package dev.kafko;

import org.jspecify.annotations.Nullable;

/** A partition number is outside {@code [0, partitionCount)}, or a partition count is invalid. */
public class InvalidPartitionException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public InvalidPartitionException(String message) {
        super(message);
    }

    public InvalidPartitionException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
