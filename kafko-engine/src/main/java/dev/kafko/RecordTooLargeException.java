package dev.kafko;

/** A record (or batch) is larger than the topic's {@code maxRecordBytes}; nothing was written. */
public class RecordTooLargeException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public RecordTooLargeException(String message) {
        super(message);
    }

    public RecordTooLargeException(String message, Throwable cause) {
        super(message, cause);
    }
}
