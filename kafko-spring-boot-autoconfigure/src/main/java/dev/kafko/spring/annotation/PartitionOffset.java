package dev.kafko.spring.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A partition of a {@link TopicPartition} with the offset the listener starts it at, sought each time one of its
 * members starts (also after a stop and start, or a restart of the application), as spring-kafka's
 * {@code @PartitionOffset}. Placeholders and SpEL resolve in every attribute.
 */
@Target({})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface PartitionOffset {

    /**
     * The partition, a comma-separated list of partitions and ranges ({@code "0-5, 7"}) that all start at
     * {@link #initialOffset()}, or {@code "*"}: every partition of the enclosing
     * {@link TopicPartition#partitions()}.
     */
    String partition();

    /**
     * The offset to start at. Without {@link #relativeToCurrent()}, a positive one (or 0) is absolute and a
     * negative one counts back from the partition's end ({@code "-1"}: the last record); with it, the offset is
     * added to the position the member starts at (the group's commit). A position below the log start (0, or the
     * first offset retention kept) starts at the log start, and one past the end at the end, whatever the offset
     * reset policy.
     */
    String initialOffset();

    /** {@code "true"} to count {@link #initialOffset()} from the group's position rather than the start or end. */
    String relativeToCurrent() default "false";
}
