package dev.kafko.spring.listener;

/**
 * A record that a {@code @SendTo} listener answered lacks a header its reply needs, or carries one
 * that cannot be used: no {@link dev.kafko.spring.support.KafkoHeaders#REPLY_TOPIC} where
 * {@code @SendTo} names no topic (or a value there outside the naming rule), or a
 * {@link dev.kafko.spring.support.KafkoHeaders#REPLY_PARTITION} that is not a partition number.
 * Thrown on the member's polling thread after the method returned, it goes to the container's
 * error handler like any failure of the record; {@link DefaultErrorHandler} does not retry it,
 * since the record would fail the same way every time.
 */
public class InvalidReplyHeaderException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String listenerId;
    private final String header;

    public InvalidReplyHeaderException(String listenerId, String header, String message) {
        super(message);
        this.listenerId = listenerId;
        this.header = header;
    }

    /** The id of the listener whose reply could not be sent. */
    public String listenerId() {
        return listenerId;
    }

    /** The name of the header at fault. */
    public String header() {
        return header;
    }
}
