package dev.kafko.internal.broker;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Internal: a future that says when a thread is about to block on it ({@link #join}, {@link #get}),
 * so that a send lingering in its partition is written at once instead of when the linger ends.
 *
 * <p>A callback added to it once it is complete runs inside the call that adds it, as on any
 * {@code CompletableFuture}; such calls count in {@link ThreadMarks#NESTED} while they run, so that a chain
 * of sends made from such callbacks does not nest without end (see {@link ThreadMarks}).
 *
 * <p>A blocked thread wakes every {@link CompletionBarrier#STRANDED_LOOK_NANOS} to {@link #stillAwaiting look} for
 * rounds stranded since it blocked: the thread that ran out of stack completing this future's round cannot wake it
 * (see {@link CompletionBarrier}), and nobody else may come to the partition.
 */
abstract class AwaitedFuture<T> extends CompletableFuture<T> {

    /** Called, while this future is not done, before a thread blocks on it. */
    abstract void awaiting();

    /**
     * Called every {@link CompletionBarrier#STRANDED_LOOK_NANOS} while a thread is blocked on this future: completes
     * the rounds of its partition stranded since, if any (this future may be one of them, or wait for one).
     */
    abstract void stillAwaiting();

    /** Before a call that may run its function inline: the thread's marks, counted in, or null when this is not done. */
    private int @Nullable [] enterInline() {
        if (!isDone()) {
            return null;
        }
        int[] marks = ThreadMarks.get();
        marks[ThreadMarks.NESTED]++;
        return marks;
    }

    private static void exitInline(int @Nullable [] marks) {
        if (marks != null && --marks[ThreadMarks.NESTED] == 0) {
            DeferredSends.runIfOutermost(marks);
        }
    }

    // every method that may run its function inside the call (the async ones too: their executor may run it there)
    // is counted as NESTED while it runs, by enterInline and exitInline around the call

    @Override
    public CompletableFuture<T> whenComplete(BiConsumer<? super T, ? super Throwable> action) {
        int[] marks = enterInline();
        try {
            return super.whenComplete(action);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public CompletableFuture<T> whenCompleteAsync(BiConsumer<? super T, ? super Throwable> action, Executor executor) {
        int[] marks = enterInline();
        try {
            return super.whenCompleteAsync(action, executor);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public <U> CompletableFuture<U> handle(BiFunction<? super T, Throwable, ? extends U> fn) {
        int[] marks = enterInline();
        try {
            return super.handle(fn);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public <U> CompletableFuture<U> handleAsync(BiFunction<? super T, Throwable, ? extends U> fn, Executor executor) {
        int[] marks = enterInline();
        try {
            return super.handleAsync(fn, executor);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public <U> CompletableFuture<U> thenApply(Function<? super T, ? extends U> fn) {
        int[] marks = enterInline();
        try {
            return super.thenApply(fn);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public <U> CompletableFuture<U> thenApplyAsync(Function<? super T, ? extends U> fn, Executor executor) {
        int[] marks = enterInline();
        try {
            return super.thenApplyAsync(fn, executor);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public CompletableFuture<Void> thenAccept(Consumer<? super T> action) {
        int[] marks = enterInline();
        try {
            return super.thenAccept(action);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public CompletableFuture<Void> thenAcceptAsync(Consumer<? super T> action, Executor executor) {
        int[] marks = enterInline();
        try {
            return super.thenAcceptAsync(action, executor);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public CompletableFuture<Void> thenRun(Runnable action) {
        int[] marks = enterInline();
        try {
            return super.thenRun(action);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public CompletableFuture<Void> thenRunAsync(Runnable action, Executor executor) {
        int[] marks = enterInline();
        try {
            return super.thenRunAsync(action, executor);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public <U> CompletableFuture<U> thenCompose(Function<? super T, ? extends CompletionStage<U>> fn) {
        int[] marks = enterInline();
        try {
            return super.thenCompose(fn);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public <U> CompletableFuture<U> thenComposeAsync(Function<? super T, ? extends CompletionStage<U>> fn,
                                                     Executor executor) {
        int[] marks = enterInline();
        try {
            return super.thenComposeAsync(fn, executor);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public CompletableFuture<T> exceptionally(Function<Throwable, ? extends T> fn) {
        int[] marks = enterInline();
        try {
            return super.exceptionally(fn);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public CompletableFuture<T> exceptionallyAsync(Function<Throwable, ? extends T> fn, Executor executor) {
        int[] marks = enterInline();
        try {
            return super.exceptionallyAsync(fn, executor);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public CompletableFuture<T> exceptionallyCompose(Function<Throwable, ? extends CompletionStage<T>> fn) {
        int[] marks = enterInline();
        try {
            return super.exceptionallyCompose(fn);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public CompletableFuture<T> exceptionallyComposeAsync(Function<Throwable, ? extends CompletionStage<T>> fn,
                                                          Executor executor) {
        int[] marks = enterInline();
        try {
            return super.exceptionallyComposeAsync(fn, executor);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public <U, V> CompletableFuture<V> thenCombine(CompletionStage<? extends U> other,
                                                   BiFunction<? super T, ? super U, ? extends V> fn) {
        int[] marks = enterInline();
        try {
            return super.thenCombine(other, fn);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public <U, V> CompletableFuture<V> thenCombineAsync(CompletionStage<? extends U> other,
                                                        BiFunction<? super T, ? super U, ? extends V> fn,
                                                        Executor executor) {
        int[] marks = enterInline();
        try {
            return super.thenCombineAsync(other, fn, executor);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public <U> CompletableFuture<Void> thenAcceptBoth(CompletionStage<? extends U> other,
                                                      BiConsumer<? super T, ? super U> action) {
        int[] marks = enterInline();
        try {
            return super.thenAcceptBoth(other, action);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public <U> CompletableFuture<Void> thenAcceptBothAsync(CompletionStage<? extends U> other,
                                                           BiConsumer<? super T, ? super U> action, Executor executor) {
        int[] marks = enterInline();
        try {
            return super.thenAcceptBothAsync(other, action, executor);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public CompletableFuture<Void> runAfterBoth(CompletionStage<?> other, Runnable action) {
        int[] marks = enterInline();
        try {
            return super.runAfterBoth(other, action);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public CompletableFuture<Void> runAfterBothAsync(CompletionStage<?> other, Runnable action, Executor executor) {
        int[] marks = enterInline();
        try {
            return super.runAfterBothAsync(other, action, executor);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public <U> CompletableFuture<U> applyToEither(CompletionStage<? extends T> other, Function<? super T, U> fn) {
        int[] marks = enterInline();
        try {
            return super.applyToEither(other, fn);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public <U> CompletableFuture<U> applyToEitherAsync(CompletionStage<? extends T> other, Function<? super T, U> fn,
                                                       Executor executor) {
        int[] marks = enterInline();
        try {
            return super.applyToEitherAsync(other, fn, executor);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public CompletableFuture<Void> acceptEither(CompletionStage<? extends T> other, Consumer<? super T> action) {
        int[] marks = enterInline();
        try {
            return super.acceptEither(other, action);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public CompletableFuture<Void> acceptEitherAsync(CompletionStage<? extends T> other, Consumer<? super T> action,
                                                     Executor executor) {
        int[] marks = enterInline();
        try {
            return super.acceptEitherAsync(other, action, executor);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public CompletableFuture<Void> runAfterEither(CompletionStage<?> other, Runnable action) {
        int[] marks = enterInline();
        try {
            return super.runAfterEither(other, action);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public CompletableFuture<Void> runAfterEitherAsync(CompletionStage<?> other, Runnable action, Executor executor) {
        int[] marks = enterInline();
        try {
            return super.runAfterEitherAsync(other, action, executor);
        } finally {
            exitInline(marks);
        }
    }

    @Override
    public T join() {
        if (!isDone()) {
            awaiting();
            boolean interrupted = false;
            while (!isDone()) {
                try {
                    super.get(CompletionBarrier.STRANDED_LOOK_NANOS, TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    stillAwaiting();
                } catch (InterruptedException e) {
                    interrupted = true; // join is not interruptible: the interrupt is kept
                } catch (ExecutionException | CancellationException e) {
                    break; // done: thrown as join throws it, below
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return super.join();
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        if (!isDone()) {
            awaiting();
            while (!isDone()) {
                try {
                    return super.get(CompletionBarrier.STRANDED_LOOK_NANOS, TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    stillAwaiting();
                }
            }
        }
        return super.get();
    }

    @Override
    public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        if (!isDone()) {
            awaiting();
            long deadline = System.nanoTime() + unit.toNanos(timeout);
            for (long left = unit.toNanos(timeout); left > CompletionBarrier.STRANDED_LOOK_NANOS && !isDone();
                    left = deadline - System.nanoTime()) {
                try {
                    return super.get(CompletionBarrier.STRANDED_LOOK_NANOS, TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    stillAwaiting();
                }
            }
            return super.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
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
        void stillAwaiting() {
            source.stillAwaiting();
        }

        @Override
        public <U> CompletableFuture<U> newIncompleteFuture() {
            return new Dependent<>(source);
        }
    }
}
