package dev.kafko.spring.retrytopic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.DltStrategy;
import dev.kafko.spring.listener.RetryTopics;
import dev.kafko.spring.listener.SameIntervalTopicReuseStrategy;
import dev.kafko.spring.listener.TopicSuffixingStrategy;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;
import org.springframework.util.backoff.FixedBackOff;

/** {@code RetryTopicConfigurationBuilder.customBackoff}: the back-offs of a {@code BackOff} of the application's own. */
class CustomBackOffTest {

    static final List<String> CALLS = new CopyOnWriteArrayList<>();
    static final List<String> DEAD = new CopyOnWriteArrayList<>();

    /** Yields these back-offs, then {@code STOP}, at each start; counts its starts. */
    static final class Given implements BackOff {
        final long[] backOffs;
        final AtomicInteger starts = new AtomicInteger();

        Given(long... backOffs) {
            this.backOffs = backOffs;
        }

        @Override
        public BackOffExecution start() {
            starts.incrementAndGet();
            AtomicInteger next = new AtomicInteger();
            return () -> next.get() < backOffs.length ? backOffs[next.getAndIncrement()] : BackOffExecution.STOP;
        }

        @Override
        public String toString() {
            return "Given" + java.util.Arrays.toString(backOffs);
        }
    }

    @Test
    void theBackOffsAreDrawnOnceAndNameTheRetryTopicsEvenWhenTheyDoNotGrow() {
        Given given = new Given(30, 10, 20, 99);
        RetryTopicConfiguration config = RetryTopicConfigurationBuilder.newInstance().customBackoff(given)
                .maxAttempts(4).create();
        RetryTopics plan = config.plan("t");
        assertThat(plan.attempts()).isEqualTo(4);
        assertThat(plan.retryTopics()).containsExactly("t-retry-30", "t-retry-10", "t-retry-20");
        assertThat(List.of(plan.backOffBefore(2), plan.backOffBefore(3), plan.backOffBefore(4)))
                .containsExactly(30L, 10L, 20L);
        assertThat(List.of(plan.topicOfAttempt(2), plan.topicOfAttempt(3), plan.topicOfAttempt(4)))
                .containsExactly("t-retry-30", "t-retry-10", "t-retry-20");
        assertThat(plan.shortestWaitBefore(3)).isEqualTo(plan.longestWaitBefore(3)).isEqualTo(plan.waitBefore(3))
                .as("no jitter").isEqualTo(10);
        assertThat(plan.dltBackOff()).as("the last retry's").isEqualTo(20);
        assertThat(config.plan("u").retryTopics()).as("the same draw for every topic")
                .containsExactly("u-retry-30", "u-retry-10", "u-retry-20");
        assertThat(given.starts).as("drawn when the builder creates, a second time to compare").hasValue(2);
    }

    @Test
    void backOffsThatADrawAnewChangesNameTheRetryTopicsByIndexSoThatTheNextStartReadsThem() {
        AtomicInteger starts = new AtomicInteger();
        BackOff drifting = () -> { // each start's back-offs 1 ms longer than the last's
            long shift = starts.incrementAndGet();
            AtomicInteger next = new AtomicInteger();
            return () -> 10 * next.incrementAndGet() + shift;
        };
        RetryTopics plan = RetryTopicConfigurationBuilder.newInstance().customBackoff(drifting)
                .useSingleTopicForSameIntervals().maxAttempts(4).create().plan("t");
        assertThat(plan.retryTopics()).as("one per retry, by index, whatever the strategies")
                .containsExactly("t-retry-0", "t-retry-1", "t-retry-2");
        assertThat(List.of(plan.backOffBefore(2), plan.backOffBefore(3), plan.backOffBefore(4)))
                .as("the first draw's").containsExactly(11L, 21L, 31L);

        ExponentialBackOff jittered = new ExponentialBackOff(1_000, 2);
        jittered.setJitter(500);
        List<List<String>> names = new java.util.ArrayList<>();
        for (int start = 0; start < 3; start++) {
            names.add(RetryTopicConfigurationBuilder.newInstance().customBackoff(jittered).maxAttempts(4).create()
                    .plan("t").retryTopics());
        }
        assertThat(names).as("the same topics at every start").containsOnly(List.of("t-retry-0", "t-retry-1",
                "t-retry-2"));
    }

    @Test
    void aJitteredExponentialBackOffWhoseTwoDrawsCameOutEqualIsStillNamedByIndex() {
        // spring-core's jitter draws each back-off from a range that can be a few milliseconds wide (1000 ms, then
        // 1998 to 2001 ms under a jitter of 1 ms): two draws are then equal by chance (here one start in four), and
        // a start where they were named its topics after the back-offs, the next one by index, leaving the records
        // of the last start's topics unread; this one's draws are equal at every start
        ExponentialBackOff sameTwice = new ExponentialBackOff(1_000, 2) {
            @Override
            public BackOffExecution start() {
                AtomicInteger next = new AtomicInteger();
                return () -> next.incrementAndGet() == 1 ? 1_000 : 2_000;
            }
        };
        sameTwice.setJitter(1);
        assertThat(RetryTopicConfigurationBuilder.newInstance().customBackoff(sameTwice).maxAttempts(3).create()
                .plan("t").retryTopics()).as("by index, as at a start whose draws differed")
                .containsExactly("t-retry-0", "t-retry-1");

        ExponentialBackOff narrow = new ExponentialBackOff(1_000, 2);
        narrow.setJitter(1);
        java.util.Set<List<String>> names = new java.util.HashSet<>();
        for (int start = 0; start < 64; start++) {
            names.add(RetryTopicConfigurationBuilder.newInstance().customBackoff(narrow).maxAttempts(3).create()
                    .plan("t").retryTopics());
        }
        assertThat(names).as("the same topics at every start").containsExactly(List.of("t-retry-0", "t-retry-1"));

        assertThat(RetryTopicConfigurationBuilder.newInstance().customBackoff(new Given(1_000, 2_000))
                .suffixTopicsWithIndexValues().maxAttempts(3).create().plan("t").retryTopics())
                .as("a random BackOff of the application's own whose draws can come out equal: by index when asked")
                .containsExactly("t-retry-0", "t-retry-1");

        ExponentialBackOff without = new ExponentialBackOff(1_000, 2);
        assertThat(RetryTopicConfigurationBuilder.newInstance().customBackoff(without).maxAttempts(3).create()
                .plan("t").retryTopics()).as("no jitter: named by its back-offs")
                .containsExactly("t-retry-1000", "t-retry-2000");
    }

    @Test
    void aBackOffOfSeveralRetriesApartHasATopicEachNumberedAsSpringKafkaNumbersThemOrOneTopic() {
        RetryTopics multiple = RetryTopicConfigurationBuilder.newInstance().customBackoff(new Given(10, 20, 10))
                .maxAttempts(4).create().plan("t");
        assertThat(multiple.retryTopics()).as("no two retries share a topic's name; spring-kafka's names, numbered by"
                + " the distance from the back-off's first retry").containsExactly("t-retry-10-0", "t-retry-20",
                "t-retry-10-2");
        assertThat(multiple.topicOfAttempt(4)).isEqualTo("t-retry-10-2");
        RetryTopics twice = RetryTopicConfigurationBuilder.newInstance().customBackoff(new Given(10, 20, 10, 10))
                .maxAttempts(5).create().plan("t");
        assertThat(twice.retryTopics())
                .containsExactly("t-retry-10-0", "t-retry-20", "t-retry-10-2", "t-retry-10-3");

        RetryTopics single = RetryTopicConfigurationBuilder.newInstance().customBackoff(new Given(10, 20, 10))
                .useSingleTopicForSameIntervals().maxAttempts(4).create().plan("t");
        assertThat(single.retryTopics()).containsExactly("t-retry-10", "t-retry-20");
        assertThat(List.of(single.topicOfAttempt(2), single.topicOfAttempt(3), single.topicOfAttempt(4)))
                .containsExactly("t-retry-10", "t-retry-20", "t-retry-10");

        RetryTopics byIndex = RetryTopicConfigurationBuilder.newInstance().customBackoff(new Given(10, 20, 10))
                .suffixTopicsWithIndexValues().maxAttempts(4).create().plan("t");
        assertThat(byIndex.retryTopics()).containsExactly("t-retry-0", "t-retry-1", "t-retry-2");
    }

    @Test
    void springCoresBackOffsGiveTheBackOffsTheirOwnSettingsWould() {
        RetryTopics fixed = RetryTopicConfigurationBuilder.newInstance().customBackoff(new FixedBackOff(25, 5))
                .maxAttempts(3).create().plan("t");
        assertThat(fixed.retryTopics()).containsExactly("t-retry-0", "t-retry-1");
        assertThat(fixed.backOffBefore(3)).isEqualTo(25);
        RetryTopics asFixed = RetryTopicConfigurationBuilder.newInstance().fixedBackOff(25).maxAttempts(3).create()
                .plan("t");
        assertThat(asFixed.retryTopics()).isEqualTo(fixed.retryTopics());

        ExponentialBackOff exponential = new ExponentialBackOff(100, 2);
        exponential.setMaxInterval(500);
        RetryTopics custom = RetryTopicConfigurationBuilder.newInstance().customBackoff(exponential).maxAttempts(6)
                .create().plan("t");
        RetryTopics own = RetryTopicConfigurationBuilder.newInstance().exponentialBackoff(100, 2, 500).maxAttempts(6)
                .create().plan("t");
        assertThat(custom.retryTopics()).isEqualTo(own.retryTopics())
                .containsExactly("t-retry-100", "t-retry-200", "t-retry-400", "t-retry-500-0", "t-retry-500-1");
    }

    @Test
    void springCoresBackOffsNameTheirTopicsAsTheBuildersOwnSettingsUnderEveryNamingStrategy() {
        for (int attempts = 1; attempts <= 7; attempts++) {
            for (boolean single : new boolean[] {false, true}) {
                for (boolean byIndex : new boolean[] {false, true}) {
                    ExponentialBackOff exponential = new ExponentialBackOff(100, 2);
                    exponential.setMaxInterval(500);
                    RetryTopicConfigurationBuilder[] pairs = {
                        RetryTopicConfigurationBuilder.newInstance().customBackoff(new FixedBackOff(25)),
                        RetryTopicConfigurationBuilder.newInstance().fixedBackOff(25),
                        RetryTopicConfigurationBuilder.newInstance().customBackoff(exponential),
                        RetryTopicConfigurationBuilder.newInstance().exponentialBackoff(100, 2, 500),
                        RetryTopicConfigurationBuilder.newInstance().customBackoff(new FixedBackOff(0)),
                        RetryTopicConfigurationBuilder.newInstance().noBackoff()};
                    for (int i = 0; i < pairs.length; i += 2) {
                        RetryTopics custom = withStrategies(pairs[i], single, byIndex).maxAttempts(attempts).create()
                                .plan("t");
                        RetryTopics own = withStrategies(pairs[i + 1], single, byIndex).maxAttempts(attempts)
                                .create().plan("t");
                        String what = "pair " + i / 2 + ", " + attempts + " attempts, single " + single
                                + ", by index " + byIndex;
                        assertThat(custom.retryTopics()).as(what).isEqualTo(own.retryTopics());
                        for (int attempt = 2; attempt <= attempts; attempt++) {
                            assertThat(custom.topicOfAttempt(attempt)).as(what).isEqualTo(own.topicOfAttempt(attempt));
                            assertThat(custom.backOffBefore(attempt)).as(what).isEqualTo(own.backOffBefore(attempt));
                        }
                        assertThat(custom.dltTopic()).as(what).isEqualTo(own.dltTopic());
                        if (attempts > 1) {
                            assertThat(custom.dltBackOff()).as(what).isEqualTo(own.dltBackOff());
                        }
                    }
                }
            }
        }
    }

    private static RetryTopicConfigurationBuilder withStrategies(RetryTopicConfigurationBuilder builder,
                                                                 boolean single, boolean byIndex) {
        if (single) {
            builder.useSingleTopicForSameIntervals();
        }
        return byIndex ? builder.suffixTopicsWithIndexValues() : builder;
    }

    @Test
    void maxAttemptsSetBeforeTheBackOffDrawsAsManyAsSetAfterIt() {
        Given given = new Given(5, 6, 7);
        RetryTopics before = RetryTopicConfigurationBuilder.newInstance().maxAttempts(3).customBackoff(given).create()
                .plan("t");
        assertThat(before.retryTopics()).containsExactly("t-retry-5", "t-retry-6");
        RetryTopics after = RetryTopicConfigurationBuilder.newInstance().customBackoff(given).maxAttempts(3).create()
                .plan("t");
        assertThat(after.retryTopics()).isEqualTo(before.retryTopics());
    }

    @Test
    void aBackOffThatThrowsFailsTheCreateWithItsOwnException() {
        IllegalStateException broken = new IllegalStateException("no back-offs today");
        assertThatIllegalStateException().isThrownBy(() -> RetryTopicConfigurationBuilder.newInstance()
                .customBackoff(() -> {
                    throw broken;
                }).create()).isSameAs(broken);
        AtomicInteger starts = new AtomicInteger();
        BackOff secondStartThrows = () -> {
            if (starts.incrementAndGet() > 1) {
                throw broken;
            }
            return () -> 10;
        };
        assertThatIllegalStateException().as("the second draw, which compares, is a draw as the first")
                .isThrownBy(() -> RetryTopicConfigurationBuilder.newInstance().customBackoff(secondStartThrows)
                        .create()).isSameAs(broken);
    }

    @Test
    void zeroAndTheLongestBackOffAreNamedAndWaitedAsGiven() {
        RetryTopics plan = RetryTopicConfigurationBuilder.newInstance().customBackoff(new Given(0, Long.MAX_VALUE))
                .create().plan("t");
        assertThat(plan.retryTopics()).containsExactly("t-retry-0", "t-retry-" + Long.MAX_VALUE);
        assertThat(plan.waitBefore(2)).isZero();
        assertThat(plan.waitBefore(3)).isEqualTo(Long.MAX_VALUE);
        assertThat(plan.dltBackOff()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void oneAttemptDrawsNothingAndGoesToTheDeadLetterTopicAtOnce() {
        Given given = new Given();
        RetryTopics plan = RetryTopicConfigurationBuilder.newInstance().customBackoff(given).maxAttempts(1).create()
                .plan("t");
        assertThat(plan.retryTopics()).isEmpty();
        assertThat(plan.dltTopic()).isEqualTo("t-dlt");
        assertThat(plan.dltBackOff()).isZero();
    }

    @Test
    void aBackOffThatStopsTooSoonOrGoesBelowZeroIsRefusedNamingTheRetry() {
        assertThatIllegalArgumentException().isThrownBy(() -> RetryTopicConfigurationBuilder.newInstance()
                        .customBackoff(new FixedBackOff(10, 1)).maxAttempts(3).create())
                .withMessageStartingWith("the customBackoff FixedBackOff")
                .withMessageEndingWith(" stopped after 1 back-offs, where maxAttempts(3) needs 2: give it more, or"
                        + " fewer attempts");
        assertThatIllegalArgumentException().isThrownBy(() -> RetryTopicConfigurationBuilder.newInstance()
                        .customBackoff(new Given(10, -5)).maxAttempts(3).create())
                .withMessage("the customBackoff Given[10, -5] gave a negative back-off, -5 ms, before retry 2");
        assertThatIllegalArgumentException().isThrownBy(() -> RetryTopicConfigurationBuilder.newInstance()
                        .customBackoff(new Given(10)).maxAttempts(0).create())
                .withMessage("attempts must be at least 1, was 0");
        assertThatNullPointerException().isThrownBy(() -> RetryTopicConfigurationBuilder.newInstance()
                .customBackoff(null)).withMessage("backOff");
    }

    @Test
    void backOffsGivenToTheRetryTopicsThemselvesAreCheckedNamingTheRetry() {
        assertThatIllegalArgumentException().isThrownBy(() -> new RetryTopics("t", new long[] {10, 20, -1}, "-retry",
                        "-dlt", List.of(), List.of(), DltStrategy.FAIL_ON_ERROR,
                        TopicSuffixingStrategy.SUFFIX_WITH_DELAY_VALUE, SameIntervalTopicReuseStrategy.MULTIPLE_TOPICS))
                .withMessage("the back-off before retry 3 must not be negative, was -1");
        long[] given = {10, 20, 10};
        RetryTopics plan = new RetryTopics("t", given, "-retry", "-dlt", List.of(), List.of(),
                DltStrategy.FAIL_ON_ERROR, TopicSuffixingStrategy.SUFFIX_WITH_DELAY_VALUE,
                SameIntervalTopicReuseStrategy.MULTIPLE_TOPICS);
        given[2] = 99;
        assertThat(plan.retryTopics()).as("a copy of the array").containsExactly("t-retry-10-0", "t-retry-20",
                "t-retry-10-2");
        assertThat(plan.backOffBefore(4)).isEqualTo(10);
    }

    @Test
    void aLaterBackOffSettingReplacesItAndItReplacesAnEarlierOneJitterIncluded() {
        Given given = new Given(7, 8);
        RetryTopics fixed = RetryTopicConfigurationBuilder.newInstance().customBackoff(given).fixedBackOff(40)
                .maxAttempts(3).create().plan("t");
        assertThat(fixed.backOffBefore(2)).isEqualTo(40);
        assertThat(given.starts).as("never drawn").hasValue(0);
        RetryTopics random = RetryTopicConfigurationBuilder.newInstance().customBackoff(given)
                .uniformRandomBackoff(10, 20).maxAttempts(3).create().plan("t");
        assertThat(random.shortestWaitBefore(2)).isEqualTo(10);

        RetryTopics custom = RetryTopicConfigurationBuilder.newInstance().exponentialBackoff(1_000, 2, 10_000, 500)
                .customBackoff(given).maxAttempts(3).create().plan("t");
        assertThat(custom.retryTopics()).containsExactly("t-retry-7", "t-retry-8");
        assertThat(custom.shortestWaitBefore(2)).as("the jitter went with the back-off it was of")
                .isEqualTo(custom.longestWaitBefore(2)).isEqualTo(7);
        RetryTopics afterRandom = RetryTopicConfigurationBuilder.newInstance().uniformRandomBackoff(10, 20)
                .customBackoff(new Given(7, 8)).maxAttempts(3).create().plan("t");
        assertThat(afterRandom.waitBefore(3)).isEqualTo(8);
    }

    @Test
    void aListenerUnderABeanWithACustomBackOffIsRetriedThroughItsTopicsThenDeadLettered() {
        CALLS.clear();
        DEAD.clear();
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true", "kafko.topics.pay.partitions=2")
                .withUserConfiguration(CustomRetries.class).withBean(Listener.class)
                .withBean("deadLetters", DeadLetters.class).run(context -> {
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<String, String> template = context.getBean(KafkoTemplate.class);
                    template.send("pay", 1, "k", "never").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
                    assertThat(CALLS).containsExactly("pay:never", "pay-retry-15:never", "pay-retry-5:never");
                    assertThat(DEAD).containsExactly("pay-dlt:never");
                });
    }

    @Test
    void aRecordRetriedAgainAfterAnotherBackOffGoesThroughTheTopicSpringKafkaNamesForThatRetry() {
        CALLS.clear();
        DEAD.clear();
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true", "kafko.topics.pay.partitions=2")
                .withUserConfiguration(BackOffsApart.class).withBean(Listener.class)
                .withBean("deadLetters", DeadLetters.class).run(context -> {
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<String, String> template = context.getBean(KafkoTemplate.class);
                    template.send("pay", 1, "k", "never").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
                    assertThat(CALLS).containsExactly("pay:never", "pay-retry-5-0:never", "pay-retry-15:never",
                            "pay-retry-5-2:never");
                    assertThat(DEAD).containsExactly("pay-dlt:never");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class BackOffsApart {
        @Bean
        RetryTopicConfiguration payRetries() {
            return RetryTopicConfigurationBuilder.newInstance().customBackoff(new Given(5, 15, 5)).maxAttempts(4)
                    .includeTopic("pay").dltHandlerMethod("deadLetters", "handle").create();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CustomRetries {
        @Bean
        RetryTopicConfiguration payRetries() {
            return RetryTopicConfigurationBuilder.newInstance().customBackoff(new Given(15, 5)).maxAttempts(3)
                    .includeTopic("pay").dltHandlerMethod("deadLetters", "handle").create();
        }
    }

    static class Listener {
        @KafkoListener(id = "pay", topics = "pay")
        void pay(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            CALLS.add(topic + ":" + value);
            throw new IllegalStateException(value);
        }
    }

    static class DeadLetters {
        void handle(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            DEAD.add(topic + ":" + value);
        }
    }
}
