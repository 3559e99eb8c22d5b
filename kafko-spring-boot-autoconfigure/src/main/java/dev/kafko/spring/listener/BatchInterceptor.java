package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Sees each batch before a batch listener does, and hears how its listener did, as spring-kafka's interface of the
 * same name does (there the batch is a {@code ConsumerRecords} and every method also takes the {@code Consumer}).
 * Set for every container of a factory with
 * {@link dev.kafko.spring.config.KafkoListenerContainerFactory#setBatchInterceptor} (the auto-configured factory
 * takes the context's single {@code BatchInterceptor} bean), or on one container with
 * {@link ConcurrentMessageListenerContainer#setBatchInterceptor}. Record listeners do not use it (they use a
 * {@link RecordInterceptor}).
 *
 * <p>Each delivery attempt of a batch (its delivery, and each retry of the error handler) calls, on the container
 * member's polling thread: {@link #intercept}, before the listener's {@code RecordFilterStrategy}; then the listener
 * with what it returned; then {@link #success} when the listener returned, or {@link #failure} when it threw, before
 * the error handler sees the failure. A listener that returns a {@code CompletionStage}, a {@code Mono} or is a Kotlin
 * {@code suspend} function has returned once that completed. Several members may call one interceptor at once.
 */
@FunctionalInterface
public interface BatchInterceptor extends ThreadStateProcessor {

    /**
     * The records the listener gets: {@code records} itself, other ones (a {@code BatchListenerFailedException} or
     * an {@code Acknowledgment} index then counts in the returned list; a record the listener names that is not one
     * of {@code records} fails the whole batch, as does one after which the returned list holds a record that comes
     * before it in {@code records} (a reordered batch: no record the listener did not get to is committed, nor by an
     * acknowledgment or a nack by index, and an acknowledgment by index commits up to the last polled record the
     * listener got to; a returned record that names the topic, partition and offset of one of {@code records} stands
     * at its place there); a failed batch is recovered as the records returned, as in spring-kafka,
     * those left out counting as processed), or {@code null} (or an empty list) to skip the batch.
     * Skipped records count as processed: the listener is not called, nor {@link #success}, and they are committed
     * by the ack mode as if the listener had returned (under the manual ack modes, with the listener's next
     * acknowledgment of their partition). The records committed are always those polled. Throwing fails the delivery
     * attempt as the listener throwing would: {@link #failure} is called and the error handler deals with the batch.
     *
     * @param records the polled batch, unmodifiable
     */
    @Nullable List<KafkoRecord> intercept(List<KafkoRecord> records);

    /** The listener returned for {@code records} (those it got). Does nothing by default; what it throws is logged. */
    default void success(List<KafkoRecord> records) {
    }

    /**
     * The listener (or {@link #intercept}) threw {@code exception} for {@code records} (those the listener got, or
     * those polled when {@code intercept} threw), before the error handler deals with it. Does nothing by default;
     * what it throws is logged.
     */
    default void failure(List<KafkoRecord> records, Exception exception) {
    }
}
