package dev.kafko.spring.listener;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * The topics and back-offs of a {@code @RetryableTopic} listener of one topic: which retry topic each retry is read
 * from and how long it waits there, and the dead-letter topic. Immutable.
 */
public final class RetryTopics {

    private final String topic;
    private final int attempts;
    private final long[] delays;
    private final int[] topicOfRetry;
    private final List<String> retryTopics;
    /** What the retry topics' names start with: the listener's topic and the retry suffix. */
    private final String retryBase;
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
    /** Whether the types above look at a failure's whole cause chain, or at the failure alone (the routes' always do). */
    private final boolean traversingCauses;
    /** The dead-letter topics of {@link #routes}, in the same order. */
    private final List<String> routedDltTopics;
    /** The failures each of {@link #routedDltTopics} takes. */
    private final List<List<Class<? extends Throwable>>> routes;
    /**
     * The shortest and the longest wait of each retry, drawn anew for each record between the two; null where each
     * waits its back-off ({@link #delays}), with no jitter.
     */
    private final long @Nullable [] shortestWait;
    private final long @Nullable [] longestWait;
    /** The back-off's delay, as given: what spring-core's jitter is scaled by. */
    private final long initialDelay;
    /** The longest wait a jitter may give: the back-off's cap; {@code Long.MAX_VALUE} for none. */
    private final long longestDelay;

    /**
     * A dead-letter topic of its own, {@code <topic><suffix><dltTopicSuffix>}, for failures of the given types
     * (spring-kafka's exception-based DLT routing).
     *
     * @param suffix what comes between the listener's topic and the dead-letter suffix; not empty
     * @param exceptions the failures it takes; at least one
     */
    public record DltRoute(String suffix, List<Class<? extends Throwable>> exceptions) {

        public DltRoute {
            Objects.requireNonNull(suffix, "suffix");
            exceptions = List.copyOf(exceptions);
        }
    }

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
     * @param maxDelay the longest back-off, the first included (a {@code delay} above it waits {@code maxDelay}, as
     *     in spring-kafka); 0 for none (a multiplied back-off grows without bound, as spring-kafka 4.0's does)
     * @param include only failures with one of these in their cause chain are retried (empty: every one); never
     *     those {@link DefaultErrorHandler#isRetryable} does not retry
     * @param exclude failures with one of these in their cause chain are not retried
     * @param dltStrategy whether there is a dead-letter topic, and what becomes of a dead letter its handler fails on
     * @throws IllegalArgumentException naming the setting that cannot work
     */
    public RetryTopics(String topic, int attempts, long delay, double multiplier, long maxDelay,
                       String retryTopicSuffix, String dltTopicSuffix, List<Class<? extends Throwable>> include,
                       List<Class<? extends Throwable>> exclude, DltStrategy dltStrategy) {
        this(topic, attempts, delay, multiplier, maxDelay, retryTopicSuffix, dltTopicSuffix, include, exclude,
                dltStrategy, TopicSuffixingStrategy.SUFFIX_WITH_DELAY_VALUE, SameIntervalTopicReuseStrategy.SINGLE_TOPIC);
    }

    /**
     * As the constructor above, with the retry topics named and shared as spring-kafka's
     * {@code topicSuffixingStrategy} and {@code sameIntervalTopicReuseStrategy} say (see {@link #withTopicNaming}).
     *
     * @throws IllegalArgumentException naming the setting that cannot work, or a retry topic that would have the
     *     dead-letter topic's name
     */
    public RetryTopics(String topic, int attempts, long delay, double multiplier, long maxDelay,
                       String retryTopicSuffix, String dltTopicSuffix, List<Class<? extends Throwable>> include,
                       List<Class<? extends Throwable>> exclude, DltStrategy dltStrategy,
                       TopicSuffixingStrategy suffixing, SameIntervalTopicReuseStrategy reuse) {
        this(topic, RetryPlans.multiplied(attempts, delay, multiplier, maxDelay),
                Math.min(delay, RetryPlans.cap(maxDelay)), delay, RetryPlans.cap(maxDelay), retryTopicSuffix,
                dltTopicSuffix, include, exclude, dltStrategy, suffixing, reuse);
    }

    /**
     * As the constructor above, with each retry's back-off given, as a {@code BackOff} of the application's own yields
     * them ({@code RetryTopicConfigurationBuilder.customBackoff}): {@code backOffs.length + 1} attempts. Back-offs that
     * do not only grow are named as any others; a back-off of several retries has one topic under {@code SINGLE_TOPIC},
     * and under {@code MULTIPLE_TOPICS} its topics are numbered after it, as spring-kafka numbers them, by their
     * retry's distance from its first retry.
     *
     * @param backOffs milliseconds before each retry, none negative; empty: failures go to the dead-letter topic at
     *     once (whose handler, failing under {@link DltStrategy#ALWAYS_RETRY_ON_ERROR}, is then called again at once)
     * @throws IllegalArgumentException naming the back-off that cannot work, or a retry topic that would have the
     *     dead-letter topic's name
     */
    public RetryTopics(String topic, long[] backOffs, String retryTopicSuffix, String dltTopicSuffix,
                       List<Class<? extends Throwable>> include, List<Class<? extends Throwable>> exclude,
                       DltStrategy dltStrategy, TopicSuffixingStrategy suffixing, SameIntervalTopicReuseStrategy reuse) {
        this(topic, RetryPlans.given(backOffs), 0, backOffs.length == 0 ? 0 : backOffs[0], Long.MAX_VALUE,
                retryTopicSuffix, dltTopicSuffix, include, exclude, dltStrategy, suffixing, reuse);
    }

    private RetryTopics(String topic, long[] delays, long onlyBackOff, long initialDelay, long longestDelay,
                        String retryTopicSuffix, String dltTopicSuffix, List<Class<? extends Throwable>> include,
                        List<Class<? extends Throwable>> exclude, DltStrategy dltStrategy,
                        TopicSuffixingStrategy suffixing, SameIntervalTopicReuseStrategy reuse) {
        this.topic = Objects.requireNonNull(topic, "topic");
        this.dltStrategy = Objects.requireNonNull(dltStrategy, "dltStrategy");
        Objects.requireNonNull(retryTopicSuffix, "retryTopicSuffix");
        Objects.requireNonNull(dltTopicSuffix, "dltTopicSuffix");
        Objects.requireNonNull(suffixing, "topicSuffixingStrategy");
        Objects.requireNonNull(reuse, "sameIntervalTopicReuseStrategy");
        if (retryTopicSuffix.isEmpty() || dltTopicSuffix.isEmpty() || retryTopicSuffix.equals(dltTopicSuffix)) {
            throw new IllegalArgumentException("the retry and dead-letter topic suffixes must be two different,"
                    + " non-empty suffixes, were '" + retryTopicSuffix + "' and '" + dltTopicSuffix + "'");
        }
        this.attempts = delays.length + 1;
        this.delays = delays;
        retryBase = topic + retryTopicSuffix;
        topicOfRetry = new int[delays.length];
        retryTopics = RetryPlans.name(retryBase, delays, topicOfRetry, suffixing, reuse);
        dltTopic = topic + dltTopicSuffix;
        if (dltStrategy != DltStrategy.NO_DLT && retryTopics.contains(dltTopic)) {
            throw new IllegalArgumentException("the retry topic '" + dltTopic + "' would have the name of the"
                    + " dead-letter topic");
        }
        this.include = List.copyOf(include);
        this.exclude = List.copyOf(exclude);
        dltBackOff = delays.length == 0 ? onlyBackOff : delays[delays.length - 1];
        timeout = 0;
        autoCreateTopics = true;
        numPartitions = 0;
        traversingCauses = true;
        routedDltTopics = List.of();
        routes = List.of();
        this.initialDelay = initialDelay;
        this.longestDelay = longestDelay;
        shortestWait = null;
        longestWait = null;
    }

    private RetryTopics(RetryTopics plan, long timeout, boolean autoCreateTopics, int numPartitions,
                        boolean traversingCauses, List<String> routedDltTopics,
                        List<List<Class<? extends Throwable>>> routes) {
        this(plan, plan.topicOfRetry, plan.retryTopics, timeout, autoCreateTopics, numPartitions, traversingCauses,
                routedDltTopics, routes, plan.shortestWait, plan.longestWait);
    }

    private RetryTopics(RetryTopics plan, int[] topicOfRetry, List<String> retryTopics, long timeout,
                        boolean autoCreateTopics, int numPartitions, boolean traversingCauses,
                        List<String> routedDltTopics, List<List<Class<? extends Throwable>>> routes,
                        long @Nullable [] shortestWait, long @Nullable [] longestWait) {
        topic = plan.topic;
        attempts = plan.attempts;
        delays = plan.delays;
        this.topicOfRetry = topicOfRetry;
        this.retryTopics = retryTopics;
        retryBase = plan.retryBase;
        dltTopic = plan.dltTopic;
        include = plan.include;
        exclude = plan.exclude;
        dltStrategy = plan.dltStrategy;
        dltBackOff = plan.dltBackOff;
        this.timeout = timeout;
        this.autoCreateTopics = autoCreateTopics;
        this.numPartitions = numPartitions;
        this.traversingCauses = traversingCauses;
        this.routedDltTopics = routedDltTopics;
        this.routes = routes;
        initialDelay = plan.initialDelay;
        longestDelay = plan.longestDelay;
        this.shortestWait = shortestWait;
        this.longestWait = longestWait;
    }

    private RetryTopics(RetryTopics plan, long @Nullable [] shortestWait, long @Nullable [] longestWait) {
        this(plan, plan.topicOfRetry, plan.retryTopics, plan.timeout, plan.autoCreateTopics, plan.numPartitions,
                plan.traversingCauses, plan.routedDltTopics, plan.routes, shortestWait, longestWait);
    }

    /**
     * This plan, with its retry topics named and shared as spring-kafka's {@code topicSuffixingStrategy} and
     * {@code sameIntervalTopicReuseStrategy} say; the constructors name them as spring-kafka's defaults do
     * ({@link TopicSuffixingStrategy#SUFFIX_WITH_DELAY_VALUE}, {@link SameIntervalTopicReuseStrategy#SINGLE_TOPIC}).
     *
     * @throws IllegalArgumentException when a retry topic would have the name of a dead-letter topic of this plan
     */
    public RetryTopics withTopicNaming(TopicSuffixingStrategy suffixing, SameIntervalTopicReuseStrategy reuse) {
        Objects.requireNonNull(suffixing, "topicSuffixingStrategy");
        Objects.requireNonNull(reuse, "sameIntervalTopicReuseStrategy");
        int[] topicOf = new int[delays.length];
        List<String> names = RetryPlans.name(retryBase, delays, topicOf, suffixing, reuse);
        for (String name : names) {
            if (isDltTopic(name)) {
                throw new IllegalArgumentException("the retry topic '" + name + "' would have the name of a"
                        + " dead-letter topic of the listener");
            }
        }
        return new RetryTopics(this, topicOf, names, timeout, autoCreateTopics, numPartitions, traversingCauses,
                routedDltTopics, routes, shortestWait, longestWait);
    }

    /**
     * This plan, judging a failure against the retried and the excluded types by its whole cause chain
     * ({@code true}, as the constructors do) or by what the listener threw alone ({@code false}, spring-kafka's
     * default for {@code @RetryableTopic}; a {@link ListenerExecutionFailedException} around it, kafko's wrapper of
     * an {@link Error}, is looked through). The default classification, without included types, reads the chain
     * either way, and so do the routes of {@link #withDltRouting}, as spring-kafka's do.
     */
    public RetryTopics withTraversingCauses(boolean traversingCauses) {
        return new RetryTopics(this, timeout, autoCreateTopics, numPartitions, traversingCauses, routedDltTopics,
                routes);
    }

    /**
     * This plan, sending a record whose failure (or one of its causes) is of one of a route's types to that route's
     * dead-letter topic,
     * {@code <topic><suffix><dltTopicSuffix>}, instead of {@link #dltTopic()} (the first route that matches; the same
     * topics after the last attempt and for a failure that is not retried).
     *
     * @param dltTopicSuffix the dead-letter suffix this plan was made with
     * @throws IllegalArgumentException when there is no dead-letter topic ({@link DltStrategy#NO_DLT}), or a route has
     *     an empty suffix, no exception, or a topic another topic of this plan has
     */
    public RetryTopics withDltRouting(String dltTopicSuffix, List<DltRoute> dltRoutes) {
        if (dltRoutes.isEmpty()) {
            return new RetryTopics(this, timeout, autoCreateTopics, numPartitions, traversingCauses, List.of(),
                    List.of());
        }
        if (!hasDltTopic()) {
            throw new IllegalArgumentException("exceptionBasedDltRouting needs dead-letter topics, and the"
                    + " dltStrategy is NO_DLT");
        }
        if (!dltTopic.equals(topic + dltTopicSuffix)) {
            throw new IllegalArgumentException("the dead-letter suffix '" + dltTopicSuffix + "' is not this plan's ("
                    + dltTopic + ")");
        }
        List<String> names = new ArrayList<>();
        List<List<Class<? extends Throwable>>> types = new ArrayList<>();
        for (DltRoute route : dltRoutes) {
            if (route.suffix().isEmpty()) {
                throw new IllegalArgumentException("an exception-based dead-letter destination needs a suffix; one"
                        + " for " + route.exceptions() + " has none");
            }
            if (route.exceptions().isEmpty()) {
                throw new IllegalArgumentException("the exception-based dead-letter destination '" + route.suffix()
                        + "' names no exception");
            }
            String name = topic + route.suffix() + dltTopicSuffix;
            if (names.contains(name) || name.equals(dltTopic) || retryTopics.contains(name)) {
                throw new IllegalArgumentException("the exception-based dead-letter destination '" + route.suffix()
                        + "' makes the topic '" + name + "', which another topic of the listener has");
            }
            names.add(name);
            types.add(route.exceptions());
        }
        return new RetryTopics(this, timeout, autoCreateTopics, numPartitions, traversingCauses, List.copyOf(names),
                List.copyOf(types));
    }

    /** Whether failures are judged by their whole cause chain, or by what the listener threw alone. */
    public boolean traversingCauses() {
        return traversingCauses;
    }

    /**
     * Every dead-letter topic: {@link #dltTopic()} first, then the routed ones in the order of their routes; empty
     * under {@link DltStrategy#NO_DLT}.
     */
    public List<String> dltTopics() {
        if (!hasDltTopic()) {
            return List.of();
        }
        List<String> all = new ArrayList<>(routedDltTopics.size() + 1);
        all.add(dltTopic);
        all.addAll(routedDltTopics);
        return all;
    }

    /** Whether {@code name} is one of {@link #dltTopics()}. */
    public boolean isDltTopic(String name) {
        return hasDltTopic() && (name.equals(dltTopic) || routedDltTopics.contains(name));
    }

    /**
     * The dead-letter topic a record that failed with {@code failure} goes to: that of the first route with a type of
     * the failure or of one of its causes (whatever {@link #traversingCauses()} says, as spring-kafka's
     * {@code DefaultDestinationTopicResolver} matches them), else {@link #dltTopic()}.
     */
    public String dltTopicFor(Throwable failure) {
        for (int i = 0; i < routes.size(); i++) {
            if (anyInChain(failure, routes.get(i))) {
                return routedDltTopics.get(i);
            }
        }
        return dltTopic;
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
        return new RetryTopics(this, timeoutMillis, autoCreateTopics, numPartitions, traversingCauses,
                routedDltTopics, routes);
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
        return new RetryTopics(this, timeout, autoCreateTopics, numPartitions, traversingCauses, routedDltTopics,
                routes);
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

    /**
     * Milliseconds the {@code attempt}-th delivery (2 for the first retry, ...) waits in its retry topic, drawn anew
     * at each call where the back-off has a jitter ({@link #withJitter}) or is random ({@link #withRandomWaits}); else
     * {@link #backOffBefore}.
     */
    public long waitBefore(int attempt) {
        int retry = retryIndex(attempt);
        if (shortestWait == null || longestWait == null || shortestWait[retry] >= longestWait[retry]) {
            return shortestWait == null ? delays[retry] : shortestWait[retry];
        }
        return ThreadLocalRandom.current().nextLong(shortestWait[retry], longestWait[retry]);
    }

    /** The shortest wait of the {@code attempt}-th delivery: {@link #backOffBefore} without jitter. */
    public long shortestWaitBefore(int attempt) {
        return shortestWait == null ? backOffBefore(attempt) : shortestWait[retryIndex(attempt)];
    }

    /**
     * What the {@code attempt}-th delivery waits less than, where its wait is drawn (as spring-core's); else its only
     * wait, {@link #backOffBefore} without jitter.
     */
    public long longestWaitBefore(int attempt) {
        return longestWait == null ? backOffBefore(attempt) : longestWait[retryIndex(attempt)];
    }

    /**
     * This plan, with each retry waiting a time drawn anew for each record around its back-off, as spring-core's
     * {@code ExponentialBackOff} with a {@code jitter} draws it: the jitter grows as the back-off does (it is
     * {@code jitterMillis} times the back-off's multiple of the delay, in whole multiples), and no wait is below the
     * delay nor above the back-off's {@code maxDelay} (where it has one). The retry topics
     * keep the names of the back-offs without jitter (spring-kafka names them after the waits it draws once at start,
     * so that its names change at each start and a restart strands the records of the retry topics it left). 0 for
     * no jitter.
     *
     * @throws IllegalArgumentException when {@code jitterMillis} is negative, or not 0 with a delay of 0 (there is
     *     nothing to scale it by)
     */
    public RetryTopics withJitter(long jitterMillis) {
        if (jitterMillis < 0) {
            throw new IllegalArgumentException("the back-off's jitter must not be negative, was " + jitterMillis);
        }
        if (jitterMillis == 0) {
            return new RetryTopics(this, null, null);
        }
        if (initialDelay == 0) {
            throw new IllegalArgumentException("the back-off's jitter (" + jitterMillis + " ms) needs a delay above"
                    + " 0 to be scaled by");
        }
        long[] shortest = new long[delays.length];
        long[] longest = new long[delays.length];
        for (int i = 0; i < delays.length; i++) {
            long multiple = delays[i] / initialDelay;
            long scaled = multiple > Long.MAX_VALUE / jitterMillis ? Long.MAX_VALUE : jitterMillis * multiple;
            shortest[i] = Math.min(Math.max(delays[i] - scaled, initialDelay), longestDelay);
            long upper = delays[i] > Long.MAX_VALUE - scaled ? Long.MAX_VALUE : delays[i] + scaled;
            longest[i] = Math.max(Math.min(upper, longestDelay), shortest[i]);
        }
        return new RetryTopics(this, shortest, longest);
    }

    /**
     * This plan, with each retry waiting a time drawn anew for each record, evenly from {@code shortestMillis} to
     * below {@code longestMillis} (the builder's {@code uniformRandomBackoff}); the retry topics keep their names.
     *
     * @throws IllegalArgumentException when {@code shortestMillis} is negative or above {@code longestMillis}
     */
    public RetryTopics withRandomWaits(long shortestMillis, long longestMillis) {
        if (shortestMillis < 0 || shortestMillis > longestMillis) {
            throw new IllegalArgumentException("a random back-off needs 0 <= shortest <= longest, was "
                    + shortestMillis + " and " + longestMillis);
        }
        long[] shortest = new long[delays.length];
        long[] longest = new long[delays.length];
        Arrays.fill(shortest, shortestMillis);
        Arrays.fill(longest, longestMillis);
        return new RetryTopics(this, shortest, longest);
    }

    private int retryIndex(int attempt) {
        if (attempt < 2 || attempt > attempts) {
            throw new IllegalArgumentException("attempt " + attempt + " is no retry of " + attempts + " attempts");
        }
        return attempt - 2;
    }

    /**
     * Whether a delivery that failed with {@code failure} is retried (given attempts left): not when it is excluded,
     * nor when {@link DefaultErrorHandler#isRetryable} never retries it (a conversion, a {@code ClassCastException}
     * ...: it would fail the same way at every attempt) even where {@code include} names a type of it, as
     * spring-kafka's resolver sends its fatal exceptions to the dead-letter topic whatever the listener includes.
     */
    public boolean retryable(Throwable failure) {
        if (matches(failure, exclude) || !DefaultErrorHandler.isRetryable(failure)) {
            return false;
        }
        return include.isEmpty() || matches(failure, include);
    }

    private boolean matches(Throwable failure, List<Class<? extends Throwable>> types) {
        if (traversingCauses) {
            return anyInChain(failure, types);
        }
        Throwable thrown = failure;
        while (thrown instanceof ListenerExecutionFailedException && thrown.getCause() != null
                && thrown.getCause() != thrown) {
            thrown = thrown.getCause();
        }
        for (Class<? extends Throwable> type : types) {
            if (type.isInstance(thrown)) {
                return true;
            }
        }
        return false;
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
