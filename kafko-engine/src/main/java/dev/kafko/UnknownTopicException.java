package dev.kafko;

import org.jspecify.annotations.Nullable;

/** No topic with this name exists. */
public class UnknownTopicException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public UnknownTopicException(String message) {
        super(message);
    }

    public UnknownTopicException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
