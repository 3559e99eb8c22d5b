package dev.kafko.spring.autoconfigure;

import dev.kafko.spring.support.KafkoHeaders;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.converter.MessageConverter;

/**
 * The last of the record converters of an application without Jackson: a record the byte and text converters cannot
 * read fails here naming what is missing, rather than with spring-messaging's "Cannot convert from [[B]", which does
 * not say that objects are read as JSON. Writes nothing: the template's own refusal already names Jackson.
 */
final class WithoutJsonConverter implements MessageConverter {

    @Override
    public @Nullable Object fromMessage(Message<?> message, Class<?> targetClass) {
        MessageHeaders headers = message.getHeaders();
        String record = headers.containsKey(KafkoHeaders.RECEIVED_TOPIC)
                ? "The record at " + headers.get(KafkoHeaders.RECEIVED_TOPIC) + "-"
                        + headers.get(KafkoHeaders.RECEIVED_PARTITION) + "@" + headers.get(KafkoHeaders.OFFSET)
                : "A record";
        throw new MessageConversionException(message, record + " cannot be read into a " + targetClass.getName()
                + ": objects are read as JSON, with Jackson 3 (tools.jackson.core:jackson-databind) on the class path,"
                + " and it is not");
    }

    @Override
    public @Nullable Message<?> toMessage(Object payload, @Nullable MessageHeaders headers) {
        return null;
    }
}
