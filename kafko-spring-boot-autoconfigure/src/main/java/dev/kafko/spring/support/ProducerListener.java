package dev.kafko.spring.support;

import org.jspecify.annotations.Nullable;

/**
 * Told about the outcome of every send of a {@link dev.kafko.spring.core.KafkoTemplate}. Called on
 * the thread that completes the send (often the sending thread itself), so keep it short. What it throws is
 * logged and changes nothing of the send's outcome: the template's future reports what the log did.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public interface ProducerListener<K, V> {

    /** The record was appended. */
    default void onSuccess(SendResult<K, V> result) {
    }

    /** The send failed; the template's future completes exceptionally with the same cause. */
    default void onError(String topic, @Nullable Integer partition, @Nullable K key, @Nullable V value,
                         Throwable exception) {
    }
}
