package dev.kafko.spring.listener;

/**
 * What a {@code @RetryableTopic} listener does with a record after its last attempt, and with a dead letter its
 * dead-letter handler fails on (spring-kafka's names).
 */
public enum DltStrategy {

    /**
     * The record goes to the dead-letter topic; a dead letter the handler fails on is published to the dead-letter
     * topic again, to be handled again once the listener's last back-off has passed (spring-kafka's default, which
     * publishes it again at once). A handler that always fails makes a new record per back-off for as long as it
     * runs: with a back-off of 0 as fast as the log writes. As in spring-kafka, a failure that is never retried
     * ({@link DefaultErrorHandler#isRetryable}: the dead letter's conversion to the handler's payload type, say, which
     * would fail the same way at every delivery) is logged at ERROR and the dead letter skipped, as under
     * {@link #FAIL_ON_ERROR}.
     */
    ALWAYS_RETRY_ON_ERROR,

    /**
     * The record goes to the dead-letter topic; a dead letter the handler fails on is logged at ERROR and skipped
     * (it stays where it is in the dead-letter topic, to be read again by a seek). kafko's default: no dead letter
     * is written twice.
     */
    FAIL_ON_ERROR,

    /** No dead-letter topic: after its last attempt the record is logged at ERROR and skipped. */
    NO_DLT
}
