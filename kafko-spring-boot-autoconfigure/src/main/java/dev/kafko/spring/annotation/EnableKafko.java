package dev.kafko.spring.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Import;

/**
 * Turns on {@link KafkoListener} processing: registers the annotation bean post-processor and the
 * endpoint registry. Spring Boot's auto-configuration applies it already; plain Spring
 * applications put it on a configuration class and define a
 * {@link dev.kafko.spring.config.KafkoListenerContainerFactory} bean.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(KafkoBootstrapConfiguration.class)
public @interface EnableKafko {
}
