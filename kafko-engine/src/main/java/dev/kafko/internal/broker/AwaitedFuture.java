package dev.kafko.internal.broker;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Internal: a future that says when a thread is about to block on it ({@link #join}, {@link #get}),
 * so that a send lingering in its partition is written at once instead of when the linger ends.
 */
abstract class AwaitedFuture<T> extends CompletableFuture<T> {

    /** Called, while this future is not done, before a thread blocks on it. */
    abstract void awaiting();

    @Override
    public T join() {
        if (!isDone()) {
            awaiting();
        }
        return super.join();
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        if (!isDone()) {
            awaiting();
        }
        return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        if (!isDone()) {
            awaiting();
        }
        return super.get(timeout, unit);
    }

    /**
     * A future derived from a {@link Request} ({@code thenApply}, {@code handle}, ...): blocking on it
     * tells the request's partition, as blocking on the request itself does.
     */
    static final class Dependent<T> extends AwaitedFuture<T> {

        private final Request<?> source;

        Dependent(Request<?> source) {
            this.source = source;
        }

        @Override
        void awaiting() {
            source.awaiting();
        }

        @Override
        public <U> CompletableFuture<U> newIncompleteFuture() {
            return new Dependent<>(source);
        }
    }
}
