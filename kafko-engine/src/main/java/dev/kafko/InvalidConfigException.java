package dev.kafko;

import org.jspecify.annotations.Nullable;

/** A configuration value is out of its allowed range; the message names the setting and the value. */
public class InvalidConfigException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public InvalidConfigException(String message) {
        super(message);
    }

    public InvalidConfigException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
