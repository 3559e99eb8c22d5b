package dev.kafko;

import org.jspecify.annotations.Nullable;

/** The codec a topic or a frame needs is not on the classpath (or its native library did not load). */
public class CompressionUnavailableException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public CompressionUnavailableException(String message) {
        super(message);
    }

    public CompressionUnavailableException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
