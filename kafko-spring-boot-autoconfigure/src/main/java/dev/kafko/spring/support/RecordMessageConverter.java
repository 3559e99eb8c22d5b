package dev.kafko.spring.support;

import dev.kafko.Header;
import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.converter.SmartMessageConverter;
import org.springframework.messaging.support.GenericMessage;

/**
 * Converts between kafko's bytes and Spring {@link Message}s, in both directions, through a
 * Spring {@link SmartMessageConverter} (String and byte[] as they are; other objects as JSON when
 * Jackson is on the classpath). Stateless after construction; any thread may call it.
 *
 * <p>Outgoing: a value that is neither {@code String} nor {@code byte[]} gets a
 * {@link KafkoHeaders#TYPE} header with its class name. Incoming: a record becomes a
 * {@code Message<byte[]>} whose headers are the record's own headers (byte[] values) plus the
 * {@code kafko_received*} headers; a tombstone becomes an empty payload.
 */
public final class RecordMessageConverter {

    private static final byte[] EMPTY = new byte[0];
    private static final Set<String> NOT_COPIED = Set.of(MessageHeaders.ID, MessageHeaders.TIMESTAMP,
            MessageHeaders.CONTENT_TYPE, KafkoHeaders.TOPIC, KafkoHeaders.KEY, KafkoHeaders.PARTITION,
            KafkoHeaders.TIMESTAMP);

    private final SmartMessageConverter converter;

    public RecordMessageConverter(SmartMessageConverter converter) {
        this.converter = converter;
    }

    /** The Spring converter used for payloads; listener adapters resolve arguments with it. */
    public SmartMessageConverter messageConverter() {
        return converter;
    }

    /** The bytes of a key: String as UTF-8, byte[] as is, anything else as a value would be. */
    public byte @Nullable [] keyBytes(@Nullable Object key) {
        return key == null ? null : toBytes(key);
    }

    /**
     * The bytes of a value; when it needed an object conversion, {@code headers} gets a
     * {@link KafkoHeaders#TYPE} header naming its class.
     */
    public byte @Nullable [] valueBytes(@Nullable Object value, List<Header> headers) {
        if (value == null) {
            return null;
        }
        if (!(value instanceof byte[]) && !(value instanceof String)) {
            headers.add(Header.of(KafkoHeaders.TYPE, value.getClass().getName()));
        }
        return toBytes(value);
    }

    private byte[] toBytes(Object payload) {
        if (payload instanceof byte[] bytes) {
            return bytes;
        }
        if (payload instanceof String s) {
            return s.getBytes(StandardCharsets.UTF_8);
        }
        Message<?> message = converter.toMessage(payload, null);
        if (message == null) {
            throw new MessageConversionException("No converter turns a " + payload.getClass().getName()
                    + " into bytes: send String or byte[], or put Jackson (tools.jackson.core:jackson-databind)"
                    + " on the classpath to send objects as JSON");
        }
        Object converted = message.getPayload();
        if (converted instanceof byte[] bytes) {
            return bytes;
        }
        if (converted instanceof String s) {
            return s.getBytes(StandardCharsets.UTF_8);
        }
        throw new MessageConversionException("The converter turned a " + payload.getClass().getName()
                + " into a " + converted.getClass().getName() + ", not bytes");
    }

    /**
     * The headers of an outgoing Spring message as record headers: byte[] values as they are,
     * anything else as the UTF-8 of its {@code toString()}. The id, timestamp, content type and the
     * kafko routing headers are left out.
     */
    public List<Header> recordHeaders(MessageHeaders headers) {
        List<Header> out = new ArrayList<>();
        headers.forEach((name, value) -> {
            if (value == null || NOT_COPIED.contains(name)) {
                return;
            }
            byte[] bytes = value instanceof byte[] b ? b : String.valueOf(value).getBytes(StandardCharsets.UTF_8);
            out.add(new Header(name, bytes));
        });
        return out;
    }

    /** A received record as a message: payload = value bytes (empty for a tombstone). */
    public Message<byte[]> toMessage(KafkoRecord record, Map<String, Object> extraHeaders) {
        Map<String, Object> headers = new HashMap<>(record.headers().size() + 12);
        copyRecordHeaders(record.headers(), headers);
        headers.put(KafkoHeaders.RECEIVED_TOPIC, record.topic());
        headers.put(KafkoHeaders.RECEIVED_PARTITION, record.partition());
        headers.put(KafkoHeaders.OFFSET, record.offset());
        headers.put(KafkoHeaders.RECEIVED_TIMESTAMP, record.timestamp());
        if (record.key() != null) {
            headers.put(KafkoHeaders.RECEIVED_KEY, record.key());
        }
        headers.put(KafkoHeaders.RAW_DATA, record);
        headers.putAll(extraHeaders);
        byte[] value = record.value();
        return new GenericMessage<>(value == null ? EMPTY : value, headers);
    }

    private static void copyRecordHeaders(Headers recordHeaders, Map<String, Object> into) {
        for (Header h : recordHeaders) {
            if (h.value() != null) {
                into.put(h.key(), h.value());
            }
        }
    }

    /**
     * Converts a received message's payload to {@code type} (used for the elements of batch
     * listeners), or returns the payload when it already is one.
     *
     * @throws MessageConversionException when no converter can
     */
    public Object fromMessage(Message<?> message, Class<?> type) {
        Object payload = message.getPayload();
        if (type.isInstance(payload)) {
            return payload;
        }
        Object converted = converter.fromMessage(message, type);
        if (converted == null) {
            throw new MessageConversionException(message, "No converter turns the record at "
                    + message.getHeaders().get(KafkoHeaders.RECEIVED_TOPIC) + "-"
                    + message.getHeaders().get(KafkoHeaders.RECEIVED_PARTITION) + "@"
                    + message.getHeaders().get(KafkoHeaders.OFFSET) + " into a " + type.getName());
        }
        return converted;
    }
}
