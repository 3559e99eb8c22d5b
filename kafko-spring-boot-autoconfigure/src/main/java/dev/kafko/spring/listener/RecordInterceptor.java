package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import org.jspecify.annotations.Nullable;

/**
 * Sees each record before a record listener does, and hears how its listener did, as spring-kafka's interface of
 * the same name does (there every method also takes the {@code Consumer}; kafko has none to give). Set for every
 * container of a factory with {@link dev.kafko.spring.config.KafkoListenerContainerFactory#setRecordInterceptor}
 * (the auto-configured factory takes the context's single {@code RecordInterceptor} bean), or on one container with
 * {@link ConcurrentMessageListenerContainer#setRecordInterceptor}. Batch listeners do not use it (they use a
 * {@link BatchInterceptor}).
 *
 * <p>Each delivery attempt of a record (its delivery, and each retry of the error handler) calls, on the container
 * member's polling thread: {@link #intercept}, before the listener's {@code RecordFilterStrategy} and before the
 * record is converted to the listener's arguments; then the listener with what {@code intercept} returned; then
 * {@link #success} when the listener returned (or the filter discarded the record), or {@link #failure} when it threw,
 * before the error handler sees the failure. A listener that returns a {@code CompletionStage}, a {@code Mono} or is a
 * Kotlin {@code suspend} function has returned once that completed: the polling thread waits for it. Once the record
 * is done with, its retries and recovery included (or it is to be delivered again), {@link #afterRecord} is called
 * once. Several members may call one interceptor at once, each on its own thread.
 */
@FunctionalInterface
public interface RecordInterceptor extends ThreadStateProcessor {

    /**
     * The record the listener gets: {@code record} itself, another one (whose value and headers are then what the
     * listener's arguments are converted from, and, should the listener fail on it, what the error handler's
     * recoverer publishes or logs and its retry listeners are told of, as in spring-kafka; the offset committed is
     * still {@code record}'s), or {@code null} to
     * skip it. A skipped record counts as processed: the listener is not called, no further method of this
     * interceptor is called for it, and it is committed by the ack mode as if the listener had returned (under
     * {@code MANUAL} and {@code MANUAL_IMMEDIATE}, with the listener's next acknowledgment of its partition, as
     * spring-kafka commits such a record only with a later one). Throwing fails the delivery attempt as the listener
     * throwing would: {@link #failure} is called with the exception and the error handler retries or recovers the
     * record.
     */
    @Nullable KafkoRecord intercept(KafkoRecord record);

    /** The listener returned for {@code record} (the one it got). Does nothing by default; what it throws is logged. */
    default void success(KafkoRecord record) {
    }

    /**
     * The listener (or {@link #intercept}) threw {@code exception} for {@code record} (the one the listener got, or
     * the polled one when {@code intercept} threw), before the error handler deals with it. Does nothing by default;
     * what it throws is logged.
     */
    default void failure(KafkoRecord record, Exception exception) {
    }

    /**
     * The record is done with: processed, recovered, or to be delivered again; {@code record} is the one the last
     * attempt's listener got. Not called for a record whose last attempt {@link #intercept} skipped. Does nothing by
     * default; what it throws is logged.
     */
    default void afterRecord(KafkoRecord record) {
    }
}
