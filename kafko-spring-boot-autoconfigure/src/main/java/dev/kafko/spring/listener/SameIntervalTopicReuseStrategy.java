package dev.kafko.spring.listener;

/**
 * Whether the retries of a {@code @RetryableTopic} listener that wait the same back-off share one retry topic
 * (spring-kafka's names). Such retries are those of a fixed back-off, and the last ones of a multiplied back-off
 * once it reached its {@code maxDelay}.
 */
public enum SameIntervalTopicReuseStrategy {

    /**
     * A retry topic of its own for each retry: {@code attempts - 1} retry topics. The default of
     * {@code RetryTopicConfigurationBuilder}, as in spring-kafka's builder.
     */
    MULTIPLE_TOPICS,

    /**
     * One retry topic per distinct back-off, read again by each retry that waits that long: a fixed back-off has one
     * retry topic, {@code orders-retry}. The default, as in spring-kafka's {@code @RetryableTopic}.
     */
    SINGLE_TOPIC
}
