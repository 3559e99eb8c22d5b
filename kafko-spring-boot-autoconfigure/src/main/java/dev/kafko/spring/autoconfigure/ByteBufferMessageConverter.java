package dev.kafko.spring.autoconfigure;

import dev.kafko.spring.support.KafkoHeaders;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.MessageConverter;

/**
 * Reads a record's bytes (a value, or a key or header the header conversion reads as a payload) into a
 * {@link ByteBuffer}, as Kafka's {@code ByteBufferDeserializer} does: a buffer that wraps them, position 0, limit
 * their length. It stands beside the {@code byte[]} converter among the record converters, so that a
 * {@code ByteBuffer} parameter, batch element, {@code Message<ByteBuffer>} payload or reply reads the raw bytes
 * rather than JSON. A record whose {@link KafkoHeaders#TYPE} header names a {@code ByteBuffer} class is left to the
 * JSON converter: kafko wrote a {@code ByteBuffer} that way (a base64 JSON string) before it wrote its bytes, and a
 * log on disk still holds such records. Writes nothing: the template writes a {@code ByteBuffer} as its bytes
 * before any converter ({@link dev.kafko.spring.support.RecordMessageConverter}). Stateless; any thread may call it.
 */
final class ByteBufferMessageConverter implements MessageConverter {

    @Override
    public @Nullable Object fromMessage(Message<?> message, Class<?> targetClass) {
        return targetClass == ByteBuffer.class && message.getPayload() instanceof byte[] bytes
                && !namesAByteBuffer(message.getHeaders().get(KafkoHeaders.TYPE)) ? ByteBuffer.wrap(bytes) : null;
    }

    @Override
    public @Nullable Message<?> toMessage(Object payload, @Nullable MessageHeaders headers) {
        return null;
    }

    /** Whether a type header names one of the JDK's {@code ByteBuffer} classes ({@code java.nio.HeapByteBuffer}). */
    private static boolean namesAByteBuffer(@Nullable Object typeHeader) {
        String name = typeHeader instanceof byte[] b ? new String(b, StandardCharsets.UTF_8)
                : typeHeader instanceof String s ? s : null;
        if (name == null || !name.startsWith("java.nio.")) {
            return false;
        }
        try {
            return ByteBuffer.class.isAssignableFrom(Class.forName(name, false, null));
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
