package dev.kafko.spring.support;

import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;
import org.springframework.messaging.converter.JacksonJsonMessageConverter;
import org.springframework.util.ClassUtils;
import tools.jackson.databind.json.JsonMapper;

/**
 * Spring's Jackson 3 converter that honours the {@link KafkoHeaders#TYPE} header: when a record
 * names a class that is a subtype of the listener's parameter type, the JSON is read as that class.
 * Loaded only when Jackson is on the classpath. Thread-safe like the {@link JsonMapper} it wraps.
 *
 * <p>Only classes assignable to the declared parameter type are ever instantiated, so a record
 * cannot make the listener build an arbitrary class. A class named there that has type parameters
 * of its own ({@code java.util.ArrayList} for a {@code List<Order>} that was sent) is not used: it
 * would lose the element types the declaration gives, so the declaration wins.
 */
public final class TypeAwareJsonMessageConverter extends JacksonJsonMessageConverter {

    private final @Nullable ClassLoader classLoader;

    public TypeAwareJsonMessageConverter(JsonMapper mapper, @Nullable ClassLoader classLoader) {
        super(mapper);
        this.classLoader = classLoader;
    }

    @Override
    protected @Nullable Object convertFromInternal(Message<?> message, Class<?> targetClass,
                                                   @Nullable Object conversionHint) {
        Class<?> typed = typeFromHeader(message, targetClass);
        if (typed != null) {
            return super.convertFromInternal(message, typed, null);
        }
        return super.convertFromInternal(message, targetClass, conversionHint);
    }

    private @Nullable Class<?> typeFromHeader(Message<?> message, Class<?> targetClass) {
        Object header = message.getHeaders().get(KafkoHeaders.TYPE);
        String name = header instanceof byte[] b ? new String(b, StandardCharsets.UTF_8)
                : header instanceof String s ? s : null;
        if (name == null || name.equals(targetClass.getName())) {
            return null;
        }
        try {
            Class<?> type = ClassUtils.forName(name, classLoader);
            return targetClass.isAssignableFrom(type) && type.getTypeParameters().length == 0 ? type : null;
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }
}
