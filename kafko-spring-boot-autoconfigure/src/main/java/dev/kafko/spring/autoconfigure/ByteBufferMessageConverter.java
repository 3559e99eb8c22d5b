package dev.kafko.spring.autoconfigure;

import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.MessageConverter;

/**
 * Reads a record's bytes (a value, or a key or header the header conversion reads as a payload) into a
 * {@link ByteBuffer}, as Kafka's {@code ByteBufferDeserializer} does: a buffer that wraps them, position 0, limit
 * their length. It stands beside the {@code byte[]} converter among the record converters, so that a
 * {@code ByteBuffer} parameter, batch element, {@code Message<ByteBuffer>} payload or reply reads the raw bytes
 * rather than JSON. Writes nothing: the template writes a {@code ByteBuffer} as its bytes before any converter
 * ({@link dev.kafko.spring.support.RecordMessageConverter}). Stateless; any thread may call it.
 */
final class ByteBufferMessageConverter implements MessageConverter {

    @Override
    public @Nullable Object fromMessage(Message<?> message, Class<?> targetClass) {
        return targetClass == ByteBuffer.class && message.getPayload() instanceof byte[] bytes
                ? ByteBuffer.wrap(bytes) : null;
    }

    @Override
    public @Nullable Message<?> toMessage(Object payload, @Nullable MessageHeaders headers) {
        return null;
    }
}
