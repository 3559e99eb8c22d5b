package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import dev.kafko.Kafko;
import dev.kafko.spring.LogCapture;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.RetryTopics;
import dev.kafko.spring.retrytopic.RetryTopicConfigurationBuilder;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.util.backoff.BackOffExecution;

/**
 * The back-off jitter and the builder's random back-off against spring-kafka 4.0's: the ranges of the waits as
 * spring-kafka's {@code BackOffFactory} builds its back-off for {@code @BackOff} (through spring-core's
 * {@link RetryPolicy}), what the builder refuses, the duration texts {@code @BackOff}'s strings take, and the waits
 * of forwarded records from one start to the next.
 */
class RetryBackOffJitterReviewTest {

    /** Each retry delivery: when it came and the due time its header gave. */
    static final List<long[]> DELIVERIES = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @RegisterExtension
    final LogCapture containersLog = new LogCapture(RetryableTopicContainers.class);

    @BeforeEach
    void reset() {
        DELIVERIES.clear();
    }

    @Test
    void eachWaitIsInTheRangeOfTheBackOffSpringKafkasBackOffFactoryBuildsForTheAnnotation() {
        int combinations = 0;
        for (long delay : new long[] {1, 7, 100, 1_500, 40_000}) {
            for (double multiplier : new double[] {0, 1, 1.5, 2, 10}) {
                for (long maxDelay : new long[] {0, 1, 500, 20_000, 100_000}) {
                    for (long jitter : new long[] {1, 100, 5_000}) {
                        RetryTopics kafko = new RetryTopics("t", 6, delay, multiplier, maxDelay, "-retry", "-dlt",
                                List.of(), List.of()).withJitter(jitter);
                        // as BackOffFactory.createFromAnnotation: a maxDelay of 0 is none
                        long springMax = maxDelay;
                        RetryPolicy.Builder policy = RetryPolicy.builder().maxRetries(Long.MAX_VALUE)
                                .delay(Duration.ofMillis(delay)).jitter(Duration.ofMillis(jitter));
                        if (springMax != 0) {
                            policy.maxDelay(Duration.ofMillis(springMax));
                        }
                        if (multiplier != 0) {
                            policy.multiplier(multiplier);
                        }
                        assertSameRange(kafko, policy.build().getBackOff(),
                                delay + "/" + multiplier + "/" + maxDelay + "/" + jitter);
                        combinations++;
                    }
                }
            }
        }
        assertThat(combinations).isEqualTo(375);
    }

    @Test
    void theBuildersJitteredBackOffWaitsAsSpringCoresExponentialBackOffWithItsSettings() {
        for (long delay : new long[] {1, 100, 1_500}) {
            for (double multiplier : new double[] {1.5, 2, 10}) {
                for (long jitter : new long[] {0, 1, 100, 5_000}) {
                    long maxDelay = delay * 50;
                    RetryTopics kafko = RetryTopicConfigurationBuilder.newInstance()
                            .exponentialBackoff(delay, multiplier, maxDelay, jitter).maxAttempts(6).create()
                            .plan("t");
                    // spring-kafka's builder: new ExponentialBackOff(initial, multiplier), its maxInterval and jitter
                    org.springframework.util.backoff.ExponentialBackOff spring =
                            new org.springframework.util.backoff.ExponentialBackOff(delay, multiplier);
                    spring.setMaxInterval(maxDelay);
                    spring.setJitter(jitter);
                    assertSameRange(kafko, spring, delay + "/" + multiplier + "/" + maxDelay + "/" + jitter);
                }
            }
        }
    }

    /**
     * Every one of spring's 300 draws of each retry's wait is in kafko's range, and they reach its ends within a tenth
     * of it; so are kafko's.
     */
    private static void assertSameRange(RetryTopics kafko, org.springframework.util.backoff.BackOff spring,
                                        String combination) {
        int retries = kafko.attempts() - 1;
        long[] springLow = new long[retries];
        long[] springHigh = new long[retries];
        Arrays.fill(springLow, Long.MAX_VALUE);
        Arrays.fill(springHigh, Long.MIN_VALUE);
        for (int draw = 0; draw < 300; draw++) {
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
            long highest = Math.max(shortest, kafko.longestWaitBefore(attempt) - 1);
            long slack = Math.max(1, (highest - shortest) / 10);
            String where = combination + ", retry " + (i + 1) + ": kafko " + shortest + ".." + highest + ", spring "
                    + springLow[i] + ".." + springHigh[i];
            assertThat(springLow[i]).as(where).isBetween(shortest, shortest + slack);
            assertThat(springHigh[i]).as(where).isBetween(highest - slack, highest);
            long low = Long.MAX_VALUE;
            long high = Long.MIN_VALUE;
            for (int draw = 0; draw < 300; draw++) {
                long wait = kafko.waitBefore(attempt);
                low = Math.min(low, wait);
                high = Math.max(high, wait);
            }
            assertThat(low).as(where).isBetween(shortest, shortest + slack);
            assertThat(high).as(where).isBetween(highest - slack, highest);
        }
    }

    @Test
    void aJitterTheCapLeavesNoRoomForWaitsTheCapAndAHugeOneIsNotCutShort() {
        // a delay above maxDelay: every wait is maxDelay, jitter or not (spring-core's too)
        RetryTopics capped = new RetryTopics("t", 3, 5_000, 0, 2_000, "-retry", "-dlt", List.of(), List.of())
                .withJitter(100);
        assertThat(List.of(capped.waitBefore(2), capped.waitBefore(3), capped.shortestWaitBefore(3),
                capped.longestWaitBefore(3))).containsExactly(2_000L, 2_000L, 2_000L, 2_000L);
        // a jitter whose product with the back-off's multiple just fits is taken as it is, not as the longest wait
        RetryTopics huge = new RetryTopics("t", 2, 1, 0, 0, "-retry", "-dlt", List.of(), List.of())
                .withJitter(1L << 62);
        assertThat(huge.longestWaitBefore(2)).isEqualTo((1L << 62) + 1);
        RetryTopics hugest = new RetryTopics("t", 2, 1, 0, 0, "-retry", "-dlt", List.of(), List.of())
                .withJitter(Long.MAX_VALUE);
        assertThat(hugest.longestWaitBefore(2)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aUniformRandomBackOffBelowZeroOrUpsideDownIsRefusedNamingIt() {
        // spring-kafka's refuses these ("Min interval should be >= 1"); a negative minimum was taken for no random
        // back-off at all, each record waiting the midpoint (100 ms here) every time
        assertThatThrownBy(() -> RetryTopicConfigurationBuilder.newInstance().uniformRandomBackoff(-100, 300).create())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("uniformRandomBackoff needs 0 <= minInterval <= maxInterval, was -100 and 300");
        // the midpoint is negative here: refused as the random back-off, not as a delay the code never gave
        assertThatThrownBy(() -> RetryTopicConfigurationBuilder.newInstance().uniformRandomBackoff(-500, 100).create())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("uniformRandomBackoff needs 0 <= minInterval <= maxInterval, was -500 and 100");
        assertThatThrownBy(() -> RetryTopicConfigurationBuilder.newInstance().uniformRandomBackoff(300, 100).create())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("uniformRandomBackoff needs 0 <= minInterval <= maxInterval, was 300 and 100");
        // taken, as the README says: 0 to below 300, and 300 every time
        RetryTopics fromZero = RetryTopicConfigurationBuilder.newInstance().uniformRandomBackoff(0, 300).create()
                .plan("t");
        assertThat(List.of(fromZero.shortestWaitBefore(2), fromZero.longestWaitBefore(2))).containsExactly(0L, 300L);
        RetryTopics same = RetryTopicConfigurationBuilder.newInstance().uniformRandomBackoff(300, 300).create()
                .plan("t");
        assertThat(List.of(same.waitBefore(2), same.waitBefore(3))).containsExactly(300L, 300L);
    }

    @Test
    void theBackOffsStringsTakeTheCompositeDurationsSpringKafkaTakes() {
        // spring-kafka's BackOffFactory parses them with DurationFormatterUtils.detectAndParse, which takes 1s500ms
        runner.withPropertyValues("kafko.topics.comp.partitions=1", "retry.delay=1s500ms", "retry.max=(1m 30s)",
                "retry.jitter=1s1ms").withBean(Composite.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    // 1.5 s then 3 s, named as without the jitter
                    assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainerIds())
                            .contains("comp-retry-1500", "comp-retry-3000", "comp-dlt");
                });
        runner.withPropertyValues("kafko.topics.comp.partitions=1", "retry.delay=1s500", "retry.max=1m",
                "retry.jitter=1ms").withBean(Composite.class).run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("@RetryableTopic listener 'comp'")
                        .hasStackTraceContaining("backOff delayString '1s500' is not a duration"));
    }

    @Test
    void eachRetryComesNoEarlierThanItsDrawnDueTimeAndARestartWithAnotherJitterReadsTheSameTopics(
            @TempDir Path dir) {
        ApplicationContextRunner onDisk = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.topics.jit.partitions=2")
                .withBean(Jittered.class);
        onDisk.withPropertyValues("retry.jitter=200ms").run(context -> {
            assertThat(context).hasNotFailed();
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            for (int i = 0; i < 6; i++) {
                template.send("jit", i % 2, "k" + i, "r" + i).join();
            }
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
            // two retries of each of the 6 records, each delivered at or after its due time
            assertThat(DELIVERIES).hasSize(12).allSatisfy(d -> assertThat(d[0]).isGreaterThanOrEqualTo(d[1]));
            assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainerIds())
                    .contains("jit", "jit-retry", "jit-dlt");
            assertThat(KafkoTestUtils.records(context, "jit-dlt")).hasSize(6);
        });
        DELIVERIES.clear();
        // a jitter of an hour: the record forwarded waits up to an hour past its 1 ms, and the stop ends that wait
        onDisk.withPropertyValues("retry.jitter=1h").run(context -> {
            assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainerIds())
                    .contains("jit", "jit-retry", "jit-dlt");
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            Kafko kafko = context.getBean(Kafko.class);
            long forwarded = kafko.topic("jit-retry").orElseThrow().partition(0).endOffset();
            template.send("jit", 0, "k", "later").join();
            while (kafko.topic("jit-retry").orElseThrow().partition(0).endOffset() <= forwarded) {
                Thread.sleep(5);
            }
        });
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().startsWith("jit-retry"));
        // no retry topic left behind by either change of jitter: the same topics, nothing named as abandoned
        onDisk.withPropertyValues("retry.jitter=0").run(context -> assertThat(context).hasNotFailed());
        assertThat(containersLog.events()).noneMatch(e -> e.getLevel() == Level.WARN);
    }

    static class Composite {
        @RetryableTopic(attempts = "3", backOff = @BackOff(delayString = "${retry.delay}", multiplier = 2,
                maxDelayString = "${retry.max}", jitterString = "${retry.jitter}"))
        @KafkoListener(id = "comp", topics = "comp")
        void on(String value) {
        }
    }

    static class Jittered {
        @RetryableTopic(attempts = "3", backOff = @BackOff(delay = 1, jitterString = "${retry.jitter}"))
        @KafkoListener(id = "jit", topics = "jit")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic,
                @Header(name = KafkoHeaders.RETRY_BACKOFF_TIMESTAMP, required = false) String due) {
            if (due != null) {
                DELIVERIES.add(new long[] {System.currentTimeMillis(), Long.parseLong(due)});
            }
            throw new IllegalStateException("fails " + value);
        }
    }
}
