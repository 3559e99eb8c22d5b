/**
 * Request and reply over two topics: {@link dev.kafko.spring.requestreply.ReplyingKafkoTemplate} sends a
 * request that a {@code @KafkoListener} with {@code @SendTo} answers, and completes a future with the answer;
 * {@link dev.kafko.spring.requestreply.AggregatingReplyingKafkoTemplate} gathers the answers of several listeners.
 */
@NullMarked
package dev.kafko.spring.requestreply;

import org.jspecify.annotations.NullMarked;
