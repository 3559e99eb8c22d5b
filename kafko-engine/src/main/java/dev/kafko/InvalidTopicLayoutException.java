package dev.kafko;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A topic directory on disk does not have the layout kafko writes: {@link #topic()} names the topic,
 * {@link #detail()} what is wrong (the path and the damage); the message holds both.
 */
public class InvalidTopicLayoutException extends KafkoException {

    private static final long serialVersionUID = 1L;

    private final @Nullable String topic;
    private final String detail;

    /** The layout of {@code topic}'s directory is wrong as {@code detail} says. */
    public InvalidTopicLayoutException(String topic, String detail) {
        this(topic, detail, null);
    }

    /** The layout of {@code topic}'s directory is wrong as {@code detail} says, found through {@code cause}. */
    public InvalidTopicLayoutException(String topic, String detail, @Nullable Throwable cause) {
        super("topic '" + Objects.requireNonNull(topic, "topic") + "': " + Objects.requireNonNull(detail, "detail"),
                cause);
        this.topic = topic;
        this.detail = detail;
    }

    /** A layout error that names no topic; {@link #topic()} is {@code null} and {@link #detail()} the message. */
    public InvalidTopicLayoutException(String message) {
        super(Objects.requireNonNull(message, "message"));
        this.topic = null;
        this.detail = message;
    }

    /** The topic whose directory is damaged, or {@code null} when the error names none. */
    public @Nullable String topic() {
        return topic;
    }

    /** What is wrong with the directory, without the topic's name. */
    public String detail() {
        return detail;
    }
}
