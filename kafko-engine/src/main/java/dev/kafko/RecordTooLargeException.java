package dev.kafko;

import org.jspecify.annotations.Nullable;

/**
 * A record is larger than the topic's {@code maxRecordBytes} (each record of a batch is checked on its
 * own), or a batch is larger than one frame holds (256 MiB of records); nothing was written.
 */
public class RecordTooLargeException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public RecordTooLargeException(String message) {
        super(message);
    }

    public RecordTooLargeException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
