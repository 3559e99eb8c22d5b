package dev.kafko.internal.broker;

import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoException;
import dev.kafko.KafkoStorageException;
import dev.kafko.PartitionFailedException;
import dev.kafko.PartitionInfo;
import dev.kafko.PartitionState;
import dev.kafko.UnknownTopicException;
import dev.kafko.internal.log.PartitionLog;
import java.lang.System.Logger.Level;
import org.jspecify.annotations.Nullable;

/**
 * Internal: how one partition stops running: it fails (its log failed: {@link PartitionState#FAILED}, with the
 * cause) or it closes (a close or a topic's deletion: {@link PartitionState#CLOSED}); what a request it can no
 * longer take is told, and what the requests of a round that failed half-way are ({@link #roundFailure}); and the
 * snapshot {@link dev.kafko.Topic#partitions()} shows. The transitions, {@link #rejection} and
 * {@link #roundFailure} run on the partition's owner, {@link #info} on any thread. The state itself stays
 * {@link PartitionActor}'s field, which its owner reads on every round. One per {@link PartitionActor}.
 */
final class PartitionLifecycle {

    /** Logged under the actor's name: what a partition reports is the partition's. */
    private static final System.Logger LOG = System.getLogger(PartitionActor.class.getName());

    private final PartitionActor actor;
    private final PartitionLog log;
    private final Waiters waiters;
    private final BrokerContext ctx;
    private volatile boolean deleted;
    private volatile @Nullable Throwable failure;
    private volatile @Nullable PartitionInfo closedInfo;

    PartitionLifecycle(PartitionActor actor, PartitionLog log, Waiters waiters, BrokerContext ctx) {
        this.actor = actor;
        this.log = log;
        this.waiters = waiters;
        this.ctx = ctx;
    }

    /** The owner's run of a close or a deletion ({@code c}): the log closed, the partition {@code CLOSED}. */
    void close(CommandRequest c) {
        if (actor.state == PartitionState.CLOSED) {
            return;
        }
        closedInfo = snapshot(PartitionState.CLOSED, null);
        deleted = c.kind == CommandRequest.Kind.DELETE;
        try {
            log.close(ctx.options().durableClose());
        } catch (RuntimeException | Error e) {
            if (actor.state == PartitionState.RUNNING) {
                c.error = e instanceof KafkoException ? e : new KafkoStorageException(
                        "closing partition " + actor.topic + "-" + actor.partition + " failed: " + e, e);
            }
            logQuietly(Level.WARNING, "closing partition " + actor.topic + "-" + actor.partition + " failed: " + e, e);
        }
        actor.state = PartitionState.CLOSED;
        waiters.wakeAll();
    }

    /**
     * The exception to hand to the waiters of a failed operation; when the log says it failed (its
     * fail-fast policy after an I/O error), the partition enters the failed state. Owner only.
     */
    Throwable failure(Throwable e, String what) {
        String name = actor.topic + "-" + actor.partition;
        Throwable cause = e instanceof KafkoException ? e
                : e instanceof OutOfMemoryError ? new KafkoException(what + " of partition " + name
                        + " ran out of heap; nothing of it was written: " + e, e)
                : e instanceof StackOverflowError ? new KafkoException(what + " of partition " + name
                        + " ran out of stack (the sending thread was deep in a recursion of its own: send from a loop,"
                        + " or through an executor): " + e, e)
                : new KafkoStorageException(what + " of partition " + name + " failed: " + e, e);
        // a heap that ran out before the log was touched (encoding a frame) leaves the log as it was, and
        // so does a stack that ran out anywhere but where the log changes what it publishes (the log fails
        // itself then); any other Error may have left a write half done
        boolean fatal = log.isFailed()
                || (e instanceof Error && !(e instanceof OutOfMemoryError) && !(e instanceof StackOverflowError));
        if (actor.state == PartitionState.RUNNING && fatal) {
            Throwable logFailure = log.failure();
            failure = logFailure != null ? logFailure : cause;
            actor.state = PartitionState.FAILED;
            waiters.wakeAll();
            logQuietly(Level.ERROR, "partition " + name + " failed during " + what + ": " + e, e);
        }
        if (ctx.observing()) {
            ctx.observer().onFailure(actor.topic, actor.partition, cause);
        }
        return cause;
    }

    /**
     * An {@link InternalError} reached the owner's round outside the log's own calls: the JVM reports a fault of a
     * store into a mapped page late, wherever the thread then is, so a frame of the round may be torn. The log and
     * the partition fail, as after any I/O error of an append; returns the exception for the round's requests.
     * Owner only.
     */
    Throwable lateFault(InternalError e) {
        log.failLate(e);
        return failure(e, "append");
    }

    /**
     * Something besides the log failed half-way through a round (an observer or a log handler threw, the heap ran
     * out, a store into a mapped page faulted): returns the exception for the requests of the round not yet settled.
     * A fault of a mapped store ({@link #isMemoryFault}) fails the partition ({@link #lateFault}) and every append
     * of the round, from {@code first}, also those settled before {@code open} (a failed send may have been stored,
     * as after any I/O error); any other failure leaves the log intact. Owner only.
     */
    Throwable roundFailure(Throwable e, Request<?> first, @Nullable Request<?> open) {
        if (e instanceof InternalError late && isMemoryFault(late)) {
            // the JVM reports the fault here, wherever the thread then is: a frame this round wrote may be torn
            Throwable cause = lateFault(late);
            for (Request<?> q = first; q != open && q != null; q = q.next) {
                if (q.error == null && q.recordCount() > 0) {
                    q.error = cause;
                }
            }
            return cause;
        }
        return e instanceof KafkoException ? e : new KafkoException("partition " + actor.topic + "-"
                + actor.partition + " could not finish a round of requests: " + e, e);
    }

    /**
     * Whether {@code e} is the JVM's report of a faulted access to mapped memory (HotSpot: "a fault occurred in an
     * [recent] unsafe memory access operation"), rather than an {@link InternalError} of other code in the round (an
     * observer's, a method handle's), which leaves the log intact and must not fail the partition.
     */
    static boolean isMemoryFault(InternalError e) {
        String m = e.getMessage();
        return m != null && m.contains("unsafe memory access");
    }

    /**
     * Logs without letting the logging fail the caller: a handler that throws (one that cannot open a
     * file when descriptors ran out, say) must not take the place of the failure being reported.
     */
    static void logQuietly(Level level, String message, @Nullable Throwable e) {
        try {
            LOG.log(level, message, e);
        } catch (RuntimeException | Error ignored) {
            // the failure is still reported: to the futures, and by the partition's state
        }
    }

    /**
     * Logs a warning of a close as {@link #logQuietly} does and, during the JVM's shutdown, writes it to standard error
     * too: the JDK's logging resets its handlers in a shutdown hook of its own, and a warning a close in another
     * hook logs (a partition given up, a callback waited out) would otherwise never be seen.
     */
    static void warnEvenAtShutdown(String message) {
        logQuietly(Level.WARNING, message, null);
        try {
            if (JvmShutdown.inProgress()) {
                System.err.println("WARNING kafko: " + message);
            }
        } catch (RuntimeException | Error ignored) {
            // as logQuietly: reporting must not fail the close
        }
    }

    /** The exception for a request the partition can no longer take. Owner only. */
    KafkoException rejection() {
        if (actor.state == PartitionState.FAILED) {
            Throwable f = failure;
            return new PartitionFailedException("partition " + actor.topic + "-" + actor.partition + " failed earlier: "
                    + f, f);
        }
        if (deleted) {
            return new UnknownTopicException("topic '" + actor.topic + "' was deleted");
        }
        return new KafkoClosedException("partition " + actor.topic + "-" + actor.partition + " is closed");
    }

    /** A snapshot for {@link dev.kafko.Topic#partitions()}. Any thread. */
    PartitionInfo info() {
        PartitionInfo closed = closedInfo;
        if (closed != null && actor.state == PartitionState.CLOSED) {
            return closed;
        }
        PartitionState s = actor.state;
        // the failure is set before the state says FAILED: read after it, a running partition shows none
        return snapshot(s, s == PartitionState.RUNNING ? null : failure);
    }

    private PartitionInfo snapshot(PartitionState s, @Nullable Throwable cause) {
        return new PartitionInfo(actor.topic, actor.partition, log.logStartOffset(), log.endOffset(), log.sizeBytes(),
                log.segmentCount(), s, cause);
    }
}
