package dev.kafko.spring.listener;

import java.util.ArrayList;
import java.util.List;

/**
 * How a {@link RetryTopics} plan derives its parts from its settings: the back-off before each retry (multiplied, as
 * spring-core's {@code ExponentialBackOff}, or given) and the retry topics' names, spring-kafka's. Stateless.
 */
final class RetryPlans {

    private RetryPlans() {
    }

    static long cap(long maxDelay) {
        return maxDelay == 0 ? Long.MAX_VALUE : maxDelay;
    }

    /**
     * The back-off before each retry, as spring-core's ExponentialBackOff, which spring-kafka takes its back-offs
     * from: each the one before times the multiplier, truncated to a millisecond at each step (1 ms times 1.5 stays
     * 1 ms), none above maxDelay, the first included.
     */
    static long[] multiplied(int attempts, long delay, double multiplier, long maxDelay) {
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
        long cap = cap(maxDelay);
        long[] delays = new long[attempts - 1];
        long next = Math.min(delay, cap);
        for (int i = 0; i < delays.length; i++) {
            delays[i] = next;
            next = multiplier > 1 ? Math.min((long) (next * multiplier), cap) : next;
        }
        return delays;
    }

    static long[] given(long[] backOffs) {
        long[] delays = backOffs.clone();
        for (int i = 0; i < delays.length; i++) {
            if (delays[i] < 0) {
                throw new IllegalArgumentException("the back-off before retry " + (i + 1) + " must not be negative,"
                        + " was " + delays[i]);
            }
        }
        return delays;
    }

    /**
     * The retry topics' names, in the order of the retries that first read them, with the index of each retry's
     * topic put in {@code topicOfRetry}: spring-kafka's names. Under {@code SINGLE_TOPIC} one topic per distinct
     * back-off, the suffix alone when there is one; under {@code MULTIPLE_TOPICS} one per retry. A topic is named by
     * its back-off, or by its index where the suffixing asks for it or, under {@code MULTIPLE_TOPICS}, where every
     * retry has the same back-off; several topics of one back-off are numbered after it by their retry's distance from
     * its first retry, as spring-kafka numbers them (a multiplied back-off only grows, up to its cap, so its equal
     * back-offs follow each other and are numbered 0, 1, ...; a custom one's need not: 10, 20, 10 gives
     * {@code -10-0}, {@code -20}, {@code -10-2}).
     */
    static List<String> name(String base, long[] delays, int[] topicOfRetry, TopicSuffixingStrategy suffixing,
                                     SameIntervalTopicReuseStrategy reuse) {
        boolean byIndex = suffixing == TopicSuffixingStrategy.SUFFIX_WITH_INDEX_VALUE;
        List<String> names = new ArrayList<>();
        if (reuse == SameIntervalTopicReuseStrategy.SINGLE_TOPIC) {
            List<Long> distinct = new ArrayList<>();
            for (int i = 0; i < delays.length; i++) {
                int topic = distinct.indexOf(delays[i]);
                if (topic < 0) {
                    topic = distinct.size();
                    distinct.add(delays[i]);
                }
                topicOfRetry[i] = topic;
            }
            for (int i = 0; i < distinct.size(); i++) {
                names.add(distinct.size() == 1 ? base : base + "-" + (byIndex ? i : distinct.get(i)));
            }
            return List.copyOf(names);
        }
        boolean fixed = delays.length > 1;
        for (long delay : delays) {
            fixed &= delay == delays[0];
        }
        for (int i = 0; i < delays.length; i++) {
            topicOfRetry[i] = i;
            if (byIndex || fixed) {
                names.add(base + "-" + i);
                continue;
            }
            int first = -1; // the first retry of this back-off, and whether another has it
            boolean shared = false;
            for (int j = 0; j < delays.length; j++) {
                if (delays[j] == delays[i]) {
                    shared |= j != i;
                    first = first < 0 ? j : first;
                }
            }
            // numbered by the distance from the first, as spring-kafka numbers them: the count of those before would
            // be the same where they follow each other, but not for 10, 20, 10, whose last is spring-kafka's -10-2
            names.add(base + "-" + delays[i] + (shared ? "-" + (i - first) : ""));
        }
        return List.copyOf(names);
    }
}
