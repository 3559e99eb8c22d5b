package dev.kafko.spring.autoconfigure;

/**
 * A {@code kafko.*} property whose value cannot work, found at start-up; its message names the
 * property and the value. Spring Boot's failure analysis reports it as such.
 */
public class InvalidKafkoPropertyException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String property;

    public InvalidKafkoPropertyException(String property, String message) {
        super(property + " " + message);
        this.property = property;
    }

    /** As {@link #InvalidKafkoPropertyException(String, String)}, for a value refused by {@code cause}. */
    public InvalidKafkoPropertyException(String property, String message, Throwable cause) {
        super(property + " " + message, cause);
        this.property = property;
    }

    /** The property, as written in configuration ({@code kafko.listener.poll-timeout}). */
    public String getProperty() {
        return property;
    }
}
