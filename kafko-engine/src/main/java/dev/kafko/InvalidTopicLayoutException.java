package dev.kafko;

/** A topic directory on disk does not have the layout kafko writes; the message names the topic and what is wrong. */
public class InvalidTopicLayoutException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public InvalidTopicLayoutException(String message) {
        super(message);
    }

    public InvalidTopicLayoutException(String message, Throwable cause) {
        super(message, cause);
    }
}
