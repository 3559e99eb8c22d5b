package dev.kafko.spring.requestreply;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.RecordMessageConverter;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.function.BiPredicate;

/**
 * A {@link ReplyingKafkoTemplate} that collects several replies to each request, as spring-kafka's
 * {@code AggregatingReplyingKafkaTemplate}: for a request that several listeners answer (each in a group of its own,
 * with {@code @SendTo}), its future completes with every reply collected until the release strategy says so.
 *
 * <pre>{@code
 * @Bean
 * AggregatingReplyingKafkoTemplate<String, Quote, Price> bids(KafkoTemplate<String, Quote> kafkoTemplate,
 *         LogBackend backend, RecordMessageConverter converter) {
 *     return new AggregatingReplyingKafkoTemplate<>(kafkoTemplate, backend, converter, "bids", Price.class,
 *             (replies, timedOut) -> replies.size() == 3 || timedOut && !replies.isEmpty());
 * }
 *
 * Collection<ReceivedReply<Price>> prices = bids.sendAndReceive("quotes", quote).get(5, TimeUnit.SECONDS);
 * }</pre>
 *
 * The release strategy is called on the reply thread with the replies collected so far, oldest first, each time one
 * comes ({@code timedOut} false), and once more when the request's timeout comes first ({@code timedOut} true, off
 * the reply thread). When it returns true the future completes with the replies it was given; at the timeout, false
 * fails the future with {@link KafkoReplyTimeoutException}. A strategy that throws, or a reply that cannot be
 * converted to the reply type, fails the request with that exception. Replies that come after a request completed
 * are passed over. Everything else (correlation, timeouts, start, stop, a deleted reply topic) is as in
 * {@link ReplyingKafkoTemplate}.
 *
 * @param <K> the request's key type
 * @param <V> the request's value type
 * @param <R> the type each reply's value is converted to
 */
public class AggregatingReplyingKafkoTemplate<K, V, R> extends ReplyingKafkoTemplate<K, V, Collection<ReceivedReply<R>>> {

    private final Class<R> replyType;
    private final BiPredicate<List<ReceivedReply<R>>, Boolean> releaseStrategy;

    /**
     * @param template sends the requests
     * @param backend where the replies are read (the auto-configured {@link LogBackend} bean)
     * @param converter converts the replies (the auto-configured {@link RecordMessageConverter} bean)
     * @param replyTopic the topic the replies come to, created at {@link #start()} when it does not exist and
     *     {@code kafko.auto-create-topics} allows
     * @param replyType what each reply's value is converted to ({@code String}, {@code byte[]} or a JSON type)
     * @param releaseStrategy given the replies collected so far and whether the request's timeout came, whether
     *     the request is complete with them
     * @throws dev.kafko.InvalidNameException when {@code replyTopic} breaks the naming rule
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public AggregatingReplyingKafkoTemplate(KafkoTemplate<K, V> template, LogBackend backend,
                                            RecordMessageConverter converter, String replyTopic, Class<R> replyType,
                                            BiPredicate<List<ReceivedReply<R>>, Boolean> releaseStrategy) {
        super(template, backend, converter, replyTopic, (Class) Collection.class);
        this.replyType = Objects.requireNonNull(replyType, "replyType");
        this.releaseStrategy = Objects.requireNonNull(releaseStrategy, "releaseStrategy");
    }

    @Override
    void reply(String correlationId, RequestReplyFuture<K, V, Collection<ReceivedReply<R>>> future,
               KafkoRecord record) {
        List<ReceivedReply<R>> replies;
        boolean complete;
        try {
            replies = collect(future, new ReceivedReply<>(record, convert(record, replyType)));
            complete = releaseStrategy.test(replies, false);
        } catch (RuntimeException | Error e) {
            if (release(correlationId, future)) {
                failReply(future, e);
            }
            return;
        }
        if (complete && release(correlationId, future)) {
            future.complete(replies);
        }
    }

    @Override
    void timedOut(RequestReplyFuture<K, V, Collection<ReceivedReply<R>>> future, KafkoReplyTimeoutException timeout) {
        List<ReceivedReply<R>> replies = collected(future);
        boolean complete;
        try {
            complete = releaseStrategy.test(replies, true);
        } catch (RuntimeException | Error e) {
            failReply(future, e);
            return;
        }
        if (complete) {
            future.complete(replies);
        } else {
            future.completeExceptionally(timeout);
        }
    }

    @SuppressWarnings("unchecked")
    private static <R> List<ReceivedReply<R>> collect(RequestReplyFuture<?, ?, ?> future, ReceivedReply<R> reply) {
        return (List<ReceivedReply<R>>) (List<?>) future.collect(reply);
    }

    @SuppressWarnings("unchecked")
    private static <R> List<ReceivedReply<R>> collected(RequestReplyFuture<?, ?, ?> future) {
        return (List<ReceivedReply<R>>) (List<?>) future.collected();
    }
}
