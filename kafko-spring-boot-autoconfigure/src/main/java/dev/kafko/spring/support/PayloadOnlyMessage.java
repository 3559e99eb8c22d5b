package dev.kafko.spring.support;

import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;

/**
 * The message of a record without headers for a listener that reads only the payload. Its (empty)
 * headers are created on first request only: Spring's {@link MessageHeaders} class seeds its id
 * generator from a {@code SecureRandom} when it is first initialised, several milliseconds in a
 * fresh JVM, which a plain {@code String} or {@code byte[]} listener never needs to pay. Immutable.
 */
final class PayloadOnlyMessage implements Message<Object> {

    /** The value's bytes, or {@link KafkoNull#INSTANCE} for a tombstone. */
    private final Object payload;

    PayloadOnlyMessage(Object payload) {
        this.payload = payload;
    }

    @Override
    public Object getPayload() {
        return payload;
    }

    @Override
    public MessageHeaders getHeaders() {
        return NoHeaders.INSTANCE;
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof PayloadOnlyMessage m && Objects.deepEquals(payload, m.payload);
    }

    @Override
    public int hashCode() {
        return payload instanceof byte[] bytes ? Arrays.hashCode(bytes) : payload.hashCode();
    }

    @Override
    public String toString() {
        return "PayloadOnlyMessage [payload=" + (payload instanceof byte[] bytes ? "byte[" + bytes.length + "]" : payload) + "]";
    }

    /** Holds the shared empty headers, so that they (and MessageHeaders) are initialised on first use. */
    private static final class NoHeaders {
        static final MessageHeaders INSTANCE = new RecordMessageHeaders();
    }
}
