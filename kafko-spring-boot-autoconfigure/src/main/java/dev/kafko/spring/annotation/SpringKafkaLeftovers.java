package dev.kafko.spring.annotation;

import dev.kafko.spring.support.KafkoHeaders;
import java.lang.annotation.Annotation;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.messaging.handler.annotation.Header;

/**
 * What a port from spring-kafka leaves in a listener method that kafko cannot serve (spring-kafka's or Kafka's
 * parameter types, spring-kafka's header names), refused when the listener is registered, naming kafko's
 * counterpart. On the thread that creates beans.
 */
final class SpringKafkaLeftovers {

    private SpringKafkaLeftovers() {
    }

    /**
     * spring-kafka's names that a migration left in a listener method (an import of its {@code Acknowledgment} or
     * {@code KafkaHeaders}, a {@code ConsumerRecord} parameter) start without a word and then fail every record: kafko
     * passes none of spring-kafka's types, so such a parameter is given the payload, which does not convert to it,
     * and no record carries spring-kafka's {@code kafka_*} received headers, so a required {@code @Header} of one
     * is missing. Both fail as conversion errors, without retries, and the record is skipped (committed) or
     * dead-lettered: every record of the topic. Refused before anything starts instead, naming kafko's
     * counterpart.
     */
    static void refuseSpringKafkaParameters(Method method, String where) {
        Annotation[][] annotations = method.getParameterAnnotations();
        for (int i = 0; i < method.getParameterCount(); i++) {
            Class<?> foreign = springKafkaType(ResolvableType.forMethodParameter(new MethodParameter(method, i)), 0);
            if (foreign != null) {
                throw new InvalidKafkoListenerException("@KafkoListener " + where + ": parameter " + (i + 1)
                        + " is of spring-kafka's (or Kafka's) type " + foreign.getName() + ", which kafko never"
                        + " passes: it would be given the payload, and every record fail to convert to it; "
                        + counterpart(foreign.getName()));
            }
            for (Annotation a : annotations[i]) {
                if (a instanceof Header header) {
                    String name = header.name().isEmpty() ? header.value() : header.name();
                    String kafko = kafkoHeaderFor(name);
                    if (kafko != null) {
                        throw new InvalidKafkoListenerException("@KafkoListener " + where + ": parameter " + (i + 1)
                                + " reads spring-kafka's header '" + name + "', which no record kafko delivers carries"
                                + (kafko.isEmpty() ? " (kafko has no counterpart of it)"
                                        : ": use dev.kafko.spring.support.KafkoHeaders, whose header is '" + kafko + "'"));
                    }
                }
            }
        }
    }

    /** The class of spring-kafka or of Kafka's clients that {@code type} is or holds (a {@code List<ConsumerRecord>}), or null. */
    private static @Nullable Class<?> springKafkaType(ResolvableType type, int depth) {
        Class<?> raw = type.resolve();
        if (raw != null && (raw.getName().startsWith("org.springframework.kafka.")
                || raw.getName().startsWith("org.apache.kafka."))) {
            return raw;
        }
        if (depth < 3) {
            for (ResolvableType generic : type.getGenerics()) {
                Class<?> found = springKafkaType(generic, depth + 1);
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    private static String counterpart(String springKafkaType) {
        return switch (springKafkaType) {
            case "org.springframework.kafka.support.Acknowledgment" -> "use dev.kafko.spring.support.Acknowledgment";
            case "org.apache.kafka.clients.consumer.ConsumerRecord" -> "use dev.kafko.KafkoRecord (the stored bytes), or"
                    + " the payload's own type with @Header(KafkoHeaders.RECEIVED_KEY), ...";
            case "org.apache.kafka.clients.consumer.ConsumerRecords" -> "use List<KafkoRecord> with batch = \"true\"";
            case "org.springframework.kafka.listener.adapter.ConsumerRecordMetadata" -> "use @Header(KafkoHeaders."
                    + "RECEIVED_TOPIC), @Header(KafkoHeaders.RECEIVED_PARTITION), @Header(KafkoHeaders.OFFSET) and"
                    + " @Header(KafkoHeaders.RECEIVED_TIMESTAMP)";
            default -> "use kafko's types (dev.kafko.spring.*; the README's \"What differs from spring-kafka\" names"
                    + " what has no counterpart)";
        };
    }

    /** spring-kafka's headers that name no counterpart in {@link dev.kafko.spring.support.KafkoHeaders}. */
    private static final List<String> SPRING_KAFKA_ONLY_HEADERS = List.of("kafka_timestampType", "kafka_consumer",
            "kafka_recordMetadata", "kafka_nativeHeaders", "kafka_batchConvertedHeaders",
            "kafka_dlt-original-timestamp-type");

    /**
     * For one of spring-kafka's header names ({@code kafka_receivedMessageKey}): kafko's header of the same meaning,
     * {@code ""} when there is none; null for any other name (an application's own headers are left alone).
     */
    static @Nullable String kafkoHeaderFor(String name) {
        if (!name.startsWith("kafka_")) {
            return null;
        }
        if (SPRING_KAFKA_ONLY_HEADERS.contains(name)) {
            return "";
        }
        String kafko = KafkoHeaders.PREFIX + name.substring("kafka_".length());
        for (Field field : KafkoHeaders.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                try {
                    if (kafko.equals(field.get(null)) && !field.getName().equals("PREFIX")) {
                        return kafko;
                    }
                } catch (IllegalAccessException e) {
                    return null;
                }
            }
        }
        return null;
    }
}
