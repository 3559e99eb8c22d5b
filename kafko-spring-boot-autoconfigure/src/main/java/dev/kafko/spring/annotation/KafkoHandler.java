package dev.kafko.spring.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * Marks a method of a class annotated with {@link KafkoListener} as one of the listener's handlers, as
 * spring-kafka's {@code @KafkaHandler}: each record goes to the handler whose payload parameter takes the
 * class its {@link dev.kafko.spring.support.KafkoHeaders#TYPE} header names (the most specific one when
 * several do), a record without that header (a {@code String} or {@code byte[]} sent as it is) to a
 * {@code String} handler, else a {@code byte[]} one, and a tombstone to the handler whose payload is
 * {@code @Payload(required = false)}. A record no handler takes goes to the {@link #isDefault() default}
 * handler (its payload converted as any listener's: an {@code Object} one is the stored {@code byte[]});
 * without one it fails as a conversion error (no retries: dead-letter topic or log).
 *
 * <pre>{@code
 * @Component
 * @KafkoListener(id = "shipping", topics = "order-events")
 * class Shipping {
 *     @KafkoHandler void on(OrderPlaced e) { ... }
 *     @KafkoHandler void on(OrderCancelled e) { ... }
 *     @KafkoHandler(isDefault = true) void other(Object e) { ... }
 * }
 * }</pre>
 *
 * Each handler takes the parameters a {@code @KafkoListener} method takes (one record at a time: a
 * class-level listener cannot be a batch listener), and may have a {@code @SendTo} of its own; a
 * {@code @SendTo} on the class applies to the handlers that have none.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
// ahead-of-time processing registers the method for invocation and its payload and reply types for
// binding, as @MessageMapping does for spring-kafka's annotations: a native image needs both
@Reflective(KafkoListenerReflectiveProcessor.class)
public @interface KafkoHandler {

    /** Whether this handler takes the records no other handler takes. At most one handler of a class is. */
    boolean isDefault() default false;
}
