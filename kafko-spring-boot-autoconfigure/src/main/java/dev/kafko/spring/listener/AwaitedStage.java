package dev.kafko.spring.listener;

import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * What a member's polling thread waits for from its listener: the {@code CompletionStage} or {@code Mono} the
 * listener returned, which the member cancels when a stop overran its shutdown timeout waiting for it (else its
 * thread, and the {@code Mono}'s subscription and timers, outlived the stop and the context). The record it was for
 * is then not committed, not handed to an error handler and not replied to: it is delivered again, as any record in
 * hand at a stop. Used by the listener adapter on the polling thread; not for applications.
 */
public final class AwaitedStage {

    private static final ThreadLocal<AwaitedStage> CURRENT = new ThreadLocal<>();

    /** Cancels what the polling thread waits for, true when that ended the wait; null while it waits for nothing. */
    private @Nullable BooleanSupplier cancel;
    /** The stop overran its shutdown timeout: what the member waits for now, or will, is cancelled. */
    private boolean stopOverran;
    /** The stop cancelled a stage the member waited for: its record is the stop's, not a failure. Polling thread. */
    private boolean cancelledByStop;
    /** The member's listener acknowledges by hand: what it acknowledged before a cancellation is committed. */
    private final boolean manualAck;
    /**
     * Under {@code manual_immediate}: commits, on the polling thread, what was acknowledged on other threads, so that
     * such an acknowledgment counts at once while the member waits for the stage; null under the other ack modes.
     */
    private final @Nullable Runnable commitForeignAcks;
    /** Completed when an acknowledgment on another thread is queued: ends the current wait to commit it. */
    private volatile CompletableFuture<Void> acknowledged = new CompletableFuture<>();

    AwaitedStage() {
        this(false, null);
    }

    AwaitedStage(boolean manualAck, @Nullable Runnable commitForeignAcks) {
        this.manualAck = manualAck;
        this.commitForeignAcks = commitForeignAcks;
    }

    /**
     * On the polling thread: waits for {@code future} as {@link CompletableFuture#get()} does (what it throws
     * included), and, under {@code manual_immediate}, commits each acknowledgment the listener gives on another thread
     * meanwhile as it comes, rather than once the stage completed (a crash in between would deliver it again), and one
     * given before the stage completed as the wait ends, also when the stage was over before the wait began, rather
     * than once the poll's other records were delivered.
     */
    public Object await(CompletableFuture<?> future) throws InterruptedException, ExecutionException {
        if (commitForeignAcks == null) {
            return future.get();
        }
        try {
            try {
                return future.get(0, TimeUnit.NANOSECONDS); // refuses as get() does (a send of its own transaction)
            } catch (TimeoutException notYet) {
                // wait below
            }
            while (!future.isDone()) {
                CompletableFuture<Void> next = acknowledged;
                try {
                    CompletableFuture.anyOf(future, next).get();
                } catch (ExecutionException | CancellationException ended) {
                    // the stage failed or was cancelled: get() below throws what it would
                }
                commitAcknowledged();
            }
            return future.get();
        } finally {
            if (future.isDone()) {
                // its work acknowledged, then completed, before the wait saw it (or before the wait began)
                commitAcknowledged();
            }
        }
    }

    /** Commits what was acknowledged on other threads since the last commit here, if anything was. Polling thread. */
    private void commitAcknowledged() {
        if (acknowledged.isDone()) {
            acknowledged = new CompletableFuture<>();
            Objects.requireNonNull(commitForeignAcks).run();
        }
    }

    /** An acknowledgment was queued on another thread: a wait for the stage commits it ({@link #await}). Any thread. */
    void acknowledgedElsewhere() {
        acknowledged.complete(null);
    }

    /**
     * What becomes of records whose stage the stop cancelled, for the messages that tell it: under a manual ack mode an
     * acknowledgment the listener (or a retry's) gave before the cancellation still counts.
     *
     * @param one whether the message speaks of one record ("it") rather than of several ("them")
     */
    public String notCommittedAtCancel(boolean one) {
        return notCommittedAtCancel(manualAck, one);
    }

    /** {@link #notCommittedAtCancel(boolean)} for a member that acknowledges by hand ({@code manualAck}) or not. */
    static String notCommittedAtCancel(boolean manualAck, boolean one) {
        String them = one ? "it" : "them";
        return manualAck
                ? "not committed unless the listener acknowledged " + them + " before; " + (one ? "if not, it is"
                        : "those it did not are") + " delivered again when the group next reads " + them
                : "not committed and will be delivered again when the group next reads " + them;
    }

    /** The stage slot of the member whose polling thread this is; null on any other thread. */
    public static @Nullable AwaitedStage current() {
        return CURRENT.get();
    }

    /** Binds this slot to the calling thread, the member's polling thread. */
    void bind() {
        CURRENT.set(this);
    }

    /** Unbinds the calling thread's slot. */
    static void unbind() {
        CURRENT.remove();
    }

    /**
     * On the polling thread, before it waits: {@code cancel} ends the wait (true when it did, false when the stage
     * had completed). After a stop overran, it is cancelled at once.
     */
    public void awaiting(BooleanSupplier cancel) {
        boolean now;
        synchronized (this) {
            this.cancel = cancel;
            now = stopOverran;
        }
        if (now) {
            cancel();
        }
    }

    /** On the polling thread, once its wait ended. */
    public void awaited() {
        synchronized (this) {
            cancel = null;
        }
    }

    /**
     * On the polling thread, whose wait ended cancelled: whether the member's stop cancelled it (after its shutdown
     * timeout), and not the listener's own code. From then on the member's record in hand is the stop's: not a
     * failure, not committed.
     */
    public boolean cancelledByStop() {
        boolean overran;
        synchronized (this) {
            overran = stopOverran;
        }
        if (overran) {
            cancelledByStop = true;
        }
        return overran;
    }

    /** On the polling thread: whether the member's stop cancelled a stage it waited for ({@link #cancelledByStop}). */
    boolean stageCancelled() {
        return cancelledByStop;
    }

    /**
     * A stop overran its shutdown timeout: cancels what the member waits for, and what it waits for next. Any thread.
     *
     * @return whether a wait was cancelled (the member's thread is about to end)
     */
    boolean stopOverran() {
        synchronized (this) {
            stopOverran = true;
        }
        return cancel();
    }

    private boolean cancel() {
        BooleanSupplier c;
        synchronized (this) {
            c = cancel;
        }
        return c != null && c.getAsBoolean();
    }
}
