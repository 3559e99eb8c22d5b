package dev.kafko.spring.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The back-off of a {@link RetryableTopic}: {@code delay} before the first retry, multiplied by {@code multiplier}
 * before each later one (when above 1), up to {@code maxDelay}.
 */
@Target({})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface BackOff {

    /** Milliseconds before the first retry; not negative. */
    long delay() default 1000;

    /**
     * {@link #delay()} as text, which takes {@code ${...}} placeholders and {@code #{...}} SpEL (short back-offs in
     * tests) and durations ({@code 500ms}, {@code 5s}, {@code PT1M}; a bare number is milliseconds); when set, it
     * wins.
     */
    String delayString() default "";

    /** What each later back-off is the one before times; 0 or 1 for a fixed back-off, else above 1. */
    double multiplier() default 0;

    /** {@link #multiplier()} as text, which takes placeholders and SpEL; when set, it wins. */
    String multiplierString() default "";

    /** The longest back-off in milliseconds, when multiplied; 0 for 30 seconds (spring-kafka's cap). */
    long maxDelay() default 0;

    /** {@link #maxDelay()} as text, as {@link #delayString()}; when set, it wins. */
    String maxDelayString() default "";
}
