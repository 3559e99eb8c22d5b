package dev.kafko.spring.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A dead-letter topic of its own for the failures of some types, in {@link RetryableTopic#exceptionBasedDltRouting()}
 * (spring-kafka's {@code @ExceptionBasedDltDestination}): a record whose last failure is of one of {@link #exceptions()}
 * (or has one in its cause chain) goes to {@code <topic><suffix><dltTopicSuffix>} ({@code orders-validation-dlt} for
 * the suffix {@code -validation}) instead of the listener's dead-letter topic, and its {@link DltHandler} (or the
 * logger) takes it there too.
 */
@Target({})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface ExceptionBasedDltDestination {

    /** What comes between the listener's topic and the dead-letter suffix in this topic's name; not empty. */
    String suffix();

    /**
     * The failures routed here: a failure of one of these types (or a subtype), or with one in its cause chain
     * (whatever {@link RetryableTopic#traversingCauses()} says, as in spring-kafka); at least one.
     */
    Class<? extends Throwable>[] exceptions();
}
