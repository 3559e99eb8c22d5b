package dev.kafko;

import org.jspecify.annotations.Nullable;

/** A topic with this name already exists. */
public class TopicExistsException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public TopicExistsException(String message) {
        super(message);
    }

    public TopicExistsException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
