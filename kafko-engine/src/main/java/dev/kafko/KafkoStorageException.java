package dev.kafko;

/** An I/O operation on the data directory failed; the message names the operation and the file. */
public class KafkoStorageException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public KafkoStorageException(String message) {
        super(message);
    }

    public KafkoStorageException(String message, Throwable cause) {
        super(message, cause);
    }
}
