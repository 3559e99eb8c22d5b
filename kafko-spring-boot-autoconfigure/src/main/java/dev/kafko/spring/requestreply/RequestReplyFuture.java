package dev.kafko.spring.requestreply;

import dev.kafko.spring.support.SendResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The reply to a request sent by {@link ReplyingKafkoTemplate}: completes with the reply's value, converted
 * to the template's reply type, or fails ({@link KafkoReplyTimeoutException} when no reply came in time; the
 * send's failure when the request could not be sent; a {@link dev.kafko.KafkoException} saying so when the template
 * stopped first). {@link #getSendFuture()} completes once the request is
 * written. As spring-kafka's {@code RequestReplyFuture}, whose value is the reply record instead. An
 * {@link AggregatingReplyingKafkoTemplate}'s completes with the replies it collected.
 *
 * @param <K> the request's key type
 * @param <V> the request's value type
 * @param <R> the reply's value type
 */
public final class RequestReplyFuture<K, V, R> extends CompletableFuture<R> {

    private final CompletableFuture<SendResult<K, V>> sendFuture = new CompletableFuture<>();
    /** The replies an aggregating template collected for this request so far; guarded by {@code this}. */
    private @Nullable List<Object> collected;

    RequestReplyFuture() {
    }

    /** Completes with the request's {@link SendResult} once it is written, or with the send's failure. */
    public CompletableFuture<SendResult<K, V>> getSendFuture() {
        return sendFuture;
    }

    CompletableFuture<SendResult<K, V>> sendFuture() {
        return sendFuture;
    }

    /**
     * Adds a reply collected for this request; returns every one collected so far, in the order they came, in a new
     * list its caller may change.
     */
    synchronized List<Object> collect(Object reply) {
        List<Object> replies = collected;
        if (replies == null) {
            replies = new ArrayList<>();
            collected = replies;
        }
        replies.add(reply);
        return new ArrayList<>(replies);
    }

    /** The replies collected for this request so far, in the order they came, in a new list its caller may change. */
    synchronized List<Object> collected() {
        List<Object> replies = collected;
        return replies == null ? new ArrayList<>() : new ArrayList<>(replies);
    }
}
