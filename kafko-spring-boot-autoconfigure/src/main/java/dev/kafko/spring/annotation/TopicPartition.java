package dev.kafko.spring.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * One topic's partitions for {@link KafkoListener#topicPartitions()}: the listener reads exactly these, assigned
 * by hand (Kafka's {@code assign}), as spring-kafka's {@code @TopicPartition}. Placeholders and SpEL resolve in
 * every attribute.
 *
 * <pre>{@code
 * @KafkoListener(id = "audit", topicPartitions = @TopicPartition(topic = "orders", partitions = {"0", "2-4"},
 *         partitionOffsets = @PartitionOffset(partition = "1", initialOffset = "0")))
 * }</pre>
 */
@Target({})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface TopicPartition {

    /** The topic. */
    String topic();

    /**
     * The partitions read from where the listener's group committed (else where a group without a commit starts).
     * Each value is a partition, or a comma-separated list of partitions and ranges ({@code "0-5, 7, 10-15"});
     * SpEL may also resolve to integers, or an array or collection of them. A partition may not also be in
     * {@link #partitionOffsets()}.
     */
    String[] partitions() default {};

    /**
     * The partitions read from an initial offset, sought each time a member of the listener starts. One whose
     * {@link PartitionOffset#partition()} is {@code "*"} applies its offset to every partition of
     * {@link #partitions()}, and must then be the only one.
     */
    PartitionOffset[] partitionOffsets() default {};
}
