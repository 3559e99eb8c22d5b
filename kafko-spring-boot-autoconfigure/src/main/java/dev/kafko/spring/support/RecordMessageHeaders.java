package dev.kafko.spring.support;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.StringJoiner;
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

    /**
     * The headers as a message's {@code toString()} (and so many an error message) shows them: kafko's own
     * ({@code kafko_type}, {@code kafko_dlt-*} ...) as their text, the record's key and an application's own
     * byte arrays by their length only, since they may hold what a log must not (a token, a customer's
     * e-mail address), and {@code byte[]}'s own {@code toString()} said nothing anyway.
     */
    @Override
    public String toString() {
        StringJoiner out = new StringJoiner(", ", "{", "}");
        getRawHeaders().forEach((name, value) -> out.add(name + "=" + (value instanceof byte[] bytes
                ? (name.startsWith(KafkoHeaders.PREFIX) && !name.equals(KafkoHeaders.RECEIVED_KEY)
                        ? text(bytes) : "byte[" + bytes.length + "]")
                : String.valueOf(value))));
        return out.toString();
    }

    private static String text(byte[] bytes) {
        if (bytes.length > 512) {
            return "byte[" + bytes.length + "]";
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return "byte[" + bytes.length + "]";
        }
    }
}
