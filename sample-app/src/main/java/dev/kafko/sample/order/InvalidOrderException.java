package dev.kafko.sample.order;

/** An order breaks a business rule; the message names the order and every broken rule. */
public class InvalidOrderException extends RuntimeException {

    public InvalidOrderException(String message) {
        super(message);
    }
}
