package dev.kafko.spring.listener;

import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;

/**
 * Handles what a {@code @KafkoListener} method threw, before the container's {@link KafkoErrorHandler}
 * sees anything, as spring-kafka's {@code KafkaListenerErrorHandler} does; named on a listener with
 * {@code @KafkoListener(errorHandler = "<bean name>")}.
 *
 * <p>Returning makes the delivery a success: no retries, and the records are committed as the method's returning
 * would have them committed (under a manual ack mode only once acknowledged, as in spring-kafka: acknowledge through
 * the message's {@link dev.kafko.spring.support.KafkoHeaders#ACKNOWLEDGMENT} header, as spring-kafka's
 * {@code ManualAckListenerErrorHandler} does); a non-null value returned is the method's result, sent to the
 * {@code @SendTo} topic when the method has one
 * (and ignored when it has none). Throwing (the exception given, its cause, or another) hands what is
 * thrown to the container's error handler, which retries and recovers as for any failure: each retry
 * invokes the method again, and this handler again if it fails again.
 *
 * <p>Called on the container member's polling thread; one bean may serve several listeners, and so be
 * called from their threads at once.
 */
@FunctionalInterface
public interface KafkoListenerErrorHandler {

    /**
     * @param message the delivery: for a record listener a message of the record's value as {@code byte[]}
     *     ({@link dev.kafko.spring.support.KafkoNull} for a tombstone)
     *     with every header a received record has ({@code kafko_received*}, the offset, the acknowledgment,
     *     the raw record, the delivery attempt); for a batch listener the message its method was given
     *     (the converted records, and each header a list with an element per record: a {@code List<T>} record
     *     that did not convert a {@code null} element, its failure at its index in
     *     {@link dev.kafko.spring.support.KafkoHeaders#CONVERSION_FAILURES})
     * @param exception wraps what the method threw (its cause): an exception, an {@link Error} other than
     *     a {@link VirtualMachineError}, or the failure to resolve one of its arguments (a record
     *     listener's payload conversion included; the records of a batch are converted before the method
     *     is invoked, a {@code List<T>} record that does not convert reaching the method as a {@code null}
     *     element, and a batch that cannot be converted, a {@code List<Message<T>>} record or a
     *     {@code @Header(RECEIVED_KEY) List<T>} key that does not, does not reach this handler)
     * @return the method's result in its stead, or {@code null} for none (Kotlin's {@code Unit} too, which a Kotlin
     *     lambda whose last expression is a statement returns: nothing is sent to the {@code @SendTo} topic)
     * @throws Exception to hand the failure on to the container's error handler
     */
    @Nullable Object handleError(Message<?> message, ListenerExecutionFailedException exception) throws Exception;
}
