package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.support.KafkoHeaders;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.messaging.converter.MessageConversionException;

/** The topics, back-offs and retry decisions of a {@code @RetryableTopic} listener. */
class RetryTopicsTest {

    @Test
    void aFixedBackOffHasOneRetryTopicReadByEveryRetry() {
        RetryTopics topics = new RetryTopics("orders", 4, 500, 0, 0, "-retry", "-dlt", List.of(), List.of());
        assertThat(topics.retryTopics()).containsExactly("orders-retry");
        assertThat(topics.dltTopic()).isEqualTo("orders-dlt");
        for (int attempt = 2; attempt <= 4; attempt++) {
            assertThat(topics.topicOfAttempt(attempt)).isEqualTo("orders-retry");
            assertThat(topics.backOffBefore(attempt)).isEqualTo(500);
        }
        assertThatThrownBy(() -> topics.topicOfAttempt(5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("attempt 5 is no retry of 4 attempts");
        assertThatThrownBy(() -> topics.topicOfAttempt(1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aMultipliedBackOffHasATopicPerBackOffUpToItsCap() {
        RetryTopics topics = new RetryTopics("t", 6, 100, 3, 1000, "-r", "-d", List.of(), List.of());
        // 100, 300, 900, then 2700 and 8100 capped at 1000
        assertThat(topics.retryTopics()).containsExactly("t-r-100", "t-r-300", "t-r-900", "t-r-1000");
        assertThat(List.of(topics.backOffBefore(2), topics.backOffBefore(3), topics.backOffBefore(4),
                topics.backOffBefore(5), topics.backOffBefore(6))).containsExactly(100L, 300L, 900L, 1000L, 1000L);
        assertThat(topics.topicOfAttempt(6)).isEqualTo("t-r-1000");
        // without a cap it grows without bound, as spring-kafka 4.0's does: 1 s doubled ten times, and a wait too long
        // for a long is the longest there is, not a negative one
        RetryTopics uncapped = new RetryTopics("t", 12, 1000, 2, 0, "-r", "-d", List.of(), List.of());
        assertThat(uncapped.backOffBefore(12)).isEqualTo(1_024_000);
        assertThat(uncapped.retryTopics()).hasSize(11).endsWith("t-r-1024000");
        RetryTopics huge = new RetryTopics("t", 80, 1000, 2, 0, "-r", "-d", List.of(), List.of());
        assertThat(huge.backOffBefore(80)).isEqualTo(Long.MAX_VALUE);
        assertThat(huge.backOffBefore(79)).isEqualTo(Long.MAX_VALUE);
        assertThat(huge.topicOfAttempt(80)).isEqualTo("t-r-" + Long.MAX_VALUE);
    }

    @Test
    void oneAttemptHasNoRetryTopic() {
        RetryTopics topics = new RetryTopics("t", 1, 100, 0, 0, "-retry", "-dlt", List.of(), List.of());
        assertThat(topics.retryTopics()).isEmpty();
    }

    @Test
    void settingsThatCannotWorkAreRefusedNamingThem() {
        assertThatThrownBy(() -> new RetryTopics("t", 0, 1, 0, 0, "-r", "-d", List.of(), List.of()))
                .hasMessage("attempts must be at least 1, was 0");
        assertThatThrownBy(() -> new RetryTopics("t", 2, -1, 0, 0, "-r", "-d", List.of(), List.of()))
                .hasMessage("the back-off's delay must not be negative, was -1");
        assertThatThrownBy(() -> new RetryTopics("t", 2, 1, 0.5, 0, "-r", "-d", List.of(), List.of()))
                .hasMessage("the back-off's multiplier must be 0, 1 or above, was 0.5");
        assertThatThrownBy(() -> new RetryTopics("t", 2, 1, 2, -5, "-r", "-d", List.of(), List.of()))
                .hasMessage("the back-off's maxDelay must not be negative, was -5");
        assertThatThrownBy(() -> new RetryTopics("t", 2, 1, 0, 0, "-x", "-x", List.of(), List.of()))
                .hasMessageContaining("two different, non-empty suffixes");
    }

    @Test
    void includeAndExcludeDecideWhichFailuresAreRetriedAnywhereInTheCauseChain() {
        RetryTopics defaults = new RetryTopics("t", 3, 1, 0, 0, "-r", "-d", List.of(), List.of());
        assertThat(defaults.retryable(new IllegalStateException("x"))).isTrue();
        assertThat(defaults.retryable(new IllegalStateException(new MessageConversionException("x")))).isFalse();

        RetryTopics included = new RetryTopics("t", 3, 1, 0, 0, "-r", "-d", List.of(IOException.class), List.of());
        assertThat(included.retryable(new UncheckedIOException(new IOException("disk")))).isTrue();
        assertThat(included.retryable(new IllegalStateException("x"))).isFalse();

        RetryTopics excluded = new RetryTopics("t", 3, 1, 0, 0, "-r", "-d", List.of(IllegalStateException.class),
                List.of(IOException.class));
        assertThat(excluded.retryable(new IllegalStateException(new IOException("disk")))).isFalse();
    }

    @Test
    void aFailureTheDefaultClassificationNeverRetriesIsNotRetriedThoughIncluded() {
        // as spring-kafka's resolver: its fatal exceptions go to the dead-letter topic whatever include says
        RetryTopics broad = new RetryTopics("t", 3, 1, 0, 0, "-r", "-d", List.of(RuntimeException.class), List.of());
        assertThat(broad.retryable(new IllegalStateException("x"))).isTrue();
        assertThat(broad.retryable(new MessageConversionException("x"))).isFalse();
        assertThat(broad.retryable(new ClassCastException("x"))).isFalse();
        RetryTopics traversing = new RetryTopics("t", 3, 1, 0, 0, "-r", "-d", List.of(IllegalStateException.class),
                List.of()).withTraversingCauses(false);
        assertThat(traversing.retryable(new IllegalStateException(new ClassCastException("x")))).isFalse();
        assertThat(traversing.retryable(new IllegalStateException("x"))).isTrue();
    }

    @Test
    void aPlanAsMadeHasItsDefaultsAndRefusesEmptySuffixesAndAnInfiniteMultiplier() {
        RetryTopics plan = new RetryTopics("t", 3, 5, 0, 0, "-r", "-d", List.of(), List.of());
        assertThat(plan.timeout()).isZero();
        assertThat(plan.autoCreateTopics()).isTrue();
        assertThat(plan.numPartitions()).isZero();
        assertThat(plan.traversingCauses()).isTrue();
        assertThat(plan.dltTopics()).containsExactly("t-d");
        assertThat(plan.isDltTopic("t-d")).isTrue();
        assertThat(plan.isDltTopic("t-r")).isFalse();
        assertThat(plan.dltTopicFor(new IllegalStateException())).isEqualTo("t-d");
        // an empty suffix would make the retry (or dead-letter) topic the listener's own
        assertThatThrownBy(() -> new RetryTopics("t", 2, 1, 0, 0, "", "-d", List.of(), List.of()))
                .hasMessageContaining("two different, non-empty suffixes");
        assertThatThrownBy(() -> new RetryTopics("t", 2, 1, 0, 0, "-r", "", List.of(), List.of()))
                .hasMessageContaining("two different, non-empty suffixes");
        assertThatThrownBy(() -> new RetryTopics("t", 2, 1, Double.POSITIVE_INFINITY, 0, "-r", "-d", List.of(),
                List.of())).hasMessage("the back-off's multiplier must be 0, 1 or above, was Infinity");
        // a timeout of 1 ms is one
        assertThat(plan.withTimeout(1).pastTimeout(0, 1)).isTrue();
        assertThat(plan.withTimeout(1).pastTimeout(0, 0)).isFalse();
    }

    @Test
    void routesWhoseTopicsCollideWithAnotherOfThePlansAreRefused() {
        RetryTopics plan = new RetryTopics("t", 2, 1, 0, 0, "-x-d", "-d", List.of(), List.of());
        assertThat(plan.retryTopics()).containsExactly("t-x-d");
        assertThatThrownBy(() -> plan.withDltRouting("-d", List.of(new RetryTopics.DltRoute("-x",
                List.of(IllegalStateException.class))))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the exception-based dead-letter destination '-x' makes the topic 't-x-d', which another"
                        + " topic of the listener has");
        assertThatThrownBy(() -> plan.withDltRouting("-d", List.of(
                new RetryTopics.DltRoute("-v", List.of(IllegalStateException.class)),
                new RetryTopics.DltRoute("-v", List.of(IllegalArgumentException.class)))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the exception-based dead-letter destination '-v' makes the topic 't-v-d', which another"
                        + " topic of the listener has");
        assertThatThrownBy(() -> plan.withDltRouting("-d", List.of(new RetryTopics.DltRoute("",
                List.of(IllegalStateException.class))))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("an exception-based dead-letter destination needs a suffix");
        RetryTopics routed = plan.withDltRouting("-d", List.of(new RetryTopics.DltRoute("-v",
                List.of(IllegalArgumentException.class))));
        assertThat(routed.isDltTopic("t-v-d")).isTrue();
        assertThat(routed.isDltTopic("t-d")).isTrue();
        assertThat(routed.isDltTopic("t-x-d")).isFalse();
    }

    @Test
    void aMultiplierOfOneIsAFixedBackOffAndACauseChainThatLoopsIsLookedAtOnce() {
        RetryTopics ones = new RetryTopics("t", 3, 100, 1, 0, "-r", "-d", List.of(), List.of());
        assertThat(ones.retryTopics()).containsExactly("t-r");
        // A caused by B caused by A: classified without going round for ever
        IllegalStateException a = new IllegalStateException("a");
        IllegalArgumentException b = new IllegalArgumentException("b", a);
        a.initCause(b);
        RetryTopics excluded = new RetryTopics("t", 3, 1, 0, 0, "-r", "-d", List.of(), List.of(IOException.class));
        assertThat(excluded.retryable(a)).isTrue();
        RetryTopics included = new RetryTopics("t", 3, 1, 0, 0, "-r", "-d", List.of(IOException.class), List.of());
        assertThat(included.retryable(a)).isFalse();
    }

    @Test
    void theTimeoutCountsFromTheOriginalTimestampAndIsReachedAtItsLastMillisecond() {
        RetryTopics plan = new RetryTopics("t", 3, 1, 0, 0, "-r", "-d", List.of(), List.of());
        assertThat(plan.timeout()).isZero();
        assertThat(plan.pastTimeout(0, Long.MAX_VALUE)).as("no timeout").isFalse();
        RetryTopics timed = plan.withTimeout(1_000);
        assertThat(timed.timeout()).isEqualTo(1_000);
        assertThat(timed.pastTimeout(5_000, 5_999)).isFalse();
        assertThat(timed.pastTimeout(5_000, 6_000)).isTrue();
        assertThat(timed.withTopicCreation(false, 2).timeout()).as("kept by the next setting").isEqualTo(1_000);
        assertThatThrownBy(() -> plan.withTimeout(-1)).hasMessage("the timeout must not be negative, was -1");
        assertThatThrownBy(() -> plan.withTopicCreation(true, -1))
                .hasMessage("numPartitions must not be negative, was -1");
    }

    @Test
    void aRecordsAttemptAndOriginalTimestampComeFromItsHeadersOrItself() {
        KafkoRecord first = record(Headers.empty());
        assertThat(RetryTopicRecoverer.attemptOf(first)).isEqualTo(1);
        assertThat(RetryTopicRecoverer.originalTimestamp(first)).isEqualTo(777);
        KafkoRecord forwarded = record(Headers.empty().with(KafkoHeaders.RETRY_ATTEMPTS, utf8("3"))
                .with(KafkoHeaders.DLT_ORIGINAL_TIMESTAMP, utf8("123")));
        assertThat(RetryTopicRecoverer.attemptOf(forwarded)).isEqualTo(3);
        assertThat(RetryTopicRecoverer.originalTimestamp(forwarded)).isEqualTo(123);
        // headers it cannot read: as the listener topic's own record
        KafkoRecord garbled = record(Headers.empty().with(KafkoHeaders.RETRY_ATTEMPTS, utf8("three"))
                .with(KafkoHeaders.DLT_ORIGINAL_TIMESTAMP, utf8("noon")));
        assertThat(RetryTopicRecoverer.attemptOf(garbled)).isEqualTo(1);
        assertThat(RetryTopicRecoverer.originalTimestamp(garbled)).isEqualTo(777);
    }

    private static KafkoRecord record(Headers headers) {
        KafkoRecord r = mock(KafkoRecord.class);
        when(r.headers()).thenReturn(headers);
        when(r.timestamp()).thenReturn(777L);
        return r;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
