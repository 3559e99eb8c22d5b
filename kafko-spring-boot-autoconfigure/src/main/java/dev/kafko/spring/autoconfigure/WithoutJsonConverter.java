package dev.kafko.spring.autoconfigure;

import dev.kafko.spring.support.KafkoHeaders;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.converter.MessageConverter;

/**
 * The last of the record converters of an application without Jackson: a record (or a header's or key's bytes, which
 * the header conversion reads through these converters) the byte and text converters cannot read fails here naming
 * what is missing, rather than with spring-messaging's "Cannot convert from [[B]", which does
 * not say that objects are read as JSON. Writes nothing: the template's own refusal already names Jackson.
 */
final class WithoutJsonConverter implements MessageConverter {

    @Override
    public @Nullable Object fromMessage(Message<?> message, Class<?> targetClass) {
        MessageHeaders headers = message.getHeaders();
        // a message without the record's coordinates is a payload-only message, or a header's or key's bytes that
        // the header conversion reads as a payload would be: "a record" would blame a value that may read well
        String what;
        if (headers.containsKey(KafkoHeaders.RECEIVED_TOPIC)) {
            what = "The record at " + headers.get(KafkoHeaders.RECEIVED_TOPIC) + "-"
                    + headers.get(KafkoHeaders.RECEIVED_PARTITION) + "@" + headers.get(KafkoHeaders.OFFSET);
        } else if (message.getPayload() instanceof byte[] bytes) {
            what = bytes.length + " bytes (a record's value, key or header)";
        } else {
            what = "A value";
        }
        throw new MessageConversionException(message, what + " cannot be read into a " + targetClass.getName()
                + ": objects are read as JSON, with Jackson 3 (tools.jackson.core:jackson-databind) on the class path,"
                + " and it is not");
    }

    @Override
    public @Nullable Message<?> toMessage(Object payload, @Nullable MessageHeaders headers) {
        return null;
    }
}
