package dev.kafko.spring.listener;

import static dev.kafko.spring.listener.SameIntervalTopicReuseStrategy.MULTIPLE_TOPICS;
import static dev.kafko.spring.listener.SameIntervalTopicReuseStrategy.SINGLE_TOPIC;
import static dev.kafko.spring.listener.TopicSuffixingStrategy.SUFFIX_WITH_DELAY_VALUE;
import static dev.kafko.spring.listener.TopicSuffixingStrategy.SUFFIX_WITH_INDEX_VALUE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The names of a {@code @RetryableTopic} listener's retry topics under spring-kafka's {@code topicSuffixingStrategy}
 * and {@code sameIntervalTopicReuseStrategy}, and which topic each retry reads: the names spring-kafka 4.0 gives.
 */
class RetryTopicNamingTest {

    /** 5 attempts: back-offs of 1, 2, then 4 and 8 s capped at 2 s. */
    private static RetryTopics capped() {
        return new RetryTopics("orders", 5, 1_000, 2, 2_000, "-retry", "-dlt", List.of(), List.of());
    }

    private static List<String> topicOfEachRetry(RetryTopics topics) {
        List<String> read = new ArrayList<>();
        for (int attempt = 2; attempt <= topics.attempts(); attempt++) {
            read.add(topics.topicOfAttempt(attempt));
        }
        return read;
    }

    @Test
    void byDefaultTheTopicsOfAMultipliedBackOffAreNamedByTheirDelayAndTheCappedRetriesShareTheLast() {
        RetryTopics topics = capped();
        assertThat(topics.retryTopics()).containsExactly("orders-retry-1000", "orders-retry-2000");
        assertThat(topicOfEachRetry(topics))
                .containsExactly("orders-retry-1000", "orders-retry-2000", "orders-retry-2000", "orders-retry-2000");
        // the same as asking for spring-kafka's defaults by name
        RetryTopics named = capped().withTopicNaming(SUFFIX_WITH_DELAY_VALUE, SINGLE_TOPIC);
        assertThat(named.retryTopics()).isEqualTo(topics.retryTopics());
        RetryTopics uncapped = new RetryTopics("orders", 4, 1_000, 2, 0, "-retry", "-dlt", List.of(), List.of());
        assertThat(uncapped.retryTopics()).containsExactly("orders-retry-1000", "orders-retry-2000", "orders-retry-4000");
    }

    @Test
    void multipleTopicsGiveEachCappedRetryATopicNumberedAfterItsDelay() {
        RetryTopics topics = capped().withTopicNaming(SUFFIX_WITH_DELAY_VALUE, MULTIPLE_TOPICS);
        assertThat(topics.retryTopics()).containsExactly("orders-retry-1000", "orders-retry-2000-0",
                "orders-retry-2000-1", "orders-retry-2000-2");
        assertThat(topicOfEachRetry(topics)).isEqualTo(topics.retryTopics());
        assertThat(topics.backOffBefore(5)).isEqualTo(2_000);
    }

    @Test
    void indexValuesNumberTheTopicsFromZero() {
        RetryTopics single = capped().withTopicNaming(SUFFIX_WITH_INDEX_VALUE, SINGLE_TOPIC);
        assertThat(single.retryTopics()).containsExactly("orders-retry-0", "orders-retry-1");
        assertThat(topicOfEachRetry(single))
                .containsExactly("orders-retry-0", "orders-retry-1", "orders-retry-1", "orders-retry-1");
        RetryTopics multiple = capped().withTopicNaming(SUFFIX_WITH_INDEX_VALUE, MULTIPLE_TOPICS);
        assertThat(multiple.retryTopics())
                .containsExactly("orders-retry-0", "orders-retry-1", "orders-retry-2", "orders-retry-3");
        assertThat(topicOfEachRetry(multiple)).isEqualTo(multiple.retryTopics());
    }

    @Test
    void aFixedBackOffHasOneTopicUnderSingleTopicAndIndexedTopicsUnderMultipleTopics() {
        RetryTopics fixed = new RetryTopics("orders", 4, 500, 0, 0, "-retry", "-dlt", List.of(), List.of());
        for (TopicSuffixingStrategy suffixing : TopicSuffixingStrategy.values()) {
            assertThat(fixed.withTopicNaming(suffixing, SINGLE_TOPIC).retryTopics()).containsExactly("orders-retry");
            // several topics of one delay: spring-kafka numbers them, whatever the suffixing
            RetryTopics multiple = fixed.withTopicNaming(suffixing, MULTIPLE_TOPICS);
            assertThat(multiple.retryTopics()).containsExactly("orders-retry-0", "orders-retry-1", "orders-retry-2");
            assertThat(topicOfEachRetry(multiple)).isEqualTo(multiple.retryTopics());
        }
    }

    @Test
    void aSingleRetryIsNamedBySuffixAloneOnlyUnderSingleTopic() {
        RetryTopics one = new RetryTopics("orders", 2, 1_000, 0, 0, "-retry", "-dlt", List.of(), List.of());
        assertThat(one.retryTopics()).containsExactly("orders-retry");
        assertThat(one.withTopicNaming(SUFFIX_WITH_INDEX_VALUE, SINGLE_TOPIC).retryTopics())
                .containsExactly("orders-retry");
        assertThat(one.withTopicNaming(SUFFIX_WITH_DELAY_VALUE, MULTIPLE_TOPICS).retryTopics())
                .containsExactly("orders-retry-1000");
        assertThat(one.withTopicNaming(SUFFIX_WITH_INDEX_VALUE, MULTIPLE_TOPICS).retryTopics())
                .containsExactly("orders-retry-0");
        RetryTopics none = new RetryTopics("orders", 1, 1_000, 0, 0, "-retry", "-dlt", List.of(), List.of())
                .withTopicNaming(SUFFIX_WITH_DELAY_VALUE, MULTIPLE_TOPICS);
        assertThat(none.retryTopics()).isEmpty();
    }

    @Test
    void theNamingKeepsEveryOtherSettingOfThePlan() {
        RetryTopics plan = capped().withTimeout(7_000).withTopicCreation(false, 3).withTraversingCauses(false)
                .withDltRouting("-dlt", List.of(new RetryTopics.DltRoute("-bad", List.of(IllegalStateException.class))))
                .withTopicNaming(SUFFIX_WITH_INDEX_VALUE, MULTIPLE_TOPICS);
        assertThat(plan.retryTopics()).hasSize(4);
        assertThat(plan.timeout()).isEqualTo(7_000);
        assertThat(plan.autoCreateTopics()).isFalse();
        assertThat(plan.numPartitions()).isEqualTo(3);
        assertThat(plan.traversingCauses()).isFalse();
        assertThat(plan.dltTopics()).containsExactly("orders-dlt", "orders-bad-dlt");
        assertThat(plan.dltTopicFor(new IllegalStateException())).isEqualTo("orders-bad-dlt");
        assertThat(plan.dltBackOff()).isEqualTo(2_000);
    }

    @Test
    void aRetryTopicNamedAsADeadLetterTopicIsRefused() {
        // the retry suffix '-x' with the delays 1000 and 2000 makes 'orders-x-1000', the dead-letter topic's name
        assertThatThrownBy(() -> new RetryTopics("orders", 3, 1_000, 2, 0, "-x", "-x-1000", List.of(), List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the retry topic 'orders-x-1000' would have the name of the dead-letter topic");
        RetryTopics routed = new RetryTopics("orders", 3, 1_000, 2, 0, "-x", "-d", List.of(), List.of())
                .withTopicNaming(SUFFIX_WITH_INDEX_VALUE, SINGLE_TOPIC)
                .withDltRouting("-d", List.of(new RetryTopics.DltRoute("-x-1", List.of(IllegalStateException.class))));
        // 'orders-x-1-d' is no retry topic's name; named by index, 'orders-x-1' is one, but not a dead-letter topic
        assertThat(routed.retryTopics()).containsExactly("orders-x-0", "orders-x-1");
        RetryTopics dltNamed = new RetryTopics("orders", 3, 1_000, 2, 0, "-x", "-x-1", List.of(), List.of());
        assertThat(dltNamed.retryTopics()).containsExactly("orders-x-1000", "orders-x-2000");
        assertThatThrownBy(() -> dltNamed.withTopicNaming(SUFFIX_WITH_INDEX_VALUE, SINGLE_TOPIC))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the retry topic 'orders-x-1' would have the name of a dead-letter topic of the listener");
        // judged under the naming asked for, not the default one: named by index, '-x-1000' is no retry topic
        RetryTopics indexed = new RetryTopics("orders", 3, 1_000, 2, 0, "-x", "-x-1000", List.of(), List.of(),
                DltStrategy.FAIL_ON_ERROR, SUFFIX_WITH_INDEX_VALUE, SINGLE_TOPIC);
        assertThat(indexed.retryTopics()).containsExactly("orders-x-0", "orders-x-1");
        assertThat(indexed.dltTopic()).isEqualTo("orders-x-1000");
        assertThatThrownBy(() -> new RetryTopics("orders", 3, 1_000, 2, 0, "-x", "-x-1", List.of(), List.of(),
                DltStrategy.FAIL_ON_ERROR, SUFFIX_WITH_INDEX_VALUE, SINGLE_TOPIC))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the retry topic 'orders-x-1' would have the name of the dead-letter topic");
        // without a dead-letter topic there is nothing to collide with
        RetryTopics noDlt = new RetryTopics("orders", 3, 1_000, 2, 0, "-x", "-x-1000", List.of(), List.of(),
                DltStrategy.NO_DLT);
        assertThat(noDlt.retryTopics()).containsExactly("orders-x-1000", "orders-x-2000");
        assertThat(noDlt.withTopicNaming(SUFFIX_WITH_INDEX_VALUE, MULTIPLE_TOPICS).retryTopics())
                .containsExactly("orders-x-0", "orders-x-1");
        assertThatThrownBy(() -> capped().withTopicNaming(null, SINGLE_TOPIC))
                .isInstanceOf(NullPointerException.class).hasMessage("topicSuffixingStrategy");
        assertThatThrownBy(() -> capped().withTopicNaming(SUFFIX_WITH_DELAY_VALUE, null))
                .isInstanceOf(NullPointerException.class).hasMessage("sameIntervalTopicReuseStrategy");
    }
}
