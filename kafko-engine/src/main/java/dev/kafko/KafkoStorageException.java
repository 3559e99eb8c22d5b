package dev.kafko;

import org.jspecify.annotations.Nullable;

/** An I/O operation on the data directory failed; the message names the operation and the file. */
public class KafkoStorageException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public KafkoStorageException(String message) {
        super(message);
    }

    public KafkoStorageException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
