package dev.kafko;

import org.jspecify.annotations.Nullable;

/**
 * A topic or group name breaks the naming rule: [A-Za-z0-9._-], 1 to 249 characters, not {@code .} or {@code ..};
 * a topic name not {@code .lock} (the lock file's), nor one equal to an existing topic's once {@code .} and
 * {@code _} count as one character.
 */
public class InvalidNameException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public InvalidNameException(String message) {
        super(message);
    }

    public InvalidNameException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
