package dev.kafko.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.listener.RetryTopics;
import dev.kafko.spring.listener.SameIntervalTopicReuseStrategy;
import dev.kafko.spring.listener.TopicSuffixingStrategy;
import dev.kafko.spring.retrytopic.RetryTopicConfigurationBuilder;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.retrytopic.BackOffValuesGenerator;
import org.springframework.kafka.retrytopic.DestinationTopic;
import org.springframework.kafka.retrytopic.DestinationTopicPropertiesFactory;
import org.springframework.kafka.retrytopic.DltStrategy;
import org.springframework.kafka.support.ExceptionMatcher;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

/**
 * The waits and the retry topic names of a back-off without a bound against spring-kafka 4.0's own code, run beside
 * kafko's: its {@code BackOffFactory} builds the back-off of the annotation (its builder's
 * {@code exponentialBackoff} that of a configuration bean), its {@code BackOffValuesGenerator} takes the waits from
 * it and its {@code DestinationTopicPropertiesFactory} names the topics, under both suffixing strategies and both
 * topic-reuse strategies, from 1 to 99 retries of 1 ms up to {@code Long.MAX_VALUE}.
 */
class RetryBackOffConformanceTest {

    private static final long MAX = Long.MAX_VALUE;

    private static final long[] DELAYS = {0, 1, 2, 7, 1_000, 20_000, 29_000, 40_000, 1L << 31, 1_000_000_000_000L,
        MAX / 1_000, MAX / 4, MAX / 2 - 1, MAX / 2, MAX / 2 + 1, MAX - 1, MAX};
    private static final double[] MULTIPLIERS = {0, 1, 1.0001, 1.1, 1.5, 2, 3, 10, 1_000};
    private static final long[] MAX_DELAYS = {0, 1, 500, 30_000, 45_000, 1_000_000_000, MAX / 2, MAX};
    private static final int[] ATTEMPTS = {1, 2, 3, 5, 10, 30, 64, 65, 100};

    /** spring-kafka's back-off of {@code @BackOff(delay, multiplier, maxDelay)}, by its package-private factory. */
    private static BackOff annotationBackOff(long delay, double multiplier, long maxDelay) throws Exception {
        Class<?> factoryClass = Class.forName("org.springframework.kafka.annotation.BackOffFactory");
        Constructor<?> constructor = factoryClass.getDeclaredConstructor();
        constructor.setAccessible(true);
        Method create = factoryClass.getDeclaredMethod("createFromAnnotation",
                org.springframework.kafka.annotation.BackOff.class);
        create.setAccessible(true);
        Object annotation = Proxy.newProxyInstance(RetryBackOffConformanceTest.class.getClassLoader(),
                new Class<?>[] {org.springframework.kafka.annotation.BackOff.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "value" -> 1_000L;
                    case "delay" -> delay;
                    case "multiplier" -> multiplier;
                    case "maxDelay" -> maxDelay;
                    case "jitter" -> 0L;
                    case "delayString", "maxDelayString", "multiplierString", "jitterString" -> "";
                    case "annotationType" -> org.springframework.kafka.annotation.BackOff.class;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        return (BackOff) invoke(create, constructor.newInstance(), annotation);
    }

    /** spring-kafka's back-off of its builder's {@code exponentialBackoff(initial, multiplier, maxInterval)}. */
    private static BackOff builderBackOff(long initial, double multiplier, long maxInterval) throws Exception {
        var builder = new org.springframework.kafka.retrytopic.RetryTopicConfigurationBuilder();
        builder.exponentialBackoff(initial, multiplier, maxInterval);
        Field backOff = builder.getClass().getDeclaredField("backOff");
        backOff.setAccessible(true);
        return (BackOff) backOff.get(builder);
    }

    private static Object invoke(Method method, Object target, Object... args) throws Exception {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw (Exception) e.getCause();
        }
    }

    /** Each retry's topic and wait as spring-kafka makes them: "topic@wait", a reused topic's as its last one. */
    private static List<String> springRetries(BackOff backOff, int attempts, TopicSuffixingStrategy suffixing,
                                              SameIntervalTopicReuseStrategy reuse) {
        List<Long> waits = new BackOffValuesGenerator(attempts, backOff).generateValues();
        List<DestinationTopic.Properties> retryTopics = new DestinationTopicPropertiesFactory("-retry", "-dlt", waits,
                ExceptionMatcher.defaultMatcher(), 1, null, DltStrategy.FAIL_ON_ERROR,
                org.springframework.kafka.retrytopic.TopicSuffixingStrategy.valueOf(suffixing.name()),
                org.springframework.kafka.retrytopic.SameIntervalTopicReuseStrategy.valueOf(reuse.name()), 0)
                .createProperties().stream().filter(DestinationTopic.Properties::isRetryTopic).toList();
        List<String> retries = new ArrayList<>();
        for (int i = 0; i < waits.size(); i++) {
            DestinationTopic.Properties topic = retryTopics.get(Math.min(i, retryTopics.size() - 1));
            assertThat(topic.delay()).isEqualTo(waits.get(i));
            retries.add("t" + topic.suffix() + "@" + waits.get(i));
        }
        return retries;
    }

    private static List<String> kafkoRetries(RetryTopics topics) {
        List<String> retries = new ArrayList<>();
        for (int attempt = 2; attempt <= topics.attempts(); attempt++) {
            retries.add(topics.topicOfAttempt(attempt) + "@" + topics.backOffBefore(attempt));
        }
        return retries;
    }

    private static long waitOf(String retry) {
        return Long.parseLong(retry.substring(retry.lastIndexOf('@') + 1));
    }

    @Test
    void theWaitsAndTheRetryTopicsAreSpringKafkasButWhereItsOwnArithmeticBreaks() throws Exception {
        Map<String, Integer> outcomes = new TreeMap<>();
        for (TopicSuffixingStrategy suffixing : TopicSuffixingStrategy.values()) {
            for (SameIntervalTopicReuseStrategy reuse : SameIntervalTopicReuseStrategy.values()) {
                for (long delay : DELAYS) {
                    for (double multiplier : MULTIPLIERS) {
                        for (long maxDelay : MAX_DELAYS) {
                            for (int attempts : ATTEMPTS) {
                                String what = "delay " + delay + ", multiplier " + multiplier + ", maxDelay "
                                        + maxDelay + ", attempts " + attempts + ", " + suffixing + ", " + reuse;
                                RetryTopics annotation = new RetryTopics("t", attempts, delay, multiplier, maxDelay,
                                        "-retry", "-dlt", List.of(), List.of()).withTopicNaming(suffixing, reuse);
                                outcomes.merge("annotation: " + compare(what, kafkoRetries(annotation), springRetries(
                                        annotationBackOff(delay, multiplier, maxDelay), attempts, suffixing, reuse),
                                        multiplier, delay, maxDelay), 1, Integer::sum);
                                RetryTopicConfigurationBuilder builder = RetryTopicConfigurationBuilder.newInstance()
                                        .exponentialBackoff(delay, multiplier, maxDelay).maxAttempts(attempts)
                                        .sameIntervalTopicReuseStrategy(reuse);
                                if (suffixing == TopicSuffixingStrategy.SUFFIX_WITH_INDEX_VALUE) {
                                    builder.suffixTopicsWithIndexValues();
                                }
                                List<String> kafko = kafkoRetries(builder.create().plan("t"));
                                BackOff spring;
                                try {
                                    // kafko's maxInterval of 0 is none: spring-kafka's longest interval
                                    spring = builderBackOff(delay, multiplier, maxDelay == 0 ? MAX : maxDelay);
                                } catch (IllegalArgumentException e) {
                                    // README: an initialInterval of 0, a multiplier of 0 or 1, a maxInterval not
                                    // above the initial one (none is not above Long.MAX_VALUE), which kafko takes and
                                    // spring-kafka's builder refuses
                                    long longest = maxDelay == 0 ? MAX : maxDelay;
                                    assertThat(delay == 0 || multiplier <= 1 || delay >= longest)
                                            .as(what).isTrue();
                                    outcomes.merge("builder: refused by spring-kafka only", 1, Integer::sum);
                                    continue;
                                }
                                outcomes.merge("builder: " + compare(what, kafko,
                                        springRetries(spring, attempts, suffixing, reuse), multiplier, delay,
                                        maxDelay), 1, Integer::sum);
                            }
                        }
                    }
                }
            }
        }
        // the same for all but two kinds of combinations, both beyond 2^53 ms (285,000 years), where spring-kafka's
        // own arithmetic breaks: kafko's waits keep their back-off there
        // (spring-kafka's builder refuses a multiplier of 1, so that its rounding is the annotation's alone)
        assertThat(outcomes).isEqualTo(Map.of("annotation: same", 42_936, "annotation: spring-kafka stops", 456,
                "annotation: spring-kafka rounds", 672, "builder: same", 16_316, "builder: spring-kafka stops", 64,
                "builder: refused by spring-kafka only", 27_684));
    }

    /**
     * "same"; or one of spring-kafka's two breakdowns, kafko's waits checked there: "stops" (spring-core's
     * {@code ExponentialBackOff} counts the time it has waited in a long, and once that reaches
     * {@code Long.MAX_VALUE} it answers {@link BackOffExecution#STOP}, -1, which spring-kafka takes for a wait and
     * names a topic {@code t-retry--1} after), "rounds" (a fixed back-off spring-kafka makes a multiplied one of 1,
     * whose delay above 2^53 a double rounds up at each retry: 9223372036854775 then 9223372036854776).
     */
    private static String compare(String what, List<String> kafko, List<String> spring, double multiplier, long delay,
                                  long maxDelay) {
        if (kafko.equals(spring)) {
            return "same";
        }
        long cap = maxDelay == 0 ? MAX : maxDelay;
        boolean rounds = (multiplier == 0 || multiplier == 1) && delay > 1L << 53;
        if (rounds) {
            // kafko: a fixed back-off, the same wait at every retry
            assertThat(kafko).as(what).allSatisfy(retry -> assertThat(waitOf(retry)).isEqualTo(Math.min(delay, cap)));
        }
        int stop = -1;
        for (int i = 0; i < spring.size() && stop < 0; i++) {
            if (waitOf(spring.get(i)) == BackOffExecution.STOP) {
                stop = i;
            }
        }
        if (stop >= 0) {
            for (int i = 0; i < stop && !rounds; i++) {
                assertThat(waitOf(kafko.get(i))).as(what).isEqualTo(waitOf(spring.get(i)));
            }
            // kafko goes on growing its back-off up to its cap, where spring-kafka waits -1 (at once)
            for (int i = stop; i < kafko.size(); i++) {
                assertThat(waitOf(kafko.get(i))).as(what).isGreaterThanOrEqualTo(waitOf(kafko.get(i - 1)))
                        .isLessThanOrEqualTo(cap);
            }
            return rounds ? "spring-kafka rounds" : "spring-kafka stops";
        }
        assertThat(rounds).as(what + ": kafko " + kafko + ", spring-kafka " + spring).isTrue();
        return "spring-kafka rounds";
    }

    @Test
    void theFirstStopSpringKafkaNamesIsAtTheSixtyFourthRetryOfOneMillisecondDoubled() throws Exception {
        // 1 + 2 + ... + 2^62 ms is Long.MAX_VALUE: spring-core's ExponentialBackOff stops there, and spring-kafka
        // names the 64th retry's topic t-retry--1 and forwards it to be due a millisecond before it failed
        List<String> spring = springRetries(annotationBackOff(1, 2, 0), 65,
                TopicSuffixingStrategy.SUFFIX_WITH_DELAY_VALUE, SameIntervalTopicReuseStrategy.SINGLE_TOPIC);
        assertThat(spring.get(63)).isEqualTo("t-retry--1@-1");
        RetryTopics kafko = new RetryTopics("t", 65, 1, 2, 0, "-retry", "-dlt", List.of(), List.of());
        assertThat(kafko.topicOfAttempt(65)).isEqualTo("t-retry-" + MAX);
        assertThat(kafko.backOffBefore(64)).isEqualTo(1L << 62);
        assertThat(kafko.backOffBefore(65)).isEqualTo(MAX);
    }

    @Test
    void aJitterOfAnUnboundedBackOffStaysBetweenTheDelayAndTheLongestWait() {
        // spring-core's ExponentialBackOff adds the scaled jitter to the interval without a bound: near Long.MAX_VALUE
        // its upper end overflows (2^62 ms doubled with a jitter of 1 s draws a negative wait half the time); kafko's
        // bounds saturate, never below the delay nor negative
        for (long delay : new long[] {1, 1_000, 1L << 40, MAX / 4, MAX / 2, MAX}) {
            for (double multiplier : new double[] {0, 1.5, 2, 1_000}) {
                for (long maxDelay : new long[] {0, 1_000_000_000, MAX}) {
                    for (long jitter : new long[] {1, 1_000, MAX / 2, MAX}) {
                        RetryTopics topics = new RetryTopics("t", 100, delay, multiplier, maxDelay, "-retry", "-dlt",
                                List.of(), List.of()).withJitter(jitter);
                        for (int attempt = 2; attempt <= 100; attempt++) {
                            long shortest = topics.shortestWaitBefore(attempt);
                            long longest = topics.longestWaitBefore(attempt);
                            long wait = topics.waitBefore(attempt);
                            assertThat(shortest).isGreaterThanOrEqualTo(Math.min(delay, maxDelay == 0 ? MAX : maxDelay))
                                    .isLessThanOrEqualTo(longest);
                            assertThat(longest).isLessThanOrEqualTo(maxDelay == 0 ? MAX : maxDelay);
                            assertThat(wait).isBetween(shortest, longest);
                        }
                    }
                }
            }
        }
    }
}
