package dev.kafko.spring.support;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default {@link ProducerListener}: logs failed sends at ERROR with the topic and key, and
 * nothing on success. Stateless; any thread may call it.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class LoggingProducerListener<K, V> implements ProducerListener<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(LoggingProducerListener.class);

    @Override
    public void onError(String topic, @Nullable Integer partition, @Nullable K key, @Nullable V value,
                        Throwable exception) {
        LOG.error("Sending to topic '{}'{} with key '{}' failed", topic,
                partition == null ? "" : " partition " + partition, key, exception);
    }
}
