package dev.kafko.spring.transaction;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * The future a send inside a transaction returns, and every stage made from it: completed as the template's own is,
 * but refusing to block the transaction's thread before the commit, which alone writes the record.
 */
final class TransactionalFuture<T> extends CompletableFuture<T> implements BiConsumer<T, Throwable> {

    private final KafkoResourceHolder transaction;

    TransactionalFuture(KafkoResourceHolder transaction) {
        this.transaction = transaction;
    }

    @Override
    public void accept(@Nullable T value, @Nullable Throwable failure) {
        if (failure != null) {
            completeExceptionally(failure);
        } else {
            complete(value);
        }
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        refuseToWaitForItself();
        return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        refuseToWaitForItself();
        return super.get(timeout, unit);
    }

    @Override
    public T join() {
        refuseToWaitForItself();
        return super.join();
    }

    private void refuseToWaitForItself() {
        if (!isDone() && transaction.waitsForItself()) {
            throw new IllegalStateException("This send belongs to a transaction that has not committed: its record is"
                    + " written, and its future completed, when the transaction commits, so waiting for it here would"
                    + " never end. Wait for it after the commit, or act on it in a callback (whenComplete, thenAccept)");
        }
    }

    /** The stages made from this one ({@code thenApply}, ...) refuse the same wait. */
    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new TransactionalFuture<>(transaction);
    }
}
