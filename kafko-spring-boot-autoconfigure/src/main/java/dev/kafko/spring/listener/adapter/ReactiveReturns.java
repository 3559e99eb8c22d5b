package dev.kafko.spring.listener.adapter;

import dev.kafko.spring.transaction.Transactions;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;

/**
 * A listener's reactive return value (a Reactor {@code Mono}, or any single-value type Spring's
 * {@link ReactiveAdapterRegistry} adapts) as a future that the polling thread awaits like a
 * {@code CompletionStage}: subscribed once, completed with its value, with nothing when it is empty, or
 * exceptionally with its error. Without this, a {@code Mono} was never subscribed (the work it described
 * never ran) and its record was committed. Cancelling the future cancels the subscription. Referenced only
 * when Reactive Streams is on the classpath ({@link MessagingMessageListenerAdapter#REACTIVE_STREAMS}): this
 * class cannot be linked without it.
 */
final class ReactiveReturns {

    private ReactiveReturns() {
    }

    /**
     * The future of {@code result} when it is a reactive type, else null.
     *
     * @throws IllegalStateException when it is a multi-value type (a {@code Flux}): one record has one result
     */
    static @Nullable CompletableFuture<Object> toFuture(Object result) {
        ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(result.getClass());
        if (adapter == null) {
            return null;
        }
        if (adapter.isMultiValue()) {
            throw new IllegalStateException("a listener returned a " + result.getClass().getName()
                    + ", which may hold many values: return a single-value type (a Mono) or a CompletableFuture");
        }
        Subscribed future = new Subscribed();
        int held = Transactions.stagesOfHeldSends(() -> adapter.toPublisher(result).subscribe(future));
        if (held > 0 && !future.isDone()) {
            future.cancel(true);
            throw new IllegalStateException("The listener returned a " + result.getClass().getSimpleName() + " that"
                    + " waits for a send of the listener's own transaction (Mono.fromFuture(template.send(...)), say):"
                    + " the send is written, and its future completed, when the transaction commits, after the"
                    + " listener's result completes, so it would never complete. Return nothing (the commit writes the"
                    + " send), or act on the send's result in a callback (whenComplete, thenAccept) made in the method,"
                    + " before returning");
        }
        return future;
    }

    /**
     * The future of one subscription: cancelling it (a stop that overran its shutdown timeout) cancels the
     * subscription, so that the work and the timers of a {@code Mono} that never completes end with it.
     */
    private static final class Subscribed extends CompletableFuture<Object> implements Subscriber<Object> {

        private volatile @Nullable Subscription subscription;

        @Override
        public void onSubscribe(Subscription s) {
            subscription = s;
            if (isCancelled()) {
                s.cancel(); // cancelled before the publisher subscribed it
                return;
            }
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(Object value) {
            complete(value);
        }

        @Override
        public void onError(Throwable failure) {
            completeExceptionally(failure);
        }

        @Override
        public void onComplete() {
            complete(null);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            Subscription s = subscription;
            if (cancelled && s != null) {
                s.cancel();
            }
            return cancelled;
        }
    }
}
