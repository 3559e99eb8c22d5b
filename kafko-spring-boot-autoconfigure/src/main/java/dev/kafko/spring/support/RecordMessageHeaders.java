package dev.kafko.spring.support;

import java.util.Map;
import org.springframework.messaging.MessageHeaders;

/**
 * The headers of a received record's message, filled in place: no id and no timestamp header are
 * generated (a record has its own offset and timestamp), and the map is built once instead of being
 * copied. Built and filled by one polling thread, then read-only.
 */
final class RecordMessageHeaders extends MessageHeaders {

    RecordMessageHeaders() {
        super(null, ID_VALUE_NONE, -1L);
    }

    /** Writable view used while the message is being built. */
    Map<String, Object> raw() {
        return getRawHeaders();
    }
}
