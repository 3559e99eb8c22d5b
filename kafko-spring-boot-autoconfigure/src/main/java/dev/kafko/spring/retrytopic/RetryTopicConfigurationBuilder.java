package dev.kafko.spring.retrytopic;

import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.listener.DltStrategy;
import dev.kafko.spring.listener.SameIntervalTopicReuseStrategy;
import dev.kafko.spring.listener.TopicSuffixingStrategy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.util.backoff.BackOff;

/**
 * Builds a {@link RetryTopicConfiguration} (spring-kafka's builder of that name, with the same method names where
 * kafko has the setting). The defaults are {@code @RetryableTopic}'s: 3 attempts, a fixed back-off of 1 s, suffixes
 * {@code -retry} and {@code -dlt}, retry topics named by their back-off
 * ({@link TopicSuffixingStrategy#SUFFIX_WITH_DELAY_VALUE}) and one per retry
 * ({@link SameIntervalTopicReuseStrategy#MULTIPLE_TOPICS}: those of a fixed back-off numbered {@code -retry-0},
 * {@code -retry-1}, ...), as spring-kafka's builder has them (its {@code @RetryableTopic}, and kafko's, share the
 * retries of one back-off: {@link #useSingleTopicForSameIntervals()}), {@link DltStrategy#FAIL_ON_ERROR}, topics
 * created when missing with the listener topic's partition count, every topic.
 *
 * <pre>{@code
 * @Bean
 * RetryTopicConfiguration paymentRetries() {
 *     return RetryTopicConfigurationBuilder.newInstance()
 *             .exponentialBackoff(1_000, 2, 10_000)
 *             .maxAttempts(4)
 *             .notRetryOn(InvalidPayment.class)
 *             .includeTopics(List.of("payments", "refunds"))
 *             .dltHandlerMethod("paymentDeadLetters", "handle")
 *             .create();
 * }
 * }</pre>
 *
 * Not thread-safe; every setting is checked by {@link #create()}, which throws {@link IllegalArgumentException} naming
 * the one that cannot work.
 */
public final class RetryTopicConfigurationBuilder {

    int attempts = 3;
    long delay = 1_000;
    double multiplier = 0;
    long maxDelay = 0;
    long jitter;
    /** Whether each wait is drawn from {@link #randomMin} to below {@link #randomMax} ({@code uniformRandomBackoff}). */
    boolean random;
    long randomMin;
    long randomMax;
    /** A back-off of the application's own ({@code customBackoff}), in place of the settings above; null for none. */
    @Nullable BackOff customBackOff;
    final List<Class<? extends Throwable>> include = new ArrayList<>();
    final List<Class<? extends Throwable>> exclude = new ArrayList<>();
    boolean traversingCauses;
    final List<String> includeTopics = new ArrayList<>();
    final List<String> excludeTopics = new ArrayList<>();
    String retryTopicSuffix = "-retry";
    String dltSuffix = "-dlt";
    TopicSuffixingStrategy topicSuffixingStrategy = TopicSuffixingStrategy.SUFFIX_WITH_DELAY_VALUE;
    SameIntervalTopicReuseStrategy sameIntervalTopicReuseStrategy = SameIntervalTopicReuseStrategy.MULTIPLE_TOPICS;
    DltStrategy dltStrategy = DltStrategy.FAIL_ON_ERROR;
    long timeout;
    boolean autoCreateTopics = true;
    int numPartitions;
    @Nullable Short replicationFactor;
    @Nullable Integer concurrency;
    @Nullable Boolean autoStartDltHandler;
    @Nullable String dltHandlerBeanName;
    @Nullable String dltHandlerMethodName;
    @Nullable String listenerFactoryBeanName;
    @Nullable KafkoListenerContainerFactory listenerFactory;
    final Map<String, List<Class<? extends Throwable>>> dltRoutes = new LinkedHashMap<>();

    private RetryTopicConfigurationBuilder() {
    }

    /** A builder with the defaults. */
    public static RetryTopicConfigurationBuilder newInstance() {
        return new RetryTopicConfigurationBuilder();
    }

    /** Attempts in all, the first delivery included; at least 1 (1: failures go to the dead-letter topic at once). */
    public RetryTopicConfigurationBuilder maxAttempts(int maxAttempts) {
        this.attempts = maxAttempts;
        return this;
    }

    /**
     * The same back-off, in milliseconds, before each retry: a retry topic per retry, {@code -retry-0},
     * {@code -retry-1}, ... (one, {@code -retry}, with {@link #useSingleTopicForSameIntervals()}).
     */
    public RetryTopicConfigurationBuilder fixedBackOff(long interval) {
        return backOff(interval, 0, 0, 0);
    }

    private RetryTopicConfigurationBuilder backOff(long delay, double multiplier, long maxDelay, long jitter) {
        this.delay = delay;
        this.multiplier = multiplier;
        this.maxDelay = maxDelay;
        this.jitter = jitter;
        this.random = false;
        this.customBackOff = null;
        return this;
    }

    /** As {@link #fixedBackOff(long)}. */
    public RetryTopicConfigurationBuilder fixedBackOff(Duration interval) {
        return fixedBackOff(interval.toMillis());
    }

    /**
     * A back-off of {@code initialInterval} milliseconds multiplied by {@code multiplier} before each further retry,
     * up to {@code maxInterval} (truncated to a millisecond at each step): a retry topic per retry, named by its
     * back-off ({@code -retry-1000}; those that reached {@code maxInterval} numbered after it, {@code -retry-5000-0},
     * ...), or one per distinct back-off with {@link #useSingleTopicForSameIntervals()}.
     */
    public RetryTopicConfigurationBuilder exponentialBackoff(long initialInterval, double multiplier,
                                                             long maxInterval) {
        return backOff(initialInterval, multiplier, maxInterval, 0);
    }

    /**
     * As {@link #exponentialBackoff(long, double, long)}, each retry waiting a time drawn anew for each record around
     * its back-off, as spring-core's {@code ExponentialBackOff} with this {@code jitter} draws it (the jitter grows
     * with the back-off; no wait below {@code initialInterval} nor above {@code maxInterval}); the retry topics are
     * named by the back-offs without jitter (see {@link dev.kafko.spring.listener.RetryTopics#withJitter}).
     */
    public RetryTopicConfigurationBuilder exponentialBackoff(long initialInterval, double multiplier,
                                                             long maxInterval, long jitter) {
        return backOff(initialInterval, multiplier, maxInterval, jitter);
    }

    /**
     * Each retry waits a time drawn anew for each record, evenly between {@code minInterval} and
     * {@code maxInterval} milliseconds; the retry topics are named as a fixed back-off's of the midpoint
     * ({@code -retry-0}, {@code -retry-1}, ...; one, {@code -retry}, with {@link #useSingleTopicForSameIntervals()}),
     * where spring-kafka names them after the waits it draws once at start. {@link #create()} refuses a negative
     * {@code minInterval} or one above {@code maxInterval}.
     */
    public RetryTopicConfigurationBuilder uniformRandomBackoff(long minInterval, long maxInterval) {
        backOff(minInterval + (maxInterval - minInterval) / 2, 0, 0, 0);
        this.random = true;
        this.randomMin = minInterval;
        this.randomMax = maxInterval;
        return this;
    }

    /**
     * The back-offs a {@code BackOff} of the application's own yields, one for each retry: {@link #create()} draws
     * {@code maxAttempts - 1} of them from one {@code start()} of it, once, as spring-kafka's builder does, and names
     * the retry topics after them as after any other back-offs (several retries of one back-off under
     * {@code MULTIPLE_TOPICS} get a topic each, numbered after it: {@code -retry-500-0}, {@code -retry-500-1}).
     * {@link #create()} draws them a second time to compare: where the two draws differ (a random back-off), and for
     * spring-core's {@code ExponentialBackOff} with a jitter whatever its draws, the retry topics are named by their
     * index, one per retry ({@code -retry-0}, {@code -retry-1}, ...), whatever the naming strategies say (a random
     * {@code BackOff} of the application's own whose draws can come out equal takes
     * {@link #suffixTopicsWithIndexValues()}), so that the next start reads the topics this one wrote to, where
     * spring-kafka names them after each start's draw and leaves the records of the last start's topics unread.
     * Where spring-kafka takes a {@code STOP} or a negative value for a back-off (a {@code STOP} for one of -1 ms),
     * {@link #create()} refuses it, naming the retry. A later {@code fixedBackOff}, {@code exponentialBackoff}, {@code uniformRandomBackoff} or
     * {@code noBackoff} replaces it.
     */
    public RetryTopicConfigurationBuilder customBackoff(BackOff backOff) {
        backOff(0, 0, 0, 0);
        this.customBackOff = Objects.requireNonNull(backOff, "backOff");
        return this;
    }

    /** No back-off: each retry is delivered as soon as its retry topic's container reads it. */
    public RetryTopicConfigurationBuilder noBackoff() {
        return fixedBackOff(0);
    }

    /**
     * Only failures of this type (or those of the other {@code retryOn} types) are retried; never one that
     * {@link dev.kafko.spring.listener.DefaultErrorHandler#isRetryable} does not retry (a conversion ...).
     */
    public RetryTopicConfigurationBuilder retryOn(Class<? extends Throwable> type) {
        include.add(Objects.requireNonNull(type, "type"));
        return this;
    }

    /** As {@link #retryOn(Class)}, for each type. */
    public RetryTopicConfigurationBuilder retryOn(List<Class<? extends Throwable>> types) {
        for (Class<? extends Throwable> type : types) {
            retryOn(type);
        }
        return this;
    }

    /** Failures of this type go to the dead-letter topic at once. */
    public RetryTopicConfigurationBuilder notRetryOn(Class<? extends Throwable> type) {
        exclude.add(Objects.requireNonNull(type, "type"));
        return this;
    }

    /** As {@link #notRetryOn(Class)}, for each type. */
    public RetryTopicConfigurationBuilder notRetryOn(List<Class<? extends Throwable>> types) {
        for (Class<? extends Throwable> type : types) {
            notRetryOn(type);
        }
        return this;
    }

    /** The types of {@code retryOn} and {@code notRetryOn} match anywhere in a cause chain. */
    public RetryTopicConfigurationBuilder traversingCauses() {
        return traversingCauses(true);
    }

    /**
     * Whether the types of {@code retryOn} and {@code notRetryOn} match anywhere in a failure's cause chain, or (the
     * default) only what the listener threw. The DLT routing rules match anywhere in the chain either way.
     */
    public RetryTopicConfigurationBuilder traversingCauses(boolean traversing) {
        this.traversingCauses = traversing;
        return this;
    }

    /** Applies to this topic (and the others included); without any, to every topic. */
    public RetryTopicConfigurationBuilder includeTopic(String topic) {
        includeTopics.add(Objects.requireNonNull(topic, "topic"));
        return this;
    }

    /** As {@link #includeTopic}, for each topic. */
    public RetryTopicConfigurationBuilder includeTopics(List<String> topics) {
        for (String topic : topics) {
            includeTopic(topic);
        }
        return this;
    }

    /** Does not apply to this topic. */
    public RetryTopicConfigurationBuilder excludeTopic(String topic) {
        excludeTopics.add(Objects.requireNonNull(topic, "topic"));
        return this;
    }

    /** As {@link #excludeTopic}, for each topic. */
    public RetryTopicConfigurationBuilder excludeTopics(List<String> topics) {
        for (String topic : topics) {
            excludeTopic(topic);
        }
        return this;
    }

    /**
     * The suffix of the retry topics (followed by their back-off, {@code -1000}, ..., or their index, as
     * {@link #setTopicSuffixingStrategy} says, when there are several).
     */
    public RetryTopicConfigurationBuilder retryTopicSuffix(String suffix) {
        this.retryTopicSuffix = Objects.requireNonNull(suffix, "suffix");
        return this;
    }

    /** What follows the retry suffix in the retry topics' names when there are several: their back-off or index. */
    public RetryTopicConfigurationBuilder setTopicSuffixingStrategy(TopicSuffixingStrategy strategy) {
        this.topicSuffixingStrategy = Objects.requireNonNull(strategy, "topicSuffixingStrategy");
        return this;
    }

    /** Names the retry topics by their index ({@link TopicSuffixingStrategy#SUFFIX_WITH_INDEX_VALUE}). */
    public RetryTopicConfigurationBuilder suffixTopicsWithIndexValues() {
        return setTopicSuffixingStrategy(TopicSuffixingStrategy.SUFFIX_WITH_INDEX_VALUE);
    }

    /**
     * Whether the retries that wait the same back-off read one retry topic or one each
     * ({@link SameIntervalTopicReuseStrategy#MULTIPLE_TOPICS}, the default, as in spring-kafka's builder).
     */
    public RetryTopicConfigurationBuilder sameIntervalTopicReuseStrategy(SameIntervalTopicReuseStrategy strategy) {
        this.sameIntervalTopicReuseStrategy = Objects.requireNonNull(strategy, "sameIntervalTopicReuseStrategy");
        return this;
    }

    /**
     * The retries that wait the same back-off read one retry topic
     * ({@link SameIntervalTopicReuseStrategy#SINGLE_TOPIC}, {@code @RetryableTopic}'s default): a fixed back-off has
     * one retry topic, {@code -retry}.
     */
    public RetryTopicConfigurationBuilder useSingleTopicForSameIntervals() {
        return sameIntervalTopicReuseStrategy(SameIntervalTopicReuseStrategy.SINGLE_TOPIC);
    }

    /** The suffix of the dead-letter topic. */
    public RetryTopicConfigurationBuilder dltSuffix(String suffix) {
        this.dltSuffix = Objects.requireNonNull(suffix, "suffix");
        return this;
    }

    /** The dead letters go to this method of this bean (resolved as a {@code @DltHandler} method is). */
    public RetryTopicConfigurationBuilder dltHandlerMethod(String beanName, String methodName) {
        this.dltHandlerBeanName = Objects.requireNonNull(beanName, "beanName");
        this.dltHandlerMethodName = Objects.requireNonNull(methodName, "methodName");
        return this;
    }

    /** What becomes of a dead letter its handler fails on; {@link DltStrategy#NO_DLT} for no dead-letter topic. */
    public RetryTopicConfigurationBuilder dltProcessingFailureStrategy(DltStrategy strategy) {
        this.dltStrategy = Objects.requireNonNull(strategy, "strategy");
        return this;
    }

    /** {@link DltStrategy#FAIL_ON_ERROR}: a dead letter its handler fails on is logged and skipped. */
    public RetryTopicConfigurationBuilder doNotRetryOnDltFailure() {
        return dltProcessingFailureStrategy(DltStrategy.FAIL_ON_ERROR);
    }

    /** {@link DltStrategy#NO_DLT}: no dead-letter topic; a record is logged and skipped after its last attempt. */
    public RetryTopicConfigurationBuilder doNotConfigureDlt() {
        return dltProcessingFailureStrategy(DltStrategy.NO_DLT);
    }

    /** Retrying gives up once this long has passed since the original record's timestamp. */
    public RetryTopicConfigurationBuilder timeoutAfter(long timeoutMillis) {
        this.timeout = timeoutMillis;
        return this;
    }

    /** As {@link #timeoutAfter(long)}. */
    public RetryTopicConfigurationBuilder timeoutAfter(Duration timeout) {
        return timeoutAfter(timeout.toMillis());
    }

    /**
     * The retry and dead-letter topics are created (or grown) when missing, with {@code numPartitions} partitions
     * ({@code 0} for the listener topic's count). Kafka's replication factor has no counterpart in one process.
     */
    public RetryTopicConfigurationBuilder autoCreateTopicsWith(int numPartitions) {
        this.autoCreateTopics = true;
        this.numPartitions = numPartitions;
        return this;
    }

    /**
     * As spring-kafka's: the retry and dead-letter topics are created (or grown) when missing, with
     * {@code numPartitions} partitions ({@code null} or {@code -1}, the broker's default there, for the listener
     * topic's count here). {@code replicationFactor} is taken as ported code gives it: {@code null}, {@code 1} or
     * {@code -1}; {@link #create()} refuses any other count, which a kafko topic, one copy on one disk, cannot keep.
     */
    public RetryTopicConfigurationBuilder autoCreateTopicsWith(@Nullable Integer numPartitions,
                                                               @Nullable Short replicationFactor) {
        return autoCreateTopics(true, numPartitions, replicationFactor);
    }

    /**
     * As {@link #autoCreateTopicsWith(Integer, Short)}, or with the topics required to exist when
     * {@code shouldCreate} is false ({@code null}: created).
     */
    public RetryTopicConfigurationBuilder autoCreateTopics(@Nullable Boolean shouldCreate,
                                                           @Nullable Integer numPartitions,
                                                           @Nullable Short replicationFactor) {
        this.autoCreateTopics = shouldCreate == null || shouldCreate;
        this.numPartitions = numPartitions == null || numPartitions == -1 ? 0 : numPartitions;
        this.replicationFactor = replicationFactor;
        return this;
    }

    /** The retry and dead-letter topics must be declared ({@code kafko.topics.*}); the start names missing ones. */
    public RetryTopicConfigurationBuilder doNotAutoCreateRetryTopics() {
        this.autoCreateTopics = false;
        return this;
    }

    /** Members of the retry and dead-letter containers (the listener's concurrency by default). */
    public RetryTopicConfigurationBuilder concurrency(int concurrency) {
        this.concurrency = concurrency;
        return this;
    }

    /**
     * The {@code KafkoListenerContainerFactory} bean that makes the retry and dead-letter containers (the listener's
     * own factory by default; the listener's container is made by that one either way, as in spring-kafka). A name
     * that is no such bean fails the start naming the listener.
     */
    public RetryTopicConfigurationBuilder listenerFactory(String beanName) {
        this.listenerFactoryBeanName = Objects.requireNonNull(beanName, "beanName");
        this.listenerFactory = null;
        return this;
    }

    /**
     * As {@link #listenerFactory(String)}, with the factory itself, which must be a bean of the context (as a
     * {@code @Bean} method's parameter gives it); one that is not fails the start naming the listener.
     */
    public RetryTopicConfigurationBuilder listenerFactory(KafkoListenerContainerFactory factory) {
        this.listenerFactory = Objects.requireNonNull(factory, "factory");
        this.listenerFactoryBeanName = null;
        return this;
    }

    /** Whether the dead-letter containers start with the context (the listener's {@code autoStartup} by default). */
    public RetryTopicConfigurationBuilder autoStartDltHandler(@Nullable Boolean autoStart) {
        this.autoStartDltHandler = autoStart;
        return this;
    }

    /**
     * Dead-letter topics of their own for failures of some types: a record whose failure, or one of its causes, is of
     * one of a suffix's types goes to {@code <topic><suffix><dltSuffix>} (the rules tried in their map's order).
     */
    public RetryTopicConfigurationBuilder dltRoutingRules(Map<String, Set<Class<? extends Throwable>>> rules) {
        for (Map.Entry<String, Set<Class<? extends Throwable>>> rule : rules.entrySet()) {
            dltRoutes.put(rule.getKey(), List.copyOf(rule.getValue()));
        }
        return this;
    }

    /**
     * The configuration.
     *
     * @throws IllegalArgumentException naming a setting that cannot work (attempts below 1, a negative back-off or
     *     timeout, equal suffixes, a concurrency below 1, a replication factor other than 1 or -1, a DLT routing rule
     *     without types ...)
     */
    public RetryTopicConfiguration create() {
        if (random && (randomMin < 0 || randomMin > randomMax)) {
            // checked here, not as the midpoint's delay: a negative minInterval would read as no random back-off
            throw new IllegalArgumentException("uniformRandomBackoff needs 0 <= minInterval <= maxInterval, was "
                    + randomMin + " and " + randomMax);
        }
        if (concurrency != null && concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be at least 1, was " + concurrency);
        }
        if (replicationFactor != null && replicationFactor != 1 && replicationFactor != -1) {
            throw new IllegalArgumentException("a replication factor of " + replicationFactor + " cannot be kept: a"
                    + " kafko topic is one copy on one disk (1, -1 or null)");
        }
        return new RetryTopicConfiguration(this);
    }
}
