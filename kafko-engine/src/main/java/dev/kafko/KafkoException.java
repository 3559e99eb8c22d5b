package dev.kafko;

import org.jspecify.annotations.Nullable;

/**
 * The base of every error kafko reports. All kafko errors are unchecked; each subtype names one
 * kind of problem and its message names the topic, partition, file or value involved.
 */
public class KafkoException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public KafkoException(String message) {
        super(message);
    }

    public KafkoException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
