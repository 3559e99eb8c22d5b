package dev.kafko.spring.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * Marks the method of a bean with a {@link RetryableTopic} listener that takes the records of its dead-letter
 * topic; its parameters are resolved as a {@link KafkoListener} method's (the payload, {@code @Header}s such as
 * {@code KafkoHeaders.DLT_ORIGINAL_TOPIC} and {@code DLT_EXCEPTION_MESSAGE}, a {@code KafkoRecord}). One per bean;
 * a failure in it is logged and the record skipped. Under a manual ack mode, one without an {@code Acknowledgment}
 * has its records committed as it returns (ack mode {@code RECORD}). It is called through the bean's proxy, as the
 * listener method is: through a JDK proxy's interface, and not private on a class proxy.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective(KafkoListenerReflectiveProcessor.class)
public @interface DltHandler {
}
