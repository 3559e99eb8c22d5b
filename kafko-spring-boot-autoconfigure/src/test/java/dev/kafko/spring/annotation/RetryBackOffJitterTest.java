package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Consumer;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.listener.RetryTopics;
import dev.kafko.spring.retrytopic.RetryTopicConfiguration;
import dev.kafko.spring.retrytopic.RetryTopicConfigurationBuilder;
import dev.kafko.spring.support.KafkoHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * A back-off's {@code jitter} ({@code @BackOff(jitter)}, the builder's {@code exponentialBackoff} with a jitter) and
 * the builder's {@code uniformRandomBackoff}: each record's wait drawn anew, in the range spring-core's
 * {@code ExponentialBackOff} draws it from, with the retry topics named by the back-offs without jitter.
 */
class RetryBackOffJitterTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @Test
    void eachRetryWaitsWithinTheRangeSpringCoresExponentialBackOffDrawsFrom() {
        int combinations = 0;
        for (long delay : new long[] {100, 1_000, 1_500}) {
            for (double multiplier : new double[] {0, 1.5, 2, 3}) {
                for (long maxDelay : new long[] {0, 2_000, 20_000}) {
                    for (long jitter : new long[] {10, 100, 700}) {
                        RetryTopics kafko = new RetryTopics("t", 7, delay, multiplier, maxDelay, "-retry", "-dlt",
                                List.of(), List.of()).withJitter(jitter);
                        ExponentialBackOff spring = new ExponentialBackOff(delay, multiplier == 0 ? 1 : multiplier);
                        spring.setMaxInterval(maxDelay == 0 ? Long.MAX_VALUE : maxDelay);
                        spring.setJitter(jitter);
                        assertSameRange(kafko, spring, delay + "/" + multiplier + "/" + maxDelay + "/" + jitter);
                        combinations++;
                    }
                }
            }
        }
        assertThat(combinations).isEqualTo(108);
    }

    /** Each retry's wait: spring-core's 400 draws and kafko's 400 fill the same range, kafko's from its bounds. */
    private static void assertSameRange(RetryTopics kafko, ExponentialBackOff spring, String combination) {
        int retries = kafko.attempts() - 1;
        long[] springLow = new long[retries];
        long[] springHigh = new long[retries];
        Arrays.fill(springLow, Long.MAX_VALUE);
        for (int draw = 0; draw < 400; draw++) {
            BackOffExecution execution = spring.start();
            for (int i = 0; i < retries; i++) {
                long wait = execution.nextBackOff();
                springLow[i] = Math.min(springLow[i], wait);
                springHigh[i] = Math.max(springHigh[i], wait);
            }
        }
        for (int i = 0; i < retries; i++) {
            int attempt = i + 2;
            long shortest = kafko.shortestWaitBefore(attempt);
            long longest = kafko.longestWaitBefore(attempt);
            String where = combination + ", retry " + (i + 1) + ": kafko " + shortest + ".." + longest + ", spring "
                    + springLow[i] + ".." + springHigh[i];
            long slack = Math.max(1, (longest - shortest) / 20);
            assertThat(springLow[i]).as(where).isGreaterThanOrEqualTo(shortest).isLessThanOrEqualTo(shortest + slack);
            if (longest > shortest) {
                assertThat(springHigh[i]).as(where).isLessThan(longest).isGreaterThanOrEqualTo(longest - slack);
            } else {
                assertThat(springHigh[i]).as(where).isEqualTo(longest);
            }
            long low = Long.MAX_VALUE;
            long high = 0;
            for (int draw = 0; draw < 400; draw++) {
                long wait = kafko.waitBefore(attempt);
                low = Math.min(low, wait);
                high = Math.max(high, wait);
            }
            assertThat(low).as(where).isGreaterThanOrEqualTo(shortest).isLessThanOrEqualTo(shortest + slack);
            assertThat(high).as(where).isLessThanOrEqualTo(Math.max(shortest, longest - 1))
                    .isGreaterThanOrEqualTo(longest - slack);
        }
    }

    @Test
    void aJitterKeepsTheNamesAndTheBackOffsWithoutIt() {
        RetryTopics plain = new RetryTopics("orders", 5, 1_000, 2, 5_000, "-retry", "-dlt", List.of(), List.of());
        RetryTopics jittered = plain.withJitter(300);
        assertThat(jittered.retryTopics()).isEqualTo(plain.retryTopics())
                .containsExactly("orders-retry-1000", "orders-retry-2000", "orders-retry-4000", "orders-retry-5000");
        for (int attempt = 2; attempt <= 5; attempt++) {
            assertThat(jittered.backOffBefore(attempt)).isEqualTo(plain.backOffBefore(attempt));
            assertThat(jittered.topicOfAttempt(attempt)).isEqualTo(plain.topicOfAttempt(attempt));
            assertThat(plain.shortestWaitBefore(attempt)).isEqualTo(plain.longestWaitBefore(attempt))
                    .isEqualTo(plain.waitBefore(attempt)).isEqualTo(plain.backOffBefore(attempt));
        }
        // 1 s, then 2 s with twice the jitter, 4 s with four times, the cap of 5 s with five times, cut at the cap
        assertThat(List.of(jittered.shortestWaitBefore(2), jittered.longestWaitBefore(2),
                jittered.shortestWaitBefore(3), jittered.longestWaitBefore(3), jittered.shortestWaitBefore(4),
                jittered.longestWaitBefore(4), jittered.shortestWaitBefore(5), jittered.longestWaitBefore(5)))
                .containsExactly(1_000L, 1_300L, 1_400L, 2_600L, 2_800L, 5_000L, 3_500L, 5_000L);
        assertThat(jittered.withJitter(0).longestWaitBefore(3)).isEqualTo(2_000);
    }

    @Test
    void aNegativeJitterOrOneWithoutADelayIsRefusedNamingIt() {
        RetryTopics plain = new RetryTopics("orders", 3, 1_000, 0, 0, "-retry", "-dlt", List.of(), List.of());
        assertThatThrownBy(() -> plain.withJitter(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the back-off's jitter must not be negative, was -1");
        RetryTopics none = new RetryTopics("orders", 3, 0, 0, 0, "-retry", "-dlt", List.of(), List.of());
        assertThatThrownBy(() -> none.withJitter(50)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the back-off's jitter (50 ms) needs a delay above 0 to be scaled by");
        runner.withPropertyValues("kafko.topics.neg.partitions=1", "retry.jitter=-5ms").withBean(NegativeJitter.class)
                .run(context -> assertThat(context).getFailure().rootCause()
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("jitter must not be negative, was -5"));
        runner.withPropertyValues("kafko.topics.neg.partitions=1", "retry.jitter=soon")
                .withBean(NegativeJitter.class).run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("@RetryableTopic listener 'neg'")
                        .hasStackTraceContaining("backOff jitterString 'soon' is not a duration"));
    }

    @Test
    void theAnnotationsJitterSpreadsTheDueTimeOfEachForwardedRecordAndKeepsTheTopicName() {
        runner.withPropertyValues("kafko.topics.jit.partitions=1").withBean(Jittered.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainerIds())
                    .contains("jit", "jit-retry", "jit-dlt");
            LogBackend backend = context.getBean(LogBackend.class);
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            long before = backend.currentTimeMillis();
            for (int i = 0; i < 20; i++) {
                template.send("jit", "r" + i).join();
            }
            List<Long> waits = new ArrayList<>();
            try (Consumer consumer = context.getBean(Kafko.class).consumer("jit-retry")) {
                for (int polls = 0; polls < 60 && waits.size() < 20; polls++) {
                    List<KafkoRecord> records = consumer.poll(Duration.ofSeconds(1));
                    long readAt = backend.currentTimeMillis();
                    for (KafkoRecord record : records) {
                        long due = Long.parseLong(new String(
                                record.headers().lastValue(KafkoHeaders.RETRY_BACKOFF_TIMESTAMP),
                                StandardCharsets.UTF_8));
                        // forwarded between the first send and its read: a wait of at least the delay, below the
                        // delay and the jitter
                        assertThat(due).isGreaterThanOrEqualTo(before + 1).isLessThan(readAt + 3_600_001);
                        waits.add(due - readAt);
                    }
                }
            }
            assertThat(waits).hasSize(20);
            // without the jitter every record would be due a millisecond after its forwarding, before now
            assertThat(waits).anyMatch(wait -> wait > 60_000);
        });
    }

    @Test
    void theBuildersJitterAndUniformRandomBackOffDrawEachWait() {
        RetryTopicConfiguration jittered = RetryTopicConfigurationBuilder.newInstance()
                .exponentialBackoff(100, 2, 1_000, 40).maxAttempts(4).create();
        RetryTopics plan = jittered.plan("orders");
        assertThat(plan.retryTopics()).containsExactly("orders-retry-100", "orders-retry-200", "orders-retry-400");
        assertThat(List.of(plan.shortestWaitBefore(2), plan.longestWaitBefore(2), plan.shortestWaitBefore(4),
                plan.longestWaitBefore(4))).containsExactly(100L, 140L, 240L, 560L);

        RetryTopics uniform = RetryTopicConfigurationBuilder.newInstance().uniformRandomBackoff(100, 300)
                .maxAttempts(3).create().plan("orders");
        assertThat(uniform.retryTopics()).containsExactly("orders-retry-0", "orders-retry-1");
        assertThat(uniform.backOffBefore(2)).isEqualTo(200);
        long low = Long.MAX_VALUE;
        long high = 0;
        for (int draw = 0; draw < 2_000; draw++) {
            long wait = uniform.waitBefore(3);
            low = Math.min(low, wait);
            high = Math.max(high, wait);
        }
        assertThat(low).isBetween(100L, 110L);
        assertThat(high).isBetween(290L, 299L);
        assertThat(RetryTopicConfigurationBuilder.newInstance().useSingleTopicForSameIntervals()
                .uniformRandomBackoff(100, 300).create().plan("orders").retryTopics()).containsExactly("orders-retry");

        // a later back-off replaces the random one and its jitter
        RetryTopics fixed = RetryTopicConfigurationBuilder.newInstance().uniformRandomBackoff(100, 300)
                .exponentialBackoff(100, 2, 1_000, 40).fixedBackOff(50).create().plan("orders");
        assertThat(List.of(fixed.shortestWaitBefore(3), fixed.longestWaitBefore(3), fixed.waitBefore(3)))
                .containsExactly(50L, 50L, 50L);
        assertThatThrownBy(() -> RetryTopicConfigurationBuilder.newInstance().uniformRandomBackoff(300, 100).create())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("uniformRandomBackoff needs 0 <= minInterval <= maxInterval, was 300 and 100");
    }

    @Test
    void theBuildersMaxIntervalOfZeroIsNoneNotEveryBackOff() {
        // README: a maxInterval not above the initial one is every back-off, but 0 is none (no cap)
        RetryTopics none = RetryTopicConfigurationBuilder.newInstance().exponentialBackoff(1_000, 2, 0, 500)
                .maxAttempts(4).create().plan("orders");
        assertThat(none.retryTopics()).containsExactly("orders-retry-1000", "orders-retry-2000", "orders-retry-4000");
        assertThat(List.of(none.shortestWaitBefore(4), none.longestWaitBefore(4))).containsExactly(2_000L, 6_000L);
        RetryTopics below = RetryTopicConfigurationBuilder.newInstance().exponentialBackoff(1_000, 2, 500)
                .maxAttempts(3).useSingleTopicForSameIntervals().create().plan("orders");
        assertThat(List.of(below.backOffBefore(2), below.backOffBefore(3))).containsExactly(500L, 500L);
    }

    @Test
    void aUniformRandomBackOffWithANegativeMinimumIsRefusedNamingItNotTakenForNoBackOff() {
        // (-100, 100) was taken as no random back-off, its midpoint 0 as the wait: every retry at once
        assertThatThrownBy(() -> RetryTopicConfigurationBuilder.newInstance().uniformRandomBackoff(-100, 100).create())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("uniformRandomBackoff needs 0 <= minInterval <= maxInterval, was -100 and 100");
        // (-300, -100) was refused as a negative delay, a setting the code never named
        assertThatThrownBy(() -> RetryTopicConfigurationBuilder.newInstance().uniformRandomBackoff(-300, -100)
                .create()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("uniformRandomBackoff needs 0 <= minInterval <= maxInterval, was -300 and -100");
        RetryTopics replaced = RetryTopicConfigurationBuilder.newInstance().uniformRandomBackoff(-100, 100)
                .fixedBackOff(50).create().plan("orders");
        assertThat(replaced.waitBefore(2)).isEqualTo(50);
        RetryTopics zero = RetryTopicConfigurationBuilder.newInstance().uniformRandomBackoff(0, 0).create()
                .plan("orders");
        assertThat(zero.waitBefore(2)).isZero();
    }

    static class Jittered {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 1, jitter = 3_600_000))
        @KafkoListener(id = "jit", topics = "jit")
        void on(String value) {
            throw new IllegalStateException("fails " + value);
        }
    }

    static class NegativeJitter {
        @RetryableTopic(backOff = @BackOff(delay = 10, jitterString = "${retry.jitter}"))
        @KafkoListener(id = "neg", topics = "neg")
        void on(String value) {
        }
    }
}
