package dev.kafko.spring.support;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.ResolvableType;
import org.springframework.messaging.Message;
import org.springframework.messaging.converter.JacksonJsonMessageConverter;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.util.ClassUtils;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TreeNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Spring's Jackson 3 converter that honours the {@link KafkoHeaders#TYPE} header: when a record
 * names a class that is a subtype of the listener's parameter type, the JSON is read as that class.
 * Loaded only when Jackson is on the classpath. Thread-safe like the {@link JsonMapper} it wraps.
 *
 * <p>Only classes assignable to the declared parameter type are ever instantiated, and for a JDK type
 * ({@code Map}, {@code Runnable}, {@code Number}), which any class on the class path may implement, only
 * classes of {@code java.lang}, {@code java.util}, {@code java.math} and {@code java.time} (a
 * {@code BigDecimal} for a {@code Number}); a header naming another class is not followed there, and the
 * JSON is read as the declared type. So a record cannot make the listener build an arbitrary class. A
 * record whose header names a class that is not a subtype is read as the declared type, with a warning
 * once per pair of classes (other events on the same topic would otherwise lose their fields silently;
 * none for a value without fields, such as an {@code Integer} read as an {@code int} or a {@code Long}, nor for a
 * {@code Map} or a {@code JsonNode} declared, which keep every field),
 * and so is one whose header names a class no longer on the class path with another simple name (one of
 * the same name was moved: nothing to say); one whose header names a class that is not on the class path,
 * and that the declared type cannot read, fails with a conversion error that names it. A class named
 * there that has type parameters of its own ({@code java.util.ArrayList} for a {@code List<Order>} that was sent)
 * is not used: it
 * would lose the element types the declaration gives, so the declaration wins.
 */
public final class TypeAwareJsonMessageConverter extends JacksonJsonMessageConverter {

    private static final Logger LOG = LoggerFactory.getLogger(TypeAwareJsonMessageConverter.class);

    /** The packages whose classes a header may name where a JDK type is declared. */
    private static final Set<String> VALUE_PACKAGES = Set.of("java.lang", "java.util", "java.math", "java.time");

    private final @Nullable ClassLoader classLoader;
    /** The pairs of classes {@link #warnOnce} spoke of. */
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    public TypeAwareJsonMessageConverter(JsonMapper mapper, @Nullable ClassLoader classLoader) {
        super(mapper);
        this.classLoader = classLoader;
    }

    @Override
    protected @Nullable Object convertFromInternal(Message<?> message, Class<?> targetClass,
                                                   @Nullable Object conversionHint) {
        String name = typeName(message);
        if (name == null && conversionHint instanceof ResolvableType declared
                && message.getPayload() instanceof byte[] json) {
            return readAs(message, json, declared);
        }
        if (name == null || name.equals(targetClass.getName())) {
            return super.convertFromInternal(message, targetClass, conversionHint);
        }
        Class<?> named = load(name);
        if (named != null && targetClass.isAssignableFrom(named) && named.getTypeParameters().length == 0
                && (!isPlatformType(targetClass) || isPlatformValue(named))) {
            return super.convertFromInternal(message, named, null);
        }
        if (named != null && !targetClass.isAssignableFrom(named) && !Map.class.isAssignableFrom(named)
                && !Collection.class.isAssignableFrom(named) && !ClassUtils.isSimpleValueType(named)
                && !keepsEveryField(targetClass)) {
            // a Map or a List sent to be read as an object of the application's is a common way; a value with
            // no fields (an Integer read as an int or a Long, an enum as another of the same names) drops none
            warnOnce(name, "", targetClass);
        }
        try {
            Object read = super.convertFromInternal(message, targetClass, conversionHint);
            if (named == null && read != null && read.getClass() == targetClass
                    && !name.substring(name.lastIndexOf('.') + 1).equals(targetClass.getSimpleName())) {
                // a class of the same simple name was moved, and is read as it was; another one was not
                warnOnce(name, " (no longer on the class path)", targetClass);
            }
            return read;
        } catch (MessageConversionException e) {
            if (named == null) {
                throw new MessageConversionException(message, "cannot read the record as " + targetClass.getName()
                        + "; its " + KafkoHeaders.TYPE + " header names " + name + ", which is not on the class"
                        + " path (renamed or moved since the record was written?): " + e.getMessage(), e);
            }
            throw e;
        }
    }

    /**
     * The JSON read as the generic type a hint gives where no {@code MethodParameter} describes it (Spring's own
     * hint): the {@code List<Order>} of an {@code Optional<List<Order>>} header parameter, say.
     */
    private Object readAs(Message<?> message, byte[] json, ResolvableType declared) {
        try {
            return getJsonMapper().readValue(json, getJsonMapper().constructType(declared.getType()));
        } catch (JacksonException e) {
            throw new MessageConversionException(message, "Could not read JSON as " + declared + ": "
                    + e.getOriginalMessage(), e);
        }
    }

    /**
     * Whether {@code type} is one of the JDK's (a {@code Map}, a {@code Runnable}, a {@code Comparable}):
     * any class on the class path may implement it, so a header naming a subtype of it is followed only
     * to a class of {@link #VALUE_PACKAGES} (a {@code BigDecimal} for a {@code Number}), as spring-kafka
     * trusts {@code java.lang} and {@code java.util} by default.
     */
    private static boolean isPlatformType(Class<?> type) {
        String name = type.getName();
        return name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jdk.")
                || name.startsWith("sun.") || name.startsWith("com.sun.");
    }

    /** Whether {@code type} is a class of the JDK's value packages, which the header may name for a JDK type. */
    private static boolean isPlatformValue(Class<?> type) {
        return VALUE_PACKAGES.contains(type.getPackageName());
    }

    /**
     * Whether {@code type} holds every field of any JSON object: a {@code Map} or a Jackson tree ({@code JsonNode}),
     * which a listener of several event types declares to read each one's fields itself. Nothing is dropped there.
     */
    private static boolean keepsEveryField(Class<?> type) {
        return Map.class.isAssignableFrom(type) || TreeNode.class.isAssignableFrom(type);
    }

    private static @Nullable String typeName(Message<?> message) {
        Object header = message.getHeaders().get(KafkoHeaders.TYPE);
        return header instanceof byte[] b ? new String(b, StandardCharsets.UTF_8)
                : header instanceof String s ? s : null;
    }

    /** The class named, without initializing it; null when there is none of that name. */
    private @Nullable Class<?> load(String name) {
        try {
            return ClassUtils.forName(name, classLoader);
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }

    /**
     * A record written from another class than the parameter's, and not a subtype of it: it is read as
     * the parameter's class, which is right for two classes of one shape (a DTO of each side) and wrong
     * for another event on the same topic (its fields missing, silently). Said once per pair of classes.
     */
    private void warnOnce(String named, String note, Class<?> target) {
        if (!warned.add(named + " " + target.getName())) {
            return;
        }
        LOG.warn("Records written as {}{} are read as {} (the listener's parameter type), which that class is not"
                + " a subtype of: fields {} does not have are dropped. If the topic carries several event types,"
                + " declare their common supertype (a sealed interface) to get each as its own class", named, note,
                target.getName(), target.getSimpleName());
    }
}
