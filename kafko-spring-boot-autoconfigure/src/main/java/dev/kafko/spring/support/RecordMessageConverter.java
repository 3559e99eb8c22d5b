package dev.kafko.spring.support;

import dev.kafko.Header;
import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.CompositeMessageConverter;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.converter.SmartMessageConverter;
import org.springframework.messaging.support.GenericMessage;
import org.springframework.util.ClassUtils;
import org.springframework.util.MimeType;

/**
 * Converts between kafko's bytes and Spring {@link Message}s, in both directions, through a
 * Spring {@link SmartMessageConverter} (String and raw bytes as they are; other objects as JSON when
 * Jackson is on the classpath). Stateless after construction; any thread may call it.
 *
 * <p>Outgoing: raw bytes are a {@code byte[]}, or a {@link ByteBuffer}'s bytes from index 0 to its limit, as Kafka's
 * {@code ByteBufferSerializer} writes them; they skip the Spring converter, as a {@code String} does, and a value
 * that is neither gets a {@link KafkoHeaders#TYPE} header with its class name. Incoming: a record becomes a
 * {@code Message} whose payload is the value's bytes (empty ones included) or, for a tombstone,
 * {@link KafkoNull#INSTANCE}, and whose headers are the record's own headers (byte[] values; a
 * {@code contentType} one as its text; none named as one of kafko's own message headers, which only another
 * producer writes) plus the {@code kafko_received*} headers. Like outgoing String and
 * byte[] values, the payload of a record without headers skips the Spring converter when the
 * listener parameter is a plain {@code String} or {@code byte[]} ({@link #plainPayload}); the auto-configured
 * converter reads the bytes into a {@code ByteBuffer} parameter as a buffer that wraps them, as Kafka's
 * {@code ByteBufferDeserializer} does.
 */
public final class RecordMessageConverter {

    /**
     * kafko's own message headers: the routing headers (read by the template) and those it sets on a received
     * message. A record never carries them from kafko (see {@link #NOT_COPIED}); one of another producer that names
     * them is not read into a received message, where its bytes would stand in for kafko's values (a delivery
     * attempt where a batch has none, a listener's info) or route a received message forwarded as it is.
     */
    private static final Set<String> KAFKO_OWN = Set.of(KafkoHeaders.TOPIC, KafkoHeaders.KEY, KafkoHeaders.PARTITION,
            KafkoHeaders.TIMESTAMP, KafkoHeaders.RECEIVED_KEY, KafkoHeaders.RECEIVED_TOPIC,
            KafkoHeaders.RECEIVED_PARTITION, KafkoHeaders.OFFSET, KafkoHeaders.RECEIVED_TIMESTAMP,
            KafkoHeaders.GROUP_ID, KafkoHeaders.LISTENER_ID, KafkoHeaders.ACKNOWLEDGMENT, KafkoHeaders.RAW_DATA,
            KafkoHeaders.DELIVERY_ATTEMPT, KafkoHeaders.LISTENER_INFO);

    /**
     * Message headers never written to a record: Spring's own (its reply and error channels are objects of
     * this process) and {@link #KAFKO_OWN kafko's} (so a received message forwarded as it is does not carry its
     * old key, offset or acknowledgment into the new record).
     */
    private static final Set<String> NOT_COPIED = union(Set.of(MessageHeaders.ID, MessageHeaders.TIMESTAMP,
            MessageHeaders.REPLY_CHANNEL, MessageHeaders.ERROR_CHANNEL), KAFKO_OWN);

    /** A class of Jackson 3, whose presence means the default converter writes any object as JSON. */
    private static final String JACKSON = "tools.jackson.databind.json.JsonMapper";

    private final SmartMessageConverter converter;
    /** Whether every payload goes through {@link #converter}: {@link #plainPayload} then gives none. */
    private final boolean convertsEveryPayload;

    public RecordMessageConverter(SmartMessageConverter converter) {
        this(converter, false);
    }

    private RecordMessageConverter(SmartMessageConverter converter, boolean convertsEveryPayload) {
        this.converter = converter;
        this.convertsEveryPayload = convertsEveryPayload;
    }

    /**
     * This converter with {@code first} asked before its own converter for every payload it reads, that of a
     * record without headers included (a listener's {@code contentTypeConverter}); what {@code first} does not
     * convert (it returns {@code null}) this one's converter converts.
     */
    public RecordMessageConverter tryingFirst(SmartMessageConverter first) {
        return new RecordMessageConverter(new CompositeMessageConverter(List.of(first, converter)), true);
    }

    /** The Spring converter used for payloads; listener adapters resolve arguments with it. */
    public SmartMessageConverter messageConverter() {
        return converter;
    }

    /**
     * The bytes of a key: String as UTF-8, raw bytes ({@code byte[]}, {@link ByteBuffer}) as they are, a
     * {@link #simpleText simple value} as the UTF-8 of its text (so that {@code @Header(RECEIVED_KEY)} reads it back
     * as its type), anything else as JSON, as a value would be.
     */
    public byte @Nullable [] keyBytes(@Nullable Object key) {
        if (key == null || key instanceof KafkoNull) {
            return null;
        }
        String text = simpleText(key);
        return text != null ? text.getBytes(StandardCharsets.UTF_8) : toBytes(key);
    }

    /**
     * The text of a value that a header's reader parses back from text: a number, boolean or character
     * as {@code toString()}, an enum constant by its {@code name()}, a {@link UUID}; {@code null} for
     * every other type. (Their JSON would quote enums and UUIDs, which the reader does not parse.)
     */
    static @Nullable String simpleText(Object value) {
        if (value instanceof Enum<?> e) {
            return e.name();
        }
        return value instanceof Number || value instanceof Boolean || value instanceof Character
                || value instanceof UUID ? value.toString() : null;
    }

    /**
     * The bytes of a value; when it needed an object conversion, {@code headers} gets a
     * {@link KafkoHeaders#TYPE} header naming its class.
     */
    public byte @Nullable [] valueBytes(@Nullable Object value, List<Header> headers) {
        Header type = typeHeader(value);
        if (type != null) {
            headers.add(type);
        }
        return valueBytes(value);
    }

    /**
     * The bytes of a value: String as UTF-8, raw bytes ({@code byte[]}, {@link ByteBuffer}) as they are, anything
     * else through the converter; {@code null} (a tombstone) for {@code null} and {@link KafkoNull}.
     */
    public byte @Nullable [] valueBytes(@Nullable Object value) {
        return value == null || value instanceof KafkoNull ? null : toBytes(value);
    }

    /**
     * The {@link KafkoHeaders#TYPE} header naming the class of a value that needs an object
     * conversion; {@code null} for null, {@link KafkoNull}, {@code String}, {@code byte[]} and {@link ByteBuffer}
     * values.
     */
    public @Nullable Header typeHeader(@Nullable Object value) {
        if (value == null || isRaw(value) || value instanceof String || value instanceof KafkoNull) {
            return null;
        }
        // an enum constant with a body is an anonymous subclass, which no reader can name
        Class<?> type = value instanceof Enum<?> e ? e.getDeclaringClass() : value.getClass();
        return Header.of(KafkoHeaders.TYPE, type.getName());
    }

    private byte[] toBytes(Object payload) {
        byte[] raw = rawBytes(payload);
        if (raw != null) {
            return raw;
        }
        if (payload instanceof String s) {
            return s.getBytes(StandardCharsets.UTF_8);
        }
        Message<?> message = converter.toMessage(payload, null);
        if (message == null) {
            // with Jackson present the default converter writes every object: this one is the application's own
            // (looked up as the application's classes are, through the thread's context class loader)
            throw new MessageConversionException("No converter turns a " + payload.getClass().getName()
                    + " into bytes: " + (ClassUtils.isPresent(JACKSON, null)
                    ? "the template's converter (" + converter.getClass().getName() + ") writes none; send String"
                    + " or byte[], or give the template a converter that writes it"
                    : "send String or byte[], or put Jackson (tools.jackson.core:jackson-databind) on the classpath"
                    + " to send objects as JSON"));
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

    /** Whether {@code value} is raw bytes, written as they are: a {@code byte[]} or a {@link ByteBuffer}. */
    private static boolean isRaw(Object value) {
        return value instanceof byte[] || value instanceof ByteBuffer;
    }

    /**
     * The bytes of a raw value ({@link #isRaw}), {@code null} for any other: a {@code byte[]} as it is; a
     * {@link ByteBuffer}'s from index 0 to its limit, whatever its position, as Kafka's {@code ByteBufferSerializer}
     * (kafka-clients 4.x) writes one (a slice or a flipped buffer starts at 0), copied through a duplicate, so that
     * the caller's buffer keeps its position and limit (the serializer rewinds it) and a read-only or direct buffer,
     * which hands over no array, is read as any other.
     */
    private static byte @Nullable [] rawBytes(Object value) {
        if (value instanceof byte[] bytes) {
            return bytes;
        }
        if (!(value instanceof ByteBuffer buffer)) {
            return null;
        }
        ByteBuffer whole = buffer.duplicate().rewind();
        byte[] bytes = new byte[whole.remaining()];
        whole.get(bytes);
        return bytes;
    }

    /**
     * The headers of an outgoing Spring message as record headers: raw bytes ({@code byte[]}, {@link ByteBuffer}) as
     * they are, a {@code String} or a {@link #simpleText simple value} as the UTF-8 of its text, any other object as
     * JSON (so that {@code @Header("name") MyType} reads it back), or, when no converter writes it (no
     * Jackson, or an object Jackson cannot write), as the UTF-8 of its {@code toString()}; the content type (a
     * {@link MimeType} or its text) as its text, as spring-kafka writes it. The id, timestamp, reply and error
     * channels, the kafko routing headers and those of a received record are left out.
     */
    public List<Header> recordHeaders(MessageHeaders headers) {
        List<Header> out = new ArrayList<>();
        headers.forEach((name, value) -> {
            if (value == null || NOT_COPIED.contains(name)) {
                return;
            }
            out.add(new Header(name, headerBytes(value)));
        });
        return out;
    }

    private byte[] headerBytes(Object value) {
        byte[] raw = rawBytes(value);
        if (raw != null) {
            return raw;
        }
        String text = value instanceof String s ? s
                : value instanceof MimeType type ? type.toString() : simpleText(value);
        if (text != null) {
            return text.getBytes(StandardCharsets.UTF_8);
        }
        try {
            return toBytes(value);
        } catch (RuntimeException e) {
            return value.toString().getBytes(StandardCharsets.UTF_8);
        }
    }

    /** A received record as a message: payload = value bytes ({@link KafkoNull} for a tombstone). */
    public Message<Object> toMessage(KafkoRecord record, Map<String, Object> extraHeaders) {
        RecordMessageHeaders headers = new RecordMessageHeaders();
        Map<String, Object> raw = headers.raw();
        copyRecordHeaders(record.headers(), raw);
        putReceivedHeaders(record, raw);
        raw.putAll(extraHeaders);
        return new GenericMessage<>(payload(record), headers);
    }

    /**
     * A received record as a message for one listener invocation: the record's headers, the
     * {@code kafko_received*} headers, the acknowledgment, group and listener id. Builds a single map
     * and generates no id or timestamp.
     */
    public Message<Object> toMessage(KafkoRecord record, Acknowledgment acknowledgment, String groupId,
                                     String listenerId) {
        return toMessage(record, acknowledgment, groupId, listenerId, 1);
    }

    /** {@link #toMessage(KafkoRecord, Acknowledgment, String, String)} with {@link KafkoHeaders#DELIVERY_ATTEMPT}. */
    public Message<Object> toMessage(KafkoRecord record, Acknowledgment acknowledgment, String groupId,
                                     String listenerId, int deliveryAttempt) {
        return toMessage(record, acknowledgment, groupId, listenerId, deliveryAttempt, null);
    }

    /**
     * {@link #toMessage(KafkoRecord, Acknowledgment, String, String, int)} with the listener's
     * {@link KafkoHeaders#LISTENER_INFO}, when it gives one ({@code listenerInfo} not null).
     */
    public Message<Object> toMessage(KafkoRecord record, Acknowledgment acknowledgment, String groupId,
                                     String listenerId, int deliveryAttempt, @Nullable String listenerInfo) {
        RecordMessageHeaders headers = new RecordMessageHeaders();
        Map<String, Object> raw = headers.raw();
        copyRecordHeaders(record.headers(), raw);
        putReceivedHeaders(record, raw);
        raw.put(KafkoHeaders.ACKNOWLEDGMENT, acknowledgment);
        raw.put(KafkoHeaders.GROUP_ID, groupId);
        raw.put(KafkoHeaders.LISTENER_ID, listenerId);
        raw.put(KafkoHeaders.DELIVERY_ATTEMPT, deliveryAttempt);
        if (listenerInfo != null) {
            raw.put(KafkoHeaders.LISTENER_INFO, listenerInfo);
        }
        return new GenericMessage<>(payload(record), headers);
    }

    /**
     * A received record as a message that carries only the record's own headers (which a converter
     * may read, for example {@link KafkoHeaders#TYPE}): for listeners whose only argument is the
     * payload, so the {@code kafko_received*} headers would never be read.
     */
    public Message<Object> toPayloadMessage(KafkoRecord record) {
        Headers recordHeaders = record.headers();
        if (recordHeaders.size() == 0) {
            return new PayloadOnlyMessage(payload(record));
        }
        RecordMessageHeaders headers = new RecordMessageHeaders();
        copyRecordHeaders(recordHeaders, headers.raw());
        return new GenericMessage<>(payload(record), headers);
    }

    /**
     * The payload of a {@link #toPayloadMessage payload-only message} for a plain {@code String} or
     * {@code byte[]} listener parameter, without going through the Spring converter: UTF-8 text or the
     * bytes as they are, the same conversions the outgoing side applies (an empty value is {@code ""} or an
     * empty array). {@code null} when the message needs the argument resolvers: its record had headers
     * (one may name a content type), it is a tombstone (which a required payload refuses), or this converter
     * {@link #tryingFirst tries another first}.
     */
    public @Nullable Object plainPayload(Message<?> message, Class<?> type) {
        if (convertsEveryPayload || !(message instanceof PayloadOnlyMessage)
                || !(message.getPayload() instanceof byte[] value)) {
            return null;
        }
        if (type == String.class) {
            return new String(value, StandardCharsets.UTF_8);
        }
        return type == byte[].class ? value : null;
    }

    private static Object payload(KafkoRecord record) {
        byte[] value = record.value();
        return value == null ? KafkoNull.INSTANCE : value;
    }

    private static void putReceivedHeaders(KafkoRecord record, Map<String, Object> into) {
        into.put(KafkoHeaders.RECEIVED_TOPIC, record.topic());
        into.put(KafkoHeaders.RECEIVED_PARTITION, record.partition());
        into.put(KafkoHeaders.OFFSET, record.offset());
        into.put(KafkoHeaders.RECEIVED_TIMESTAMP, record.timestamp());
        byte[] key = record.key();
        if (key != null) {
            into.put(KafkoHeaders.RECEIVED_KEY, key);
        }
        into.put(KafkoHeaders.RAW_DATA, record);
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new HashSet<>(a);
        all.addAll(b);
        return Set.copyOf(all);
    }

    private static void copyRecordHeaders(Headers recordHeaders, Map<String, Object> into) {
        for (Header h : recordHeaders) {
            byte[] value = h.value();
            String key = h.key();
            // every name of KAFKO_OWN has the prefix: the test of most keys ends at their first characters
            if (value != null && !(key.startsWith(KafkoHeaders.PREFIX) && KAFKO_OWN.contains(key))) {
                into.put(key, key.equals(MessageHeaders.CONTENT_TYPE) ? contentType(value) : value);
            }
        }
    }

    /**
     * A record's {@code contentType} header as the text Spring reads a content type from (its byte[] failed every
     * conversion of the record): UTF-8, without the quotes of a JSON string, which spring-kafka's JSON header
     * mapper writes a {@code MimeType} as. kafko's own converters read a value by the type it is read into and
     * pass over the content type; a converter of the application's own may read it.
     */
    static String contentType(byte[] value) {
        String text = new String(value, StandardCharsets.UTF_8);
        return text.length() >= 2 && text.startsWith("\"") && text.endsWith("\"")
                ? text.substring(1, text.length() - 1) : text;
    }

    /**
     * Converts a received message's payload to {@code type} (used for the elements of batch
     * listeners), or returns the payload when it already is one; {@code null} for a tombstone.
     *
     * @param hint the declared type with its generics, for a converter that reads them (Spring's
     *     {@code MethodParameter} at the element's nesting level), or {@code null}
     * @throws MessageConversionException when no converter can, or one fails otherwise (a converter of the
     *     application's that throws, or a content type that is no MIME type to one that reads it): a failure that
     *     another attempt repeats, as the argument resolvers report a record listener's
     */
    public @Nullable Object fromMessage(Message<?> message, Class<?> type, @Nullable Object hint) {
        Object payload = message.getPayload();
        if (payload instanceof KafkoNull) {
            return null;
        }
        if (type.isInstance(payload)) {
            return payload;
        }
        Object converted;
        try {
            converted = converter.fromMessage(message, type, hint);
        } catch (MessageConversionException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new MessageConversionException(message, "Cannot convert the record at " + position(message)
                    + " into a " + type.getName() + ": " + e, e);
        }
        if (converted == null) {
            throw new MessageConversionException(message, "No converter turns the record at " + position(message)
                    + " into a " + type.getName());
        }
        return converted;
    }

    private static String position(Message<?> message) {
        MessageHeaders headers = message.getHeaders();
        return headers.get(KafkoHeaders.RECEIVED_TOPIC) + "-" + headers.get(KafkoHeaders.RECEIVED_PARTITION) + "@"
                + headers.get(KafkoHeaders.OFFSET);
    }
}
