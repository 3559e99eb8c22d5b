package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
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
        assertThat(topics.retryTopics()).containsExactly("t-r-0", "t-r-1", "t-r-2", "t-r-3");
        assertThat(List.of(topics.backOffBefore(2), topics.backOffBefore(3), topics.backOffBefore(4),
                topics.backOffBefore(5), topics.backOffBefore(6))).containsExactly(100L, 300L, 900L, 1000L, 1000L);
        assertThat(topics.topicOfAttempt(6)).isEqualTo("t-r-3");
        // without a cap of its own, spring-kafka's 30 s
        RetryTopics uncapped = new RetryTopics("t", 12, 1000, 2, 0, "-r", "-d", List.of(), List.of());
        assertThat(uncapped.backOffBefore(12)).isEqualTo(RetryTopics.DEFAULT_MAX_DELAY);
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
}
