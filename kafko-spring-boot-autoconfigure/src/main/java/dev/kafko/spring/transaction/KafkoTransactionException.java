package dev.kafko.spring.transaction;

import dev.kafko.KafkoException;

/**
 * A transaction of the template could not commit: a send of it was refused, or a write at the commit failed. The
 * message says which records were written and which were not.
 */
public class KafkoTransactionException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public KafkoTransactionException(String message, Throwable cause) {
        super(message, cause);
    }

    KafkoTransactionException(String message) {
        super(message);
    }
}
