package dev.kafko.spring.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.core.annotation.AliasFor;

/**
 * The back-off of a {@link RetryableTopic}: {@code delay} before the first retry, multiplied by {@code multiplier}
 * before each later one (when above 1, truncated to a millisecond at each step), none above {@code maxDelay} (without
 * one, a multiplied back-off grows without bound); as spring-kafka 4.0's {@code @BackOff}, but for the names of the
 * retry topics under a {@code jitter}: those of the back-offs without it here, those of the waits drawn once at start
 * there (so that they change at each start).
 */
@Target({})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface BackOff {

    /** Alias for {@link #delay()}: {@code @BackOff(2000)}, a fixed back-off of 2 s. */
    @AliasFor("delay")
    long value() default 1000;

    /** Milliseconds before the first retry; not negative. */
    @AliasFor("value")
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

    /**
     * The longest back-off in milliseconds, the first included (a longer {@link #delay()} waits this long, as in
     * spring-kafka); 0 for none, as in spring-kafka 4.0 (spring-kafka 3 capped a multiplied one at 30 s).
     */
    long maxDelay() default 0;

    /** {@link #maxDelay()} as text, as {@link #delayString()}; when set, it wins. */
    String maxDelayString() default "";

    /**
     * Milliseconds of jitter, 0 for none: each retry waits a time drawn anew for each record, as spring-core's
     * {@code ExponentialBackOff} draws it, between its back-off and its back-off plus this jitter times the back-off's
     * multiple of the {@link #delay()} (less that jitter, for a multiplied back-off past its first), never below the
     * delay nor above {@link #maxDelay()}, where there is one; the retry topics keep the names of the back-offs
     * without jitter. Not negative, and only with a delay above 0.
     */
    long jitter() default 0;

    /** {@link #jitter()} as text, as {@link #delayString()}; when set, it wins. */
    String jitterString() default "";
}
