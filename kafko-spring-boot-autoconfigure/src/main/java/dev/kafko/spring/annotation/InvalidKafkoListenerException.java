package dev.kafko.spring.annotation;

import org.jspecify.annotations.Nullable;

/**
 * A {@code @KafkoListener} (or its {@code @SendTo}) that cannot work, found when its bean is
 * registered: its message names the method, the listener and the attribute. Spring Boot's failure
 * analysis reports it as such.
 */
public class InvalidKafkoListenerException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public InvalidKafkoListenerException(String message) {
        super(message);
    }

    public InvalidKafkoListenerException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
