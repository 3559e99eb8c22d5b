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
 *     AggregatingReplyingKafkoTemplate<String, Quote, Price> bids = new AggregatingReplyingKafkoTemplate<>(
 *             kafkoTemplate, backend, converter, "bids", Price.class, (replies, timedOut) -> replies.size() == 3 || timedOut);
 *     bids.setReturnPartialOnTimeout(true);
 *     return bids;
 * }
 *
 * Collection<ReceivedReply<Price>> prices = bids.sendAndReceive("quotes", quote).get(5, TimeUnit.SECONDS);
 * }</pre>
 *
 * The release strategy is called on the reply thread with the replies collected so far, in the order they came, each
 * time one comes ({@code timedOut} false). When the request's timeout comes first, it fails with
 * {@link KafkoReplyTimeoutException}; with {@link #setReturnPartialOnTimeout(boolean) returnPartialOnTimeout} and at
 * least one reply collected, the strategy is asked once more ({@code timedOut} true, off the reply thread) and true
 * completes the future with the replies so far instead: as spring-kafka's. It is called one call at a time, with a
 * new list each call that it may change: when it returns true the future completes with that list as it left it. A
 * strategy that throws, or a reply that cannot be converted to the reply type, fails the request with that exception.
 * Replies that come after a request completed are passed over. Everything else (correlation, timeouts, start, stop, a
 * deleted reply topic) is as in {@link ReplyingKafkoTemplate}.
 *
 * @param <K> the request's key type
 * @param <V> the request's value type
 * @param <R> the type each reply's value is converted to
 */
public class AggregatingReplyingKafkoTemplate<K, V, R> extends ReplyingKafkoTemplate<K, V, Collection<ReceivedReply<R>>> {

    private final Class<R> replyType;
    private final BiPredicate<List<ReceivedReply<R>>, Boolean> releaseStrategy;
    /** Held while the release strategy is asked: one call at a time, on the reply thread or at a timeout. */
    private final Object strategyLock = new Object();
    private volatile boolean returnPartialOnTimeout;

    /**
     * @param template sends the requests
     * @param backend where the replies are read (the auto-configured {@link LogBackend} bean)
     * @param converter converts the replies (the auto-configured {@link RecordMessageConverter} bean)
     * @param replyTopic the topic the replies come to, created at {@link #start()} when it does not exist and
     *     {@code kafko.auto-create-topics} allows
     * @param replyType what each reply's value is converted to ({@code String}, {@code byte[]} or a JSON type)
     * @param releaseStrategy given the replies collected so far (a new list each call, which it may change) and
     *     whether the request's timeout came, whether the request is complete with them
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

    /**
     * Whether a request whose timeout comes before the strategy took its replies may complete with those collected
     * so far: when true and at least one reply came, the strategy is asked with them and {@code timedOut} true, and
     * true completes the future with them. False unless set, as in spring-kafka: the request fails with
     * {@link KafkoReplyTimeoutException} without asking.
     */
    public void setReturnPartialOnTimeout(boolean returnPartialOnTimeout) {
        this.returnPartialOnTimeout = returnPartialOnTimeout;
    }

    public boolean isReturnPartialOnTimeout() {
        return returnPartialOnTimeout;
    }

    @Override
    void reply(String correlationId, RequestReplyFuture<K, V, Collection<ReceivedReply<R>>> future,
               KafkoRecord record) {
        List<ReceivedReply<R>> replies;
        boolean complete;
        try {
            ReceivedReply<R> reply = new ReceivedReply<>(record, convert(record, replyType));
            synchronized (strategyLock) {
                if (!waiting(correlationId, future)) {
                    return; // its timeout, a stop or its caller took it since it was looked up
                }
                replies = collect(future, reply);
                complete = releaseStrategy.test(replies, false);
            }
        } catch (RuntimeException | Error e) {
            if (release(correlationId, future)) {
                failReply(future, e);
            } else if (e instanceof VirtualMachineError fatal) {
                throw fatal; // its request was taken meanwhile; the reader still ends, as with any fatal error
            }
            return;
        }
        if (complete && release(correlationId, future)) {
            future.complete(replies);
        }
    }

    @Override
    void timedOut(RequestReplyFuture<K, V, Collection<ReceivedReply<R>>> future, KafkoReplyTimeoutException timeout) {
        List<ReceivedReply<R>> replies;
        boolean complete;
        try {
            synchronized (strategyLock) {
                replies = collected(future);
                complete = returnPartialOnTimeout && !replies.isEmpty() && releaseStrategy.test(replies, true);
            }
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
