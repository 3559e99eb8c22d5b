package dev.kafko;

import org.jspecify.annotations.Nullable;

/** The {@link Kafko} instance, producer or consumer was closed before or during the call. */
public class KafkoClosedException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public KafkoClosedException(String message) {
        super(message);
    }

    public KafkoClosedException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
