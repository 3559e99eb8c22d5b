/**
 * Non-blocking retries configured by beans rather than by {@code @RetryableTopic}: a {@link
 * dev.kafko.spring.retrytopic.RetryTopicConfiguration} made with {@link
 * dev.kafko.spring.retrytopic.RetryTopicConfigurationBuilder} applies to the {@code @KafkoListener} methods of the topics
 * it names, as spring-kafka's beans of those names do.
 */
@NullMarked
package dev.kafko.spring.retrytopic;

import org.jspecify.annotations.NullMarked;
