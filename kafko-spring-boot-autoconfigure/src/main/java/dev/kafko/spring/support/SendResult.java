package dev.kafko.spring.support;

import org.jspecify.annotations.Nullable;

/**
 * Where a record sent through {@link dev.kafko.spring.core.KafkoTemplate} was appended.
 *
 * @param topic the topic
 * @param partition the partition
 * @param offset the record's offset in that partition
 * @param timestamp the record's timestamp (epoch millis)
 * @param key the key as given to the template, or {@code null}
 * @param value the value as given to the template
 * @param <K> the key type
 * @param <V> the value type
 */
public record SendResult<K, V>(String topic, int partition, long offset, long timestamp, @Nullable K key,
                               @Nullable V value) {
}
