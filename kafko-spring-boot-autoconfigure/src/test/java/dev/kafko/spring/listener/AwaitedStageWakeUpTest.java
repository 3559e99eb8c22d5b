package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The polling thread's wait for a listener's stage under {@code manual_immediate} ({@link AwaitedStage#await}): each
 * acknowledgment queued on another thread meanwhile is committed by the wait, none lost whenever it comes, and the
 * wake-ups leave nothing behind on the stage.
 */
class AwaitedStageWakeUpTest {

    /** What the acknowledging thread queued, and what the polling thread's commits took. */
    private final AtomicLong queued = new AtomicLong();
    private final AtomicLong committed = new AtomicLong();
    private final AtomicInteger commits = new AtomicInteger();

    private AwaitedStage stage() {
        return new AwaitedStage(true, () -> {
            committed.set(queued.get());
            commits.incrementAndGet();
        });
    }

    @Test
    void everyAcknowledgmentWhileTheStageRunsIsCommittedBeforeTheNextOneIsGiven() throws Exception {
        AwaitedStage stage = stage();
        CompletableFuture<String> future = new CompletableFuture<>();
        int acknowledgments = 20_000;
        Thread worker = new Thread(() -> {
            for (int i = 1; i <= acknowledgments; i++) {
                queued.set(i);
                stage.acknowledgedElsewhere();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (committed.get() < i) {
                    if (System.nanoTime() > deadline) {
                        future.completeExceptionally(new AssertionError("acknowledgment " + i + " never committed"));
                        return;
                    }
                    Thread.onSpinWait();
                }
            }
            future.complete("done");
        });
        worker.start();
        assertThat(stage.await(future)).isEqualTo("done");
        worker.join();
        assertThat(committed.get()).isEqualTo(acknowledgments);
    }

    @Test
    void manyWakeUpsLeaveNoDependentsOnTheStage() throws Exception {
        AwaitedStage stage = stage();
        CompletableFuture<String> future = new CompletableFuture<>();
        AtomicInteger mostDependents = new AtomicInteger();
        Thread worker = new Thread(() -> {
            for (int i = 1; i <= 100_000; i++) {
                queued.set(i);
                stage.acknowledgedElsewhere();
                if (i % 1000 == 0) {
                    mostDependents.accumulateAndGet(future.getNumberOfDependents(), Math::max);
                }
            }
            future.complete("done");
        });
        worker.start();
        assertThat(stage.await(future)).isEqualTo("done");
        worker.join();
        assertThat(mostDependents.get()).as("dependents on the stage while it ran").isLessThanOrEqualTo(4);
        assertThat(commits.get()).isPositive();
        assertThat(committed.get()).isEqualTo(100_000);
    }

    @Test
    void anAcknowledgmentQueuedBeforeTheFirstWaitIsCommittedByIt() throws Exception {
        AwaitedStage stage = stage();
        queued.set(1);
        stage.acknowledgedElsewhere();
        CompletableFuture<String> future = new CompletableFuture<>();
        Thread worker = new Thread(() -> {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (committed.get() < 1 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            future.complete(committed.get() == 1 ? "committed while waiting" : "not committed");
        });
        worker.start();
        assertThat(stage.await(future)).isEqualTo("committed while waiting");
        worker.join();
    }

    @Test
    void anAcknowledgmentOfAStageThatCompletedBeforeTheWaitIsCommittedBeforeTheWaitReturns() throws Exception {
        AwaitedStage stage = stage();
        CompletableFuture<String> future = new CompletableFuture<>();
        queued.set(1);
        stage.acknowledgedElsewhere(); // the stage's last step acknowledges, then the stage completes
        future.complete("done");
        assertThat(stage.await(future)).isEqualTo("done");
        assertThat(committed.get()).as("committed before the polling thread goes on to the poll's next record")
                .isEqualTo(1);
    }

    @Test
    void aFailedOrCancelledStageFailsTheWaitAsGetDoesAfterCommittingItsAcknowledgment() {
        AwaitedStage stage = stage();
        CompletableFuture<String> failed = new CompletableFuture<>();
        queued.set(1);
        stage.acknowledgedElsewhere();
        failed.completeExceptionally(new IllegalStateException("boom"));
        assertThatThrownBy(() -> stage.await(failed)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IllegalStateException.class);
        assertThat(committed.get()).isEqualTo(1);

        CompletableFuture<String> cancelled = new CompletableFuture<>();
        cancelled.cancel(true);
        assertThatThrownBy(() -> stage.await(cancelled)).isInstanceOf(CancellationException.class);
    }

    @Test
    void anInterruptEndsTheWaitAsGetDoes() {
        AwaitedStage stage = stage();
        CompletableFuture<String> never = new CompletableFuture<>();
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> stage.await(never)).isInstanceOf(InterruptedException.class);
        } finally {
            Thread.interrupted();
        }
        assertThat(never.getNumberOfDependents()).isZero();
    }
}
