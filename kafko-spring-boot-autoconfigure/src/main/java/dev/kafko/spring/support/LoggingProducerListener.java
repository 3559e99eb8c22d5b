package dev.kafko.spring.support;

import dev.kafko.spring.transaction.TransactionRolledBackException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default {@link ProducerListener}: logs each failed send at ERROR with the topic and key, and
 * nothing on success. The stack trace comes with the first failure of its kind (topic and exception
 * class) and then at most once a minute; the failures between are one line each, with the exception
 * and its cause: a partition that refuses every send under steady traffic does not flood the log.
 * Any thread may call it.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public final class LoggingProducerListener<K, V> implements ProducerListener<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(LoggingProducerListener.class);

    private final StackTraceLimiter traces = new StackTraceLimiter();

    @Override
    public void onError(String topic, @Nullable Integer partition, @Nullable K key, @Nullable V value,
                        Throwable exception) {
        String where = partition == null ? "" : " partition " + partition;
        if (rolledBack(exception)) {
            LOG.debug("Sending to topic '{}'{} with key '{}' was rolled back with its transaction", topic, where, key);
            return;
        }
        traces.error(LOG, topic, exception, "Sending to topic '{}'{} with key '{}' failed", topic, where, key);
    }

    /** A rollback the application chose. */
    private static boolean rolledBack(Throwable exception) {
        return exception instanceof TransactionRolledBackException;
    }
}
