package dev.kafko.spring.listener;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The topics and back-offs of a {@code @RetryableTopic} listener of one topic: which retry topic each retry is read
 * from and how long it waits there, and the dead-letter topic. Immutable.
 */
public final class RetryTopics {

    /** The longest back-off of a multiplied one whose {@code maxDelay} is 0 (spring-kafka's cap). */
    public static final long DEFAULT_MAX_DELAY = 30_000;

    private final String topic;
    private final int attempts;
    private final long[] delays;
    private final int[] topicOfRetry;
    private final List<String> retryTopics;
    private final String dltTopic;
    private final List<Class<? extends Throwable>> include;
    private final List<Class<? extends Throwable>> exclude;
    private final DltStrategy dltStrategy;
    private final long dltBackOff;
    /** Milliseconds from the original record's timestamp after which no retry is made; 0 for none. */
    private final long timeout;
    /** Whether the retry and dead-letter topics are created (or grown) when missing, or must be declared. */
    private final boolean autoCreateTopics;
    /** The partitions the retry and dead-letter topics are made with; 0 for the listener topic's. */
    private final int numPartitions;

    /** With the dead-letter strategy {@link DltStrategy#FAIL_ON_ERROR}. */
    public RetryTopics(String topic, int attempts, long delay, double multiplier, long maxDelay,
                       String retryTopicSuffix, String dltTopicSuffix, List<Class<? extends Throwable>> include,
                       List<Class<? extends Throwable>> exclude) {
        this(topic, attempts, delay, multiplier, maxDelay, retryTopicSuffix, dltTopicSuffix, include, exclude,
                DltStrategy.FAIL_ON_ERROR);
    }

    /**
     * @param topic the listener's topic
     * @param attempts attempts in all, the first delivery included; at least 1 (1: failures go to the dead-letter
     *     topic at once)
     * @param delay milliseconds before the first retry, not negative
     * @param multiplier 0 or 1 for the same back-off before each retry, else above 1
     * @param maxDelay the longest back-off when multiplied, 0 for {@value #DEFAULT_MAX_DELAY}
     * @param include only failures with one of these in their cause chain are retried (empty: the ones
     *     {@link DefaultErrorHandler#isRetryable} retries)
     * @param exclude failures with one of these in their cause chain are not retried
     * @param dltStrategy whether there is a dead-letter topic, and what becomes of a dead letter its handler fails on
     * @throws IllegalArgumentException naming the setting that cannot work
     */
    public RetryTopics(String topic, int attempts, long delay, double multiplier, long maxDelay,
                       String retryTopicSuffix, String dltTopicSuffix, List<Class<? extends Throwable>> include,
                       List<Class<? extends Throwable>> exclude, DltStrategy dltStrategy) {
        this.topic = Objects.requireNonNull(topic, "topic");
        this.dltStrategy = Objects.requireNonNull(dltStrategy, "dltStrategy");
        Objects.requireNonNull(retryTopicSuffix, "retryTopicSuffix");
        Objects.requireNonNull(dltTopicSuffix, "dltTopicSuffix");
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be at least 1, was " + attempts);
        }
        if (delay < 0) {
            throw new IllegalArgumentException("the back-off's delay must not be negative, was " + delay);
        }
        if (!(multiplier == 0 || multiplier >= 1) || Double.isNaN(multiplier) || Double.isInfinite(multiplier)) {
            throw new IllegalArgumentException("the back-off's multiplier must be 0, 1 or above, was " + multiplier);
        }
        if (maxDelay < 0) {
            throw new IllegalArgumentException("the back-off's maxDelay must not be negative, was " + maxDelay);
        }
        if (retryTopicSuffix.isEmpty() || dltTopicSuffix.isEmpty() || retryTopicSuffix.equals(dltTopicSuffix)) {
            throw new IllegalArgumentException("the retry and dead-letter topic suffixes must be two different,"
                    + " non-empty suffixes, were '" + retryTopicSuffix + "' and '" + dltTopicSuffix + "'");
        }
        this.attempts = attempts;
        long cap = maxDelay == 0 ? Math.max(DEFAULT_MAX_DELAY, delay) : Math.max(maxDelay, delay);
        delays = new long[attempts - 1];
        double next = delay;
        for (int i = 0; i < delays.length; i++) {
            delays[i] = (long) Math.min(next, cap);
            next = multiplier > 1 ? next * multiplier : next;
        }
        // one topic per distinct back-off, in order (a multiplied back-off only grows, up to its cap)
        List<Long> distinct = new ArrayList<>();
        topicOfRetry = new int[delays.length];
        for (int i = 0; i < delays.length; i++) {
            if (distinct.isEmpty() || distinct.get(distinct.size() - 1) != delays[i]) {
                distinct.add(delays[i]);
            }
            topicOfRetry[i] = distinct.size() - 1;
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i < distinct.size(); i++) {
            names.add(distinct.size() == 1 ? topic + retryTopicSuffix : topic + retryTopicSuffix + "-" + i);
        }
        retryTopics = List.copyOf(names);
        dltTopic = topic + dltTopicSuffix;
        this.include = List.copyOf(include);
        this.exclude = List.copyOf(exclude);
        dltBackOff = delays.length == 0 ? delay : delays[delays.length - 1];
        timeout = 0;
        autoCreateTopics = true;
        numPartitions = 0;
    }

    private RetryTopics(RetryTopics plan, long timeout, boolean autoCreateTopics, int numPartitions) {
        topic = plan.topic;
        attempts = plan.attempts;
        delays = plan.delays;
        topicOfRetry = plan.topicOfRetry;
        retryTopics = plan.retryTopics;
        dltTopic = plan.dltTopic;
        include = plan.include;
        exclude = plan.exclude;
        dltStrategy = plan.dltStrategy;
        dltBackOff = plan.dltBackOff;
        this.timeout = timeout;
        this.autoCreateTopics = autoCreateTopics;
        this.numPartitions = numPartitions;
    }

    /**
     * This plan, giving up retrying once {@code timeoutMillis} have passed since the original record's timestamp
     * (spring-kafka's {@code timeout}): a delivery that fails after that goes to the dead-letter topic (or is logged
     * and skipped, under {@link DltStrategy#NO_DLT}) whatever attempts are left. 0 for no such limit.
     *
     * @throws IllegalArgumentException when {@code timeoutMillis} is negative
     */
    public RetryTopics withTimeout(long timeoutMillis) {
        if (timeoutMillis < 0) {
            throw new IllegalArgumentException("the timeout must not be negative, was " + timeoutMillis);
        }
        return new RetryTopics(this, timeoutMillis, autoCreateTopics, numPartitions);
    }

    /**
     * This plan, with its retry and dead-letter topics created (or grown) when missing ({@code autoCreateTopics}, as
     * far as the application lets topics be created) or required to exist, and made with {@code numPartitions}
     * partitions (0 for the listener topic's count). A record of a partition such a topic lacks goes to the partition
     * its key chooses.
     *
     * @throws IllegalArgumentException when {@code numPartitions} is negative
     */
    public RetryTopics withTopicCreation(boolean autoCreateTopics, int numPartitions) {
        if (numPartitions < 0) {
            throw new IllegalArgumentException("numPartitions must not be negative, was " + numPartitions);
        }
        return new RetryTopics(this, timeout, autoCreateTopics, numPartitions);
    }

    /** Whether the retry and dead-letter topics are created (or grown) when missing, or must be declared. */
    public boolean autoCreateTopics() {
        return autoCreateTopics;
    }

    /** The partitions the retry and dead-letter topics are made with; 0 for the listener topic's count. */
    public int numPartitions() {
        return numPartitions;
    }

    /** Milliseconds from the original record's timestamp after which no retry is made; 0 for none. */
    public long timeout() {
        return timeout;
    }

    /**
     * Whether a delivery of a record first written at {@code originalTimestamp} that fails at {@code nowMillis} is
     * past the {@link #timeout()}, and so not retried.
     */
    public boolean pastTimeout(long originalTimestamp, long nowMillis) {
        return timeout > 0 && nowMillis - originalTimestamp >= timeout;
    }

    /** The listener's topic. */
    public String topic() {
        return topic;
    }

    /** Attempts in all, the first delivery included. */
    public int attempts() {
        return attempts;
    }

    /** The retry topics, in the order of the retries that read them; empty with one attempt. */
    public List<String> retryTopics() {
        return retryTopics;
    }

    /** The dead-letter topic's name; it exists only where {@link #dltStrategy()} is not {@code NO_DLT}. */
    public String dltTopic() {
        return dltTopic;
    }

    /** Whether there is a dead-letter topic, and what becomes of a dead letter its handler fails on. */
    public DltStrategy dltStrategy() {
        return dltStrategy;
    }

    /** Whether records go to {@link #dltTopic()} after their last attempt (not {@link DltStrategy#NO_DLT}). */
    public boolean hasDltTopic() {
        return dltStrategy != DltStrategy.NO_DLT;
    }

    /**
     * Milliseconds a dead letter its handler failed on waits before it is handled again, under
     * {@link DltStrategy#ALWAYS_RETRY_ON_ERROR}: the last retry's back-off (the first's with one attempt).
     */
    public long dltBackOff() {
        return dltBackOff;
    }

    /** The topic the {@code attempt}-th delivery (2 for the first retry, up to {@link #attempts()}) is read from. */
    public String topicOfAttempt(int attempt) {
        return retryTopics.get(topicOfRetry[retryIndex(attempt)]);
    }

    /** Milliseconds the {@code attempt}-th delivery (2 for the first retry, ...) waits in its retry topic. */
    public long backOffBefore(int attempt) {
        return delays[retryIndex(attempt)];
    }

    private int retryIndex(int attempt) {
        if (attempt < 2 || attempt > attempts) {
            throw new IllegalArgumentException("attempt " + attempt + " is no retry of " + attempts + " attempts");
        }
        return attempt - 2;
    }

    /** Whether a delivery that failed with {@code failure} is retried (given attempts left). */
    public boolean retryable(Throwable failure) {
        if (anyInChain(failure, exclude)) {
            return false;
        }
        return include.isEmpty() ? DefaultErrorHandler.isRetryable(failure) : anyInChain(failure, include);
    }

    private static boolean anyInChain(Throwable failure, List<Class<? extends Throwable>> types) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < 100; t = t.getCause(), depth++) {
            for (Class<? extends Throwable> type : types) {
                if (type.isInstance(t)) {
                    return true;
                }
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }
}
