package dev.kafko.spring.listener.adapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * What {@link MessagingMessageListenerAdapter#completed} throws for a stage that ended cancelled, off a member's
 * polling thread (no stop involved): a stage the listener's code cancelled fails with the {@link IllegalStateException}
 * that says so; one that failed with a {@link CancellationException} of its own (a subclass, or one with a message: a
 * coroutine's {@code withTimeout}) fails with that very exception, as any failure. Whatever {@code get()} throws for a
 * cancelled future: the JDK 17 rethrows the future's own exception, newer JDKs (25) a new
 * {@code CancellationException("get")} whose cause it is, which {@link JdkGet} does here on any JDK.
 */
class CancelledStageFailureTest {

    /** A coroutine's own cancellation: a subclass, with a message, as kotlinx's TimeoutCancellationException. */
    static final class TimedOut extends CancellationException {
        private static final long serialVersionUID = 1L;

        TimedOut() {
            super("Timed out waiting for 10 ms");
        }
    }

    /** A future whose {@code get()} reports a cancellation as newer JDKs do: a new exception, the stored one its cause. */
    static final class JdkGet<T> extends CompletableFuture<T> {
        @Override
        public T get() throws InterruptedException, ExecutionException {
            try {
                return super.get();
            } catch (CancellationException e) {
                throw (CancellationException) new CancellationException("get").initCause(e);
            }
        }

        @Override
        public T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException,
                TimeoutException {
            return get();
        }
    }

    @Test
    void aStageTheListenerCancelledFailsSayingSo() {
        for (CompletableFuture<Object> future : List.of(new CompletableFuture<>(), new JdkGet<>())) {
            future.cancel(true);

            Throwable thrown = catchThrowable(() -> MessagingMessageListenerAdapter.completed(future));

            assertThat(thrown).as(future.getClass().getSimpleName()).isExactlyInstanceOf(IllegalStateException.class)
                    .hasMessage("the CompletionStage the listener returned was cancelled");
        }
    }

    @Test
    void aStageThatFailedWithACancellationOfItsOwnFailsWithIt() {
        for (CompletableFuture<Object> future : List.of(new CompletableFuture<>(), new JdkGet<>())) {
            TimedOut own = new TimedOut();
            future.completeExceptionally(own);

            Throwable thrown = catchThrowable(() -> MessagingMessageListenerAdapter.completed(future));

            assertThat(thrown).as(future.getClass().getSimpleName()).isSameAs(own);
        }
    }

    @Test
    void aBareCancellationWithAMessageIsTheListenersFailureToo() {
        for (CompletableFuture<Object> future : List.of(new CompletableFuture<>(), new JdkGet<>())) {
            CancellationException own = new CancellationException("gave up");
            future.completeExceptionally(own);

            Throwable thrown = catchThrowable(() -> MessagingMessageListenerAdapter.completed(future));

            assertThat(thrown).as(future.getClass().getSimpleName()).isSameAs(own);
        }
    }
}
