package dev.kafko.spring.listener.adapter;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.RecordMessageConverter;
import dev.kafko.spring.support.StackTraceLimiter;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.core.convert.ConversionException;
import org.springframework.core.convert.ConversionService;
import org.springframework.core.convert.TypeDescriptor;
import org.springframework.messaging.Message;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.messaging.support.GenericMessage;
import org.springframework.messaging.support.MessageBuilder;
import org.springframework.validation.annotation.Validated;

/**
 * Builds the message a batch listener method is invoked with: its payload the list of the records' elements, converted
 * to the {@code T} of the method's {@code List<T>} ({@code KafkoRecord} passed as it is, a {@code Message<T>} with its
 * payload converted), and the {@code kafko_received*} headers as lists in record order. Internal to the listener
 * adapter; thread-safe (members sharing an adapter build their batches at once).
 *
 * <p>A record whose payload does not convert to the {@code T} of a {@code List<T>} is a {@code null} element, its
 * {@link MessageConversionException} at its index in the {@link KafkoHeaders#CONVERSION_FAILURES} list (a {@code null}
 * at the index of each record that converted), logged at WARN: the listener gets the others, and may name that record
 * with a {@code BatchListenerFailedException}, as spring-kafka's {@code BatchMessagingMessageConverter} does. A
 * {@code List<Message<T>>} is converted a message at a time, as spring-kafka's: a record that does not convert fails the
 * batch, as does a key that does not convert to the {@code T} of a {@code @Header(RECEIVED_KEY) List<T>}.
 */
final class BatchMessages {

    /** Named after the public adapter, whose logger an application configures. */
    private static final Logger LOG = LoggerFactory.getLogger(MessagingMessageListenerAdapter.class);
    private static final TypeDescriptor BYTES = TypeDescriptor.valueOf(byte[].class);
    /** The simple names of the nullness marks a payload parameter may carry. */
    private static final Set<String> NULLNESS = Set.of("Nullable", "NonNull", "Nonnull", "NotNull");

    private final RecordMessageConverter converter;
    private final String listenerId;
    private final Class<?> elementType;
    /** The {@code T} of a batch method's {@code List<Message<T>>}, when the payloads must be converted to it; else null. */
    private final @Nullable Class<?> messagePayloadType;
    /**
     * The declared type of a batch element's payload with its generics ({@code Envelope<Order>} of a
     * {@code List<Envelope<Order>>} or of a {@code List<Message<Envelope<Order>>>}), as the converter's hint.
     */
    private final @Nullable MethodParameter elementHint;
    /**
     * The {@code T} of a batch method's {@code @Header(RECEIVED_KEY) List<T>} when the keys are converted to it
     * ({@code String}, a number, an object...); null when they are handed over as {@code byte[]}.
     */
    private final @Nullable TypeDescriptor keyType;
    /** Converts the keys to {@link #keyType}; null when there is none. */
    private final @Nullable ConversionService keyConversion;
    /** The stack trace of a conversion failure is logged once a minute per listener, the others in one line. */
    private final StackTraceLimiter traces = new StackTraceLimiter();

    /**
     * @throws IllegalStateException when the method has no {@code List} payload parameter
     */
    BatchMessages(Method method, RecordMessageConverter converter, String listenerId) {
        this.converter = converter;
        this.listenerId = listenerId;
        this.elementType = elementType(method, listenerId);
        this.messagePayloadType = elementType == Message.class ? messagePayloadType(method) : null;
        this.elementHint = elementHint(method, elementType == Message.class);
        this.keyType = keyType(method);
        this.keyConversion = keyType == null || keyType.getType() == String.class ? null
                : KafkoArgumentResolvers.headerConversion(converter);
    }

    /**
     * Whether the batches carry {@link KafkoHeaders#CONVERSION_FAILURES}: those of a {@code List<T>} payload, whose
     * elements are converted, not of a {@code List<KafkoRecord>} or a {@code List<Message<T>>}.
     */
    boolean reportsConversionFailures() {
        return elementType != KafkoRecord.class && elementType != Message.class;
    }

    /** The message of {@code records}, with the headers of the whole delivery ({@code extra}). */
    Message<List<Object>> build(List<KafkoRecord> records, Map<String, Object> extra) {
        List<Object> payload = new ArrayList<>(records.size());
        List<Object> keys = new ArrayList<>(records.size());
        List<Object> topics = new ArrayList<>(records.size());
        List<Object> partitions = new ArrayList<>(records.size());
        List<Object> offsets = new ArrayList<>(records.size());
        List<Object> timestamps = new ArrayList<>(records.size());
        @Nullable List<@Nullable MessageConversionException> failures = reportsConversionFailures()
                ? new ArrayList<>(records.size()) : null;
        for (KafkoRecord r : records) {
            payload.add(element(r, extra, failures));
            keys.add(key(r));
            topics.add(r.topic());
            partitions.add(r.partition());
            offsets.add(r.offset());
            timestamps.add(r.timestamp());
        }
        Map<String, Object> headers = new HashMap<>(extra);
        headers.put(KafkoHeaders.RECEIVED_KEY, keys);
        headers.put(KafkoHeaders.RECEIVED_TOPIC, topics);
        headers.put(KafkoHeaders.RECEIVED_PARTITION, partitions);
        headers.put(KafkoHeaders.OFFSET, offsets);
        headers.put(KafkoHeaders.RECEIVED_TIMESTAMP, timestamps);
        headers.put(KafkoHeaders.RAW_DATA, List.copyOf(records));
        if (failures != null) {
            headers.put(KafkoHeaders.CONVERSION_FAILURES, failures);
        }
        return new GenericMessage<>(payload, headers);
    }

    private @Nullable Object key(KafkoRecord record) {
        byte[] key = record.key();
        if (key == null || keyType == null) {
            return key;
        }
        if (keyConversion == null) {
            return new String(key, StandardCharsets.UTF_8);
        }
        try {
            return keyConversion.convert(key, BYTES, keyType);
        } catch (ConversionException e) {
            throw new MessageConversionException("Listener '" + listenerId + "' cannot read the key of "
                    + record.topic() + "-" + record.partition() + "@" + record.offset() + " as a "
                    + keyType.getType().getName() + ": " + e.getMessage(), e);
        }
    }

    /** The record's element; null, with its failure added to {@code failures}, for one that does not convert. */
    private @Nullable Object element(KafkoRecord record, Map<String, Object> extra,
                                     @Nullable List<@Nullable MessageConversionException> failures) {
        if (elementType == KafkoRecord.class) {
            return record;
        }
        Message<Object> message = converter.toMessage(record, extra);
        if (elementType == Message.class) {
            Class<?> type = messagePayloadType;
            // a tombstone's message keeps its KafkoNull payload: a message cannot hold null
            Object payload = type == null ? null : converter.fromMessage(message, type, elementHint);
            return payload == null ? message : MessageBuilder.createMessage(payload, message.getHeaders());
        }
        if (failures == null) {
            return converter.fromMessage(message, elementType, elementHint);
        }
        try {
            Object element = converter.fromMessage(message, elementType, elementHint);
            failures.add(null);
            return element;
        } catch (MessageConversionException e) {
            failures.add(e);
            warn(record, e);
            return null;
        }
    }

    private void warn(KafkoRecord record, MessageConversionException e) {
        String what = "Listener '{}' cannot convert {}-{}@{} to a {}; it gets null in its place in the batch, and the"
                + " failure at that index of @Header(KafkoHeaders.CONVERSION_FAILURES)";
        if (traces.traceDue(listenerId)) {
            LOG.warn(what, listenerId, record.topic(), record.partition(), record.offset(), elementType.getName(), e);
        } else {
            LOG.warn(what + ": {} (stack trace logged with an earlier one)", listenerId, record.topic(),
                    record.partition(), record.offset(), elementType.getName(), StackTraceLimiter.oneLine(e));
        }
    }

    /**
     * The {@code T} of a batch method's {@code @Header(RECEIVED_KEY) List<T>}, or null for {@code byte[]},
     * {@code Object} or none: the header resolver converts single values, not list elements, so the list is
     * built with keys of that type.
     */
    private static @Nullable TypeDescriptor keyType(Method method) {
        for (int i = 0; i < method.getParameterCount(); i++) {
            MethodParameter parameter = new MethodParameter(method, i);
            Header header = parameter.getParameterAnnotation(Header.class);
            if (header != null && (KafkoHeaders.RECEIVED_KEY.equals(header.value())
                    || KafkoHeaders.RECEIVED_KEY.equals(header.name()))) {
                ResolvableType element = ResolvableType.forMethodParameter(parameter).asCollection().getGeneric(0);
                Class<?> type = element.resolve();
                return type == null || type == Object.class || type == byte[].class ? null
                        : TypeDescriptor.valueOf(type);
            }
        }
        return null;
    }

    /**
     * The {@code T} of the batch method's {@code List<Message<T>>} payload parameter, or null when the
     * raw {@code byte[]} payload is wanted ({@code T} is {@code byte[]}, {@code Object}, a wildcard or absent).
     */
    private static @Nullable Class<?> messagePayloadType(Method method) {
        MethodParameter parameter = payloadParameter(method);
        Class<?> payload = parameter == null ? null
                : ResolvableType.forMethodParameter(parameter).asCollection().getGeneric(0).getGeneric(0).resolve();
        return payload == null || payload == Object.class || payload == byte[].class ? null : payload;
    }

    /**
     * The batch payload parameter nested down to the element ({@code T} of {@code List<T>}), or to
     * the element's payload when the elements are messages ({@code T} of {@code List<Message<T>>}).
     */
    private static @Nullable MethodParameter elementHint(Method method, boolean messages) {
        MethodParameter parameter = payloadParameter(method);
        if (parameter == null) {
            return null;
        }
        MethodParameter element = parameter.nested();
        return messages ? element.nested() : element;
    }

    /**
     * The first {@code List} parameter that takes the batch ({@link #takesBatch}), else, where each is annotated
     * otherwise, the first {@code List} that is no header.
     */
    private static @Nullable MethodParameter payloadParameter(Method method) {
        MethodParameter annotated = null;
        for (int i = 0; i < method.getParameterCount(); i++) {
            MethodParameter parameter = new MethodParameter(method, i);
            if (!List.class.isAssignableFrom(parameter.getParameterType()) || isHeader(parameter)) {
                continue;
            }
            if (takesBatch(parameter)) {
                return parameter;
            }
            annotated = annotated == null ? parameter : annotated;
        }
        return annotated;
    }

    /**
     * Whether Spring's payload resolver hands {@code parameter} the batch as it is: a {@code List}, or a
     * {@code Collection} or {@code Iterable} it is assignable to, unannotated or annotated only with {@code @Payload},
     * a validation hint or a nullness mark. One with another annotation ({@code @Header} or one of the application's
     * own) is left to the argument resolver that reads it, as spring-kafka infers the payload type from no parameter
     * annotated otherwise.
     */
    private static boolean takesBatch(MethodParameter parameter) {
        Class<?> type = parameter.getParameterType();
        if (!List.class.isAssignableFrom(type) && (type == Object.class || !type.isAssignableFrom(List.class))) {
            return false;
        }
        for (Annotation annotation : parameter.getParameterAnnotations()) {
            Class<? extends Annotation> kind = annotation.annotationType();
            if (kind != Payload.class && kind != Validated.class && !kind.getSimpleName().startsWith("Valid")
                    && !NULLNESS.contains(kind.getSimpleName())) {
                return false;
            }
        }
        return true;
    }

    private static boolean isHeader(MethodParameter parameter) {
        return parameter.hasParameterAnnotation(Header.class) || parameter.hasParameterAnnotation(Headers.class);
    }

    /**
     * The {@code T} of the batch method's {@code List<T>} payload parameter.
     *
     * @throws IllegalStateException when it has none, or more than one ({@link #takesBatch}): the batch is one list,
     *     which Spring's payload resolver hands to each of them as it is (a {@code List<Order>} beside a
     *     {@code List<KafkoRecord>} or a {@code Collection<KafkoRecord>} held the records, a
     *     {@code ClassCastException} in the method)
     */
    private static Class<?> elementType(Method method, String listenerId) {
        MethodParameter parameter = payloadParameter(method);
        long lists = IntStream.range(0, method.getParameterCount())
                .mapToObj(i -> new MethodParameter(method, i)).filter(BatchMessages::takesBatch).count();
        if (lists > 1) {
            throw new IllegalStateException("Batch listener '" + listenerId + "' (" + method + ") has " + lists
                    + " List (or Collection) payload parameters; a batch is one list, which each of them would get as"
                    + " it is: keep one,"
                    + " and take the records beside a List<T> of values with @Header(KafkoHeaders.RAW_DATA)"
                    + " List<KafkoRecord>");
        }
        if (parameter != null) {
            Class<?> element = ResolvableType.forMethodParameter(parameter).asCollection().resolveGeneric(0);
            return element == null ? Object.class : element;
        }
        throw new IllegalStateException("Batch listener '" + listenerId + "' (" + method
                + ") needs a List<...> payload parameter");
    }
}
