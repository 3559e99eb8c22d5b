package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import java.util.List;

/**
 * Decides what happens to records whose listener threw. Called on the container member's polling
 * thread. Define a bean of this type to replace the default ({@link DefaultErrorHandler}).
 */
@FunctionalInterface
public interface KafkoErrorHandler {

    /**
     * Returning means the records are dealt with (retried successfully or recovered): the container
     * commits past them (after a last retry that returned, under a manual ack mode, once the listener acknowledged
     * them, as at their delivery). Throwing means they are not: the container seeks back and, after a pause
     * of one second (cut short when it stops or pauses), delivers them again on a later poll.
     *
     * <p>A stop that overruns {@code kafko.listener.shutdown-timeout} while a {@link FailedInvocation#retry retry}
     * waits for the {@code Mono} or {@code CompletionStage} its listener returned cancels that stage, and the records
     * become the stop's: the retry throws a {@link java.util.concurrent.CancellationException}, any later
     * {@code retry()} throws one at once without calling the listener, and a {@link DeadLetterPublishingRecoverer}
     * called for them throws one without publishing. Whatever the handler then does, throwing or returning, the
     * container neither commits past the records nor counts them as acknowledged: they are delivered again at the
     * next start (a return is logged as overruled). Only what the handler does itself (a send of its own to a
     * dead-letter topic, say) cannot be taken back: let a {@code CancellationException} propagate rather than
     * recovering the records after one.
     *
     * @param records the record (or, for a batch listener, the batch) that failed, as the listener got it: a
     *     {@link RecordInterceptor}'s replacement, a {@link BatchInterceptor}'s list (without the records it dropped,
     *     which are committed with the batch), the record a {@link BatchListenerFailedException} named, as
     *     spring-kafka's container hands its error handler the intercepted records; {@link FailedInvocation#retry}
     *     delivers the polled records again, intercepted again, and the offsets committed are the polled ones
     * @param failure what the listener threw
     */
    void handle(List<KafkoRecord> records, Exception failure, FailedInvocation invocation) throws Exception;

    /**
     * Called when a container starts reading {@code topic}, before any record, so that what the
     * handler will need for it can be checked (or created) up front. Does nothing by default.
     */
    default void prepare(String topic) {
    }

    /**
     * Called instead of {@link #prepare} for a topic that a container's {@code topicPattern} matched. Such topics
     * come and go (a topic per job or per tenant), so nothing made for one up front should outlive it: the default
     * handler's dead-letter topic of such a topic is made at its first dead letter, not when it is matched. By
     * default {@link #prepare}.
     */
    default void prepareMatched(String topic) {
        prepare(topic);
    }
}
