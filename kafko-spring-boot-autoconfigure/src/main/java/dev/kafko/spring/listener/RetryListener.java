package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;

/**
 * Told of each failed delivery a {@link DefaultErrorHandler} handles and of how its recovery went: for logs,
 * meters or alerts, as spring-kafka's {@code RetryListener}. Called on the container member's polling thread,
 * in the order the listeners were given; a listener that throws is logged and the handling goes on, as if it
 * had returned.
 *
 * <p>Register one with {@link DefaultErrorHandler#setRetryListeners}; the error handler the starter configures
 * from {@code kafko.listener.retry.*} is given every {@code RetryListener} bean of the context, in their order. The
 * containers of a {@code @RetryableTopic} listener have an error handler of their own, which is given none: their
 * failures are not told to these beans (the attempt is in the record's {@code kafko_retry-attempts} header).
 */
@FunctionalInterface
public interface RetryListener {

    /**
     * A delivery of {@code record} failed with {@code failure}: the first ({@code deliveryAttempt} 1) or a retry.
     * For a batch listener each record of the failed delivery is named, with the same attempt. A retry whose
     * exception starts the back-off again ({@link DefaultErrorHandler#setResetStateOnExceptionChange}) is attempt 1
     * again, as in spring-kafka.
     */
    void failedDelivery(KafkoRecord record, Exception failure, int deliveryAttempt);

    /** {@code record}, which failed last with {@code failure}, was handed to the recoverer, which returned. */
    default void recovered(KafkoRecord record, Exception failure) {
    }

    /**
     * The recoverer threw {@code recoveryFailure} for {@code record}, which failed last with {@code failure}: the
     * record is not committed, and is delivered again.
     */
    default void recoveryFailed(KafkoRecord record, Exception failure, Exception recoveryFailure) {
    }
}
