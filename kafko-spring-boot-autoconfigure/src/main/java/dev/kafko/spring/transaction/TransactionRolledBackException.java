package dev.kafko.spring.transaction;

/**
 * Completes the future of a send whose transaction rolled back: its record was never written. The template's default
 * producer listener logs it at debug level only, since a rollback is an outcome the application chose.
 */
public class TransactionRolledBackException extends KafkoTransactionException {

    private static final long serialVersionUID = 1L;

    public TransactionRolledBackException(String message) {
        super(message);
    }
}
