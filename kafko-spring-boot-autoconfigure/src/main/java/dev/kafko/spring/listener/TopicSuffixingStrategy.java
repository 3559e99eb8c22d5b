package dev.kafko.spring.listener;

/**
 * What follows the retry suffix in the names of a {@code @RetryableTopic} listener's retry topics (spring-kafka's
 * names). Under {@link SameIntervalTopicReuseStrategy#SINGLE_TOPIC}, a listener with a single retry topic names it
 * with the suffix alone ({@code orders-retry}).
 */
public enum TopicSuffixingStrategy {

    /**
     * The topic's back-off in milliseconds: {@code orders-retry-1000}, {@code orders-retry-2000}, ...; where several
     * topics have one back-off ({@link SameIntervalTopicReuseStrategy#MULTIPLE_TOPICS}), their index among those
     * follows: {@code orders-retry-2000-0}, {@code orders-retry-2000-1}. A fixed back-off over several topics is
     * numbered as under {@link #SUFFIX_WITH_INDEX_VALUE}. The default, as in spring-kafka.
     */
    SUFFIX_WITH_DELAY_VALUE,

    /** The topic's index, from 0: {@code orders-retry-0}, {@code orders-retry-1}, ... */
    SUFFIX_WITH_INDEX_VALUE
}
