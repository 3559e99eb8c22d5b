package dev.kafko.spring.retrytopic;

import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.listener.DltStrategy;
import dev.kafko.spring.listener.RetryTopics;
import dev.kafko.spring.listener.SameIntervalTopicReuseStrategy;
import dev.kafko.spring.listener.TopicSuffixingStrategy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * Non-blocking retries for the {@code @KafkoListener} methods of some topics, declared as a bean (spring-kafka's
 * {@code RetryTopicConfiguration}): each listener method of named topics that this configuration all
 * {@linkplain #appliesTo applies to} and that has no {@code @RetryableTopic} of its own gets retry topics, a
 * dead-letter topic and their containers as if it had one with these settings. Where several beans apply to a topic,
 * the first the context declares is used. Made with {@link RetryTopicConfigurationBuilder}; immutable.
 *
 * <p>A listener it applies to must be a record listener of named topics (not a batch, {@code topicPattern},
 * {@code topicPartitions} or class-level listener): one that cannot take retry topics fails the start naming it when
 * the configuration names its topic, and is left with the blocking retries of its error handler, with a warning,
 * when the configuration applies to every topic.
 */
public final class RetryTopicConfiguration {

    private final int attempts;
    private final long delay;
    private final double multiplier;
    private final long maxDelay;
    private final long jitter;
    /** Whether the back-off is random ({@code uniformRandomBackoff}), each wait drawn between the two below. */
    private final boolean random;
    private final long randomMin;
    private final long randomMax;
    /** The back-off before each retry, drawn once from {@code customBackoff}'s {@code BackOff}; null without one. */
    private final long @Nullable [] customBackOffs;
    /**
     * Whether a second draw from {@code customBackoff}'s {@code BackOff} gave other back-offs (a random back-off), or
     * it is an {@code ExponentialBackOff} with a jitter: its retry topics are then named by their index, one per retry, so that the next start, drawing other
     * back-offs, reads the same topics.
     */
    private final boolean customBackOffsVary;
    private final List<Class<? extends Throwable>> include;
    private final List<Class<? extends Throwable>> exclude;
    private final boolean traversingCauses;
    private final List<String> includeTopics;
    private final List<String> excludeTopics;
    private final String retryTopicSuffix;
    private final String dltSuffix;
    private final TopicSuffixingStrategy topicSuffixingStrategy;
    private final SameIntervalTopicReuseStrategy sameIntervalTopicReuseStrategy;
    private final DltStrategy dltStrategy;
    private final long timeout;
    private final boolean autoCreateTopics;
    private final int numPartitions;
    private final @Nullable Integer concurrency;
    private final @Nullable Boolean autoStartDltHandler;
    private final @Nullable String dltHandlerBeanName;
    private final @Nullable String dltHandlerMethodName;
    private final @Nullable String listenerFactoryBeanName;
    private final @Nullable KafkoListenerContainerFactory listenerFactory;
    private final List<RetryTopics.DltRoute> dltRoutes;

    RetryTopicConfiguration(RetryTopicConfigurationBuilder b) {
        attempts = b.attempts;
        delay = b.delay;
        multiplier = b.multiplier;
        maxDelay = b.maxDelay;
        jitter = b.jitter;
        random = b.random;
        randomMin = b.randomMin;
        randomMax = b.randomMax;
        customBackOffs = b.customBackOff == null ? null : draw(b.customBackOff, attempts);
        customBackOffsVary = b.customBackOff != null && (jittered(b.customBackOff)
                || !Arrays.equals(customBackOffs, draw(b.customBackOff, attempts)));
        include = List.copyOf(b.include);
        exclude = List.copyOf(b.exclude);
        traversingCauses = b.traversingCauses;
        includeTopics = List.copyOf(b.includeTopics);
        excludeTopics = List.copyOf(b.excludeTopics);
        retryTopicSuffix = b.retryTopicSuffix;
        dltSuffix = b.dltSuffix;
        topicSuffixingStrategy = b.topicSuffixingStrategy;
        sameIntervalTopicReuseStrategy = b.sameIntervalTopicReuseStrategy;
        dltStrategy = b.dltStrategy;
        timeout = b.timeout;
        autoCreateTopics = b.autoCreateTopics;
        numPartitions = b.numPartitions;
        concurrency = b.concurrency;
        autoStartDltHandler = b.autoStartDltHandler;
        dltHandlerBeanName = b.dltHandlerBeanName;
        dltHandlerMethodName = b.dltHandlerMethodName;
        listenerFactoryBeanName = b.listenerFactoryBeanName;
        listenerFactory = b.listenerFactory;
        List<RetryTopics.DltRoute> routes = new ArrayList<>();
        for (Map.Entry<String, List<Class<? extends Throwable>>> rule : b.dltRoutes.entrySet()) {
            routes.add(new RetryTopics.DltRoute(rule.getKey(), rule.getValue()));
        }
        dltRoutes = List.copyOf(routes);
        // every setting checked now, on a topic name of the rule's, so that a bean that cannot work fails where it is
        // made rather than at the first listener it applies to
        plan("topic");
    }

    /**
     * The back-off before each of {@code attempts - 1} retries, from one execution of {@code backOff}, as spring-kafka's
     * builder draws them, when it creates its configuration.
     */
    private static long[] draw(BackOff backOff, int attempts) {
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be at least 1, was " + attempts);
        }
        BackOffExecution execution = backOff.start();
        long[] backOffs = new long[attempts - 1];
        for (int i = 0; i < backOffs.length; i++) {
            long next = execution.nextBackOff();
            if (next == BackOffExecution.STOP) {
                throw new IllegalArgumentException("the customBackoff " + backOff + " stopped after " + i
                        + " back-offs, where maxAttempts(" + attempts + ") needs " + backOffs.length + ": give it"
                        + " more, or fewer attempts");
            }
            if (next < 0) {
                throw new IllegalArgumentException("the customBackoff " + backOff + " gave a negative back-off, "
                        + next + " ms, before retry " + (i + 1));
            }
            backOffs[i] = next;
        }
        return backOffs;
    }

    /**
     * Whether {@code backOff} is spring-core's {@code ExponentialBackOff} with a jitter, whose draws vary though two of
     * them can come out equal by chance (a jitter of a few milliseconds draws each back-off from a few values): its
     * retry topics are named by their index whatever two draws gave, so that every start names them alike.
     */
    private static boolean jittered(BackOff backOff) {
        return backOff instanceof ExponentialBackOff exponential && exponential.getJitter() > 0;
    }

    /**
     * Whether this configuration applies to {@code topic}: it is among the included topics (every topic when none
     * is included) and not among the excluded ones.
     */
    public boolean appliesTo(String topic) {
        return (includeTopics.isEmpty() || includeTopics.contains(topic)) && !excludeTopics.contains(topic);
    }

    /** Whether this configuration names its topics ({@code includeTopic}), rather than applying to every topic. */
    public boolean namesTopics() {
        return !includeTopics.isEmpty();
    }

    /**
     * The retry topics, back-offs and dead-letter topics of a listener of {@code topic} under this configuration.
     *
     * @throws IllegalArgumentException naming the setting that cannot work
     */
    public RetryTopics plan(String topic) {
        if (random && (randomMin < 0 || randomMin > randomMax)) {
            // before the plan, whose delay (the midpoint) may be negative then, so that the message names the setting
            throw new IllegalArgumentException("uniformRandomBackoff needs 0 <= minInterval <= maxInterval, was "
                    + randomMin + " and " + randomMax);
        }
        RetryTopics plan = customBackOffs != null
                ? new RetryTopics(topic, customBackOffs, retryTopicSuffix, dltSuffix, include, exclude, dltStrategy,
                        customBackOffsVary ? TopicSuffixingStrategy.SUFFIX_WITH_INDEX_VALUE : topicSuffixingStrategy,
                        customBackOffsVary ? SameIntervalTopicReuseStrategy.MULTIPLE_TOPICS
                                : sameIntervalTopicReuseStrategy)
                : new RetryTopics(topic, attempts, delay, multiplier, maxDelay, retryTopicSuffix, dltSuffix, include,
                        exclude, dltStrategy, topicSuffixingStrategy, sameIntervalTopicReuseStrategy).withJitter(jitter);
        return (random ? plan.withRandomWaits(randomMin, randomMax) : plan)
                .withTraversingCauses(traversingCauses)
                .withDltRouting(dltSuffix, dltRoutes)
                .withTimeout(timeout)
                .withTopicCreation(autoCreateTopics, numPartitions);
    }

    /** The suffix the retry topics' names start with after the listener's topic. */
    public String retryTopicSuffix() {
        return retryTopicSuffix;
    }

    /** Members of the retry and dead-letter containers; null for the listener's concurrency. */
    public @Nullable Integer concurrency() {
        return concurrency;
    }

    /** Whether the dead-letter containers start with the context; null for the listener's {@code autoStartup}. */
    public @Nullable Boolean autoStartDltHandler() {
        return autoStartDltHandler;
    }

    /** The bean whose {@link #dltHandlerMethodName()} takes the dead letters; null for the logger. */
    public @Nullable String dltHandlerBeanName() {
        return dltHandlerBeanName;
    }

    /** The method of {@link #dltHandlerBeanName()} that takes the dead letters; null for the logger. */
    public @Nullable String dltHandlerMethodName() {
        return dltHandlerMethodName;
    }

    /** The bean name of the factory of the retry and dead-letter containers; null for another way or the listener's. */
    public @Nullable String listenerFactoryBeanName() {
        return listenerFactoryBeanName;
    }

    /** The factory (a bean) of the retry and dead-letter containers; null for another way or the listener's. */
    public @Nullable KafkoListenerContainerFactory listenerFactory() {
        return listenerFactory;
    }

    @Override
    public String toString() {
        return "RetryTopicConfiguration[attempts=" + attempts + ", topics=" + (includeTopics.isEmpty() ? "all"
                : includeTopics) + (excludeTopics.isEmpty() ? "" : " except " + excludeTopics) + "]";
    }
}
