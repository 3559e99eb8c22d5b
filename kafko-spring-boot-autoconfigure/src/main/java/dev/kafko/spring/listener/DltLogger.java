package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.support.KafkoHeaders;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What reads a {@code @RetryableTopic} listener's dead-letter topic when its bean has no {@code @DltHandler}: logs
 * each record at ERROR, with the exception its last attempt failed with, and goes on.
 */
public final class DltLogger {

    private static final Logger LOG = LoggerFactory.getLogger(DltLogger.class);

    /** {@link #handle(KafkoRecord)}. */
    public static final Method METHOD;

    static {
        try {
            METHOD = DltLogger.class.getMethod("handle", KafkoRecord.class);
        } catch (NoSuchMethodException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String listenerId;

    public DltLogger(String listenerId) {
        this.listenerId = listenerId;
    }

    /** Logs {@code record}. */
    public void handle(KafkoRecord record) {
        LOG.error("Listener '{}' gave up on the record at {}-{}@{} (first read at {}-{}@{}) after {} attempt(s): {}: {}",
                listenerId, record.topic(), record.partition(), record.offset(),
                header(record, KafkoHeaders.DLT_ORIGINAL_TOPIC), header(record, KafkoHeaders.DLT_ORIGINAL_PARTITION),
                header(record, KafkoHeaders.DLT_ORIGINAL_OFFSET), header(record, KafkoHeaders.RETRY_ATTEMPTS),
                header(record, KafkoHeaders.DLT_EXCEPTION_FQCN), header(record, KafkoHeaders.DLT_EXCEPTION_MESSAGE));
    }

    private static String header(KafkoRecord record, String key) {
        byte[] value = record.headers().lastValue(key);
        return value == null ? "?" : new String(value, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "DltLogger[" + listenerId + "]";
    }
}
