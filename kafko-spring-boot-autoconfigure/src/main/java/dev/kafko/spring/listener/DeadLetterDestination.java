package dev.kafko.spring.listener;

import java.util.Objects;

/**
 * Where a {@link DeadLetterPublishingRecoverer} with a destination resolver publishes a record: a topic, and a
 * partition of it or none ({@link #ANY_PARTITION}: the record's key chooses, as for any send, or round-robin
 * without a key). spring-kafka's resolver returns a {@code TopicPartition} with a negative partition for the same.
 *
 * @param topic the topic to publish to
 * @param partition the partition, or a negative number for the one the record's key chooses
 */
public record DeadLetterDestination(String topic, int partition) {

    /** The partition of a destination that lets the record's key choose. */
    public static final int ANY_PARTITION = -1;

    /** @throws NullPointerException when {@code topic} is {@code null} */
    public DeadLetterDestination {
        Objects.requireNonNull(topic, "topic");
    }

    /** {@code topic}, on the partition the record's key chooses. */
    public static DeadLetterDestination of(String topic) {
        return new DeadLetterDestination(topic, ANY_PARTITION);
    }

    /** {@code topic}, on {@code partition} (a negative one: the partition the record's key chooses). */
    public static DeadLetterDestination of(String topic, int partition) {
        return new DeadLetterDestination(topic, partition);
    }

    /** Whether the record's key chooses the partition. */
    public boolean anyPartition() {
        return partition < 0;
    }
}
