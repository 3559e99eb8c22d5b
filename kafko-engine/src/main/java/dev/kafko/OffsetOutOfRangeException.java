package dev.kafko;

/** A consumer position is outside the log (below its start after retention, or beyond its end) and the reset policy is {@code FAIL}. */
public class OffsetOutOfRangeException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public OffsetOutOfRangeException(String message) {
        super(message);
    }

    public OffsetOutOfRangeException(String message, Throwable cause) {
        super(message, cause);
    }
}
