package dev.kafko.spring.requestreply;

import dev.kafko.spring.support.SendResult;
import java.util.concurrent.CompletableFuture;

/**
 * The reply to a request sent by {@link ReplyingKafkoTemplate}: completes with the reply's value, converted
 * to the template's reply type, or fails ({@link KafkoReplyTimeoutException} when no reply came in time; the
 * send's failure when the request could not be sent). {@link #getSendFuture()} completes once the request is
 * written. As spring-kafka's {@code RequestReplyFuture}, whose value is the reply record instead.
 *
 * @param <K> the request's key type
 * @param <V> the request's value type
 * @param <R> the reply's value type
 */
public final class RequestReplyFuture<K, V, R> extends CompletableFuture<R> {

    private final CompletableFuture<SendResult<K, V>> sendFuture = new CompletableFuture<>();

    RequestReplyFuture() {
    }

    /** Completes with the request's {@link SendResult} once it is written, or with the send's failure. */
    public CompletableFuture<SendResult<K, V>> getSendFuture() {
        return sendFuture;
    }

    CompletableFuture<SendResult<K, V>> sendFuture() {
        return sendFuture;
    }
}
