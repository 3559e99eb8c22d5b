package dev.kafko.spring.transaction;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The future a send inside a transaction returns, and every stage made from it: completed as the template's own is,
 * but refusing to block the transaction's thread before the commit, which alone writes the record. Its
 * {@link #minimalCompletionStage()} is one of these too (JDK's minimal stage would hand out, from
 * {@code toCompletableFuture()}, a plain future whose wait never ends), refusing, as JDK's does, to be completed,
 * waited for or asked whether it is done itself, and failing, as JDK's does, with a {@code CompletionException}.
 */
final class TransactionalFuture<T> extends CompletableFuture<T> implements BiConsumer<T, Throwable> {

    private final KafkoResourceHolder transaction;
    private final boolean minimal;

    TransactionalFuture(KafkoResourceHolder transaction) {
        this(transaction, false);
    }

    private TransactionalFuture(KafkoResourceHolder transaction, boolean minimal) {
        this.transaction = transaction;
        this.minimal = minimal;
    }

    @Override
    public void accept(@Nullable T value, @Nullable Throwable failure) {
        if (failure != null) {
            // a minimal stage fails, as the JDK's does, with a CompletionException whose cause is the failure
            super.completeExceptionally(minimal && !(failure instanceof CompletionException)
                    ? new CompletionException(failure) : failure);
        } else {
            super.complete(value);
        }
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        refuseIfMinimal();
        refuseToWaitForItself();
        return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        refuseIfMinimal();
        refuseToWaitForItself();
        return super.get(timeout, unit);
    }

    @Override
    public T join() {
        refuseIfMinimal();
        refuseToWaitForItself();
        return super.join();
    }

    @Override
    public T getNow(T valueIfAbsent) {
        refuseIfMinimal();
        return super.getNow(valueIfAbsent);
    }

    @Override
    public boolean isDone() {
        refuseIfMinimal();
        return super.isDone();
    }

    @Override
    public boolean isCancelled() {
        refuseIfMinimal();
        return super.isCancelled();
    }

    @Override
    public boolean isCompletedExceptionally() {
        refuseIfMinimal();
        return super.isCompletedExceptionally();
    }

    @Override
    public int getNumberOfDependents() {
        refuseIfMinimal();
        return super.getNumberOfDependents();
    }

    @Override
    public boolean complete(T value) {
        refuseIfMinimal();
        return super.complete(value);
    }

    @Override
    public boolean completeExceptionally(Throwable failure) {
        refuseIfMinimal();
        return super.completeExceptionally(failure);
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        refuseIfMinimal();
        return super.cancel(mayInterruptIfRunning);
    }

    @Override
    public void obtrudeValue(T value) {
        refuseIfMinimal();
        super.obtrudeValue(value);
    }

    @Override
    public void obtrudeException(Throwable failure) {
        refuseIfMinimal();
        super.obtrudeException(failure);
    }

    @Override
    public CompletableFuture<T> completeAsync(Supplier<? extends T> supplier, Executor executor) {
        refuseIfMinimal();
        return super.completeAsync(supplier, executor);
    }

    @Override
    public CompletableFuture<T> orTimeout(long timeout, TimeUnit unit) {
        refuseIfMinimal();
        return super.orTimeout(timeout, unit);
    }

    @Override
    public CompletableFuture<T> completeOnTimeout(T value, long timeout, TimeUnit unit) {
        refuseIfMinimal();
        return super.completeOnTimeout(value, timeout, unit);
    }

    /** A minimal stage, completed with this future, whose dependents and full future refuse the same wait. */
    @Override
    public CompletionStage<T> minimalCompletionStage() {
        TransactionalFuture<T> stage = new TransactionalFuture<>(transaction, true);
        whenComplete(stage);
        return stage;
    }

    /** The full future of a minimal stage: one of these, refusing the same wait. */
    @Override
    public CompletableFuture<T> toCompletableFuture() {
        if (!minimal) {
            return this;
        }
        TransactionalFuture<T> full = new TransactionalFuture<>(transaction);
        whenComplete(full);
        return full;
    }

    private void refuseIfMinimal() {
        if (minimal) {
            throw new UnsupportedOperationException("a minimal completion stage: use toCompletableFuture()");
        }
    }

    private void refuseToWaitForItself() {
        if (!super.isDone() && transaction.waitsForItself()) {
            throw new IllegalStateException("This send belongs to a transaction that has not committed: its record is"
                    + " written, and its future completed, when the transaction commits, so waiting for it here would"
                    + " never end. Wait for it after the commit, or act on it in a callback (whenComplete, thenAccept)");
        }
    }

    /** The stages made from this one ({@code thenApply}, ...) refuse the same wait. */
    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        if (!super.isDone() && transaction.waitsForItself()) {
            Transactions.stageOfHeldSendMade(transaction); // a returned Mono subscribing to it would wait for its own commit
        }
        return new TransactionalFuture<>(transaction, minimal);
    }
}
