package dev.kafko.internal.broker;

import dev.kafko.FsyncPolicy;
import dev.kafko.InterruptException;
import dev.kafko.KafkoException;
import dev.kafko.PartitionState;
import dev.kafko.TopicConfig;
import dev.kafko.internal.log.AppendSizes;
import dev.kafko.internal.log.CompactionPlan;
import dev.kafko.internal.log.PartitionLog;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the commands of one partition: those somebody waits for (close, delete, a producer's flush, retention,
 * a changed config, a compaction) and those that only tell the owner something (a linger ended, a thread blocks on
 * a lingering send, a consumer is about to park, an interval fsync came due). The caller's side of a command that
 * is waited for runs on any thread but the partition's owner: it submits the command and waits for it, taking the
 * partition itself while the owner that found the command completes its round, and a close then waits for the
 * rounds before it. The run of every command ({@link #execute}, from {@link PartitionActor}'s round, in arrival
 * order among the sends) is the owner's. One per {@link PartitionActor}.
 */
final class PartitionCommands {

    /** How often a command's caller tries to take the partition while it waits for the command; see {@link #runCommand}. */
    static final long COMMAND_HELP_INTERVAL_MS = 10;
    /** How long a close waits for the rounds before it to complete their futures; see {@link #closeLog}. */
    static final Duration CLOSE_COMPLETION_WAIT = Duration.ofSeconds(5);

    private final PartitionActor actor;
    private final PartitionLog log;
    private final CompletionBarrier completions;
    private final PartitionLifecycle lifecycle;
    private final Waiters waiters;
    private final LingerChain chain;
    private final BrokerContext ctx;
    private final RetentionPace retentionPace = new RetentionPace();

    PartitionCommands(PartitionActor actor, PartitionLog log, CompletionBarrier completions,
                      PartitionLifecycle lifecycle, Waiters waiters, LingerChain chain, BrokerContext ctx) {
        this.actor = actor;
        this.log = log;
        this.completions = completions;
        this.lifecycle = lifecycle;
        this.waiters = waiters;
        this.chain = chain;
        this.ctx = ctx;
    }

    /**
     * Refuses {@code what} on the partition's owner thread (a {@link dev.kafko.KafkoObserver} callback there),
     * which would wait for itself. Any thread.
     */
    void requireNotOwnedByCaller(String what) {
        if (actor.ownerThread == Thread.currentThread()) {
            throw new IllegalStateException("partition " + actor.topic + "-" + actor.partition + " cannot take a "
                    + what + " from inside its own work (a KafkoObserver callback on the thread that appends to it):"
                    + " make the call from another thread");
        }
    }

    /**
     * Submits a command and waits for it; its failure is thrown as it is (typed), not wrapped. The owner
     * that found the command in its mailbox looks at the mailbox again only after it completed its round's
     * futures, and a callback of theirs may wait for this caller (for the admin lock a deletion holds): the
     * wait takes the partition itself, every {@link #COMMAND_HELP_INTERVAL_MS} ms, once that owner released it.
     */
    CommandRequest runCommand(CommandRequest.Kind kind) {
        return Objects.requireNonNull(runCommand(kind, false)); // never null without the bound
    }

    /**
     * {@link #runCommand(CommandRequest.Kind)}; with {@code boundedAtShutdown}, null once the command waited
     * {@link #CLOSE_COMPLETION_WAIT} while the JVM shuts down: a thread that owns the partition and does not let go
     * (an observer's callback that called {@code System.exit} waits for the shutdown hook this close may run in).
     */
    private @Nullable CommandRequest runCommand(CommandRequest.Kind kind, boolean boundedAtShutdown) {
        return runCommand(new CommandRequest(kind), boundedAtShutdown);
    }

    private @Nullable CommandRequest runCommand(CommandRequest c, boolean boundedAtShutdown) {
        String what = nameOf(c.kind);
        requireNotOwnedByCaller(what);
        actor.submit(c);
        boolean interrupted = false;
        long deadline = System.nanoTime() + CLOSE_COMPLETION_WAIT.toNanos();
        try {
            while (!c.isDone()) {
                try {
                    c.get(COMMAND_HELP_INTERVAL_MS, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    helpDrain();
                    if (boundedAtShutdown && !c.isDone() && System.nanoTime() - deadline >= 0
                            && JvmShutdown.inProgress()) {
                        PartitionLifecycle.warnEvenAtShutdown("the JVM shuts down and partition " + actor.topic
                                + "-" + actor.partition + " is still held by a thread that does not let go after "
                                + CLOSE_COMPLETION_WAIT + " (an observer that waits, such as one that calls System.exit):"
                                + " its " + what + " is left undone, and the next open"
                                + " recovers it as after a crash");
                        return null;
                    }
                } catch (InterruptedException e) {
                    interrupted = true; // a command is not abandoned half way: the interrupt is kept for later
                } catch (ExecutionException e) {
                    break; // thrown typed below
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return c.await();
    }

    /**
     * The command as its caller knows it, for the messages: a producer's {@link CommandRequest.Kind#WRITE_SUBMITTED}
     * is its flush (the refusal of a flush from the partition's own observer named "write_submitted").
     */
    private static String nameOf(CommandRequest.Kind kind) {
        return kind == CommandRequest.Kind.WRITE_SUBMITTED ? "flush" : kind.name().toLowerCase(Locale.ROOT);
    }

    /**
     * Takes the partition for a command's waiting caller. One that owns another partition would hand the run
     * to the scheduler (see {@link PartitionActor#drainIfIdle}); on the scheduler's own thread (an observer of its
     * interval flush making an admin call) that task would never run while the thread waits, so it runs here.
     */
    private void helpDrain() {
        int[] marks = ThreadMarks.get();
        if (marks[ThreadMarks.OWNING] > 0 && ctx.scheduler().isCurrentThread()) {
            actor.drain(marks);
        } else {
            actor.drainIfIdle();
        }
    }

    /**
     * Closes the log and returns once every round released before it has completed its futures too (a close
     * completes every pending send), unless this thread is completing a round itself (see
     * {@link CompletionBarrier}), or {@link #CLOSE_COMPLETION_WAIT} passed. An interrupt does not cut it
     * short; it is kept. (A deletion runs its command alone: it does not wait for earlier callbacks.)
     */
    void closeLog() {
        CommandRequest c = runCommand(CommandRequest.Kind.CLOSE, true);
        if (c != null) {
            awaitCompletions(c, "closing");
        }
    }

    /**
     * {@link #writeSubmitted()} for a close: the wait for the rounds before it is bounded as in {@link #closeLog}
     * (a send's callback that calls {@code System.exit} waits for the shutdown hook that runs this close, and
     * would otherwise hold the JVM for ever). An interrupt does not cut it short; it is kept.
     */
    void writeSubmittedForClose() {
        CommandRequest c = runCommand(CommandRequest.Kind.WRITE_SUBMITTED, true);
        if (c != null) {
            awaitCompletions(c, "writing the pending sends of");
        }
    }

    /** Waits, uninterrupted and at most {@link #CLOSE_COMPLETION_WAIT}, for the rounds released before {@code c}. */
    private void awaitCompletions(CommandRequest c, String what) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + CLOSE_COMPLETION_WAIT.toNanos();
        while (true) {
            try {
                if (!completions.await(c.epoch, Math.max(0, deadline - System.nanoTime()))) {
                    // the records are written either way; a callback that waits for something, or a chain of
                    // callbacks that ran out of stack before it could count its round done, must not hold the close
                    PartitionLifecycle.warnEvenAtShutdown(what + " partition " + actor.topic + "-"
                            + actor.partition + ": sends written before the close were still completing their futures"
                            + " after " + CLOSE_COMPLETION_WAIT + " (a callback that waits, such as one that calls"
                            + " System.exit, or one that ran out of stack); the close goes on");
                }
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Returns once every send submitted before the call is written (and its future completed), those
     * that lingered included. Any thread.
     */
    void writeSubmitted() {
        CommandRequest c = runCommand(CommandRequest.Kind.WRITE_SUBMITTED);
        try {
            // an earlier round may still be completing its futures on the thread that wrote it
            completions.await(c.epoch);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptException("interrupted while waiting for the sends before a flush of " + actor.topic
                    + "-" + actor.partition + " to complete");
        }
    }

    /**
     * Has the owner write by {@code config} from now on ({@link #applyConfig}), and waits for it;
     * its failure (a flush the new policy asked for) is thrown typed. Any thread but the owner.
     */
    void reconfigure(TopicConfig config, boolean forceSeals) {
        Objects.requireNonNull(runCommand(new CommandRequest(CommandRequest.Kind.RECONFIGURE, config, forceSeals), false));
    }

    /**
     * Has the owner put the segments of {@code plan} in place ({@link PartitionLog#applyCompaction}) and waits for
     * it; returns the records those it put there removed. The plan's files are deleted when it is not applied. Any
     * thread but the owner.
     */
    long compact(CompactionPlan plan, boolean force) {
        CommandRequest c = new CommandRequest(CommandRequest.Kind.COMPACT, null, force, plan);
        try {
            return Objects.requireNonNull(runCommand(c, false)).compactedRecords;
        } catch (RuntimeException | Error e) {
            if (!c.isDone()) {
                plan.discard(ctx.io()); // never reached the owner: a closed or deleted partition
            }
            throw e;
        }
    }

    /**
     * The owner's run of {@code c}, in its place in the round: every send before it in the round, those that lingered
     * included, is written already (and flushed, under {@link FsyncPolicy#EVERY_BATCH}).
     */
    void execute(CommandRequest c) {
        assert actor.ownerThread == Thread.currentThread()
                : "partition " + actor.topic + "-" + actor.partition + " has two writers";
        switch (c.kind) {
            case LINGER_ENDED -> chain.ended();
            case AWAITED -> chain.awaitedBlocked();
            case WRITE_LINGERING -> {
                // nothing more to do
            }
            case WRITE_SUBMITTED -> c.epoch = completions.flip();
            case INTERVAL_FLUSH -> {
                actor.flushScheduled = false;
                if (actor.state == PartitionState.RUNNING) {
                    actor.flush();
                }
            }
            case RETENTION -> retention();
            case RECONFIGURE -> applyConfig(c);
            case COMPACT -> applyCompaction(c);
            case CLOSE, DELETE -> {
                c.epoch = completions.flip(); // closeLog waits for the rounds before it to complete
                lifecycle.close(c);
            }
        }
    }

    /** Where a coalesced frame of a topic with {@code config} stops growing ({@link PartitionActor#frameBytes}). */
    static long frameBytesOf(TopicConfig config) {
        return Math.min(PartitionActor.MAX_FRAME_BYTES, AppendSizes.recordBytesPerSegment(config.segmentBytes()));
    }

    /**
     * The owner's run of a {@link CommandRequest.Kind#RECONFIGURE} command: the topic's config changed, and its rounds
     * and log write by the new one from now on (every append of the round before this command was flushed already
     * when the old policy said so). A policy that fsyncs forces what the partition holds now, so that nothing written
     * under the old one waits for a later append: a failure there fails the partition and the command. A failed or
     * closed partition only takes note.
     */
    private void applyConfig(CommandRequest c) {
        TopicConfig next = Objects.requireNonNull(c.config, "config");
        if (!next.fsync().equals(actor.fsync)) {
            // a flush scheduled by the old interval may come long after the new one: the next append schedules its
            // own (the old one still runs, a flush of nothing or of a little early)
            actor.flushScheduled = false;
        }
        actor.fsync = next.fsync();
        actor.frameBytes = frameBytesOf(next);
        log.reconfigure(logConfig(next), c.forceSeals);
        if (actor.fsync != FsyncPolicy.NEVER && actor.state == PartitionState.RUNNING) {
            c.error = actor.flush();
        }
    }

    /**
     * The config a partition's log writes by: the topic's, but with the largest record any config may allow. Each
     * record is checked against the topic's {@code maxRecordBytes} by the producer's call, which refuses it there or
     * takes it; a record taken is written whatever limit its partition has when its turn comes, which can be another
     * one while a change is on its way to the partitions (published to callers first, then told to each partition in
     * turn) or when the call read the config just before a lower limit was published.
     */
    static TopicConfig logConfig(TopicConfig config) {
        return config.maxRecordBytes() == TopicConfig.MAX_RECORD_BYTES_LIMIT ? config
                : config.toBuilder().maxRecordBytes(TopicConfig.MAX_RECORD_BYTES_LIMIT).build();
    }

    /** Why the partition refuses work now that it is not running: failed, its topic deleted, or closed. Any thread. */
    KafkoException rejection() {
        return lifecycle.rejection();
    }

    /** The owner's run of a {@link CommandRequest.Kind#COMPACT} command. */
    private void applyCompaction(CommandRequest c) {
        CompactionPlan plan = Objects.requireNonNull(c.plan, "plan");
        if (actor.state != PartitionState.RUNNING) {
            plan.discard(ctx.io());
            c.error = lifecycle.rejection();
            return;
        }
        try {
            long before = log.sizeBytes();
            c.compactedRecords = log.applyCompaction(plan, c.forceSeals);
            long freed = before - log.sizeBytes();
            if ((c.compactedRecords > 0 || freed != 0) && ctx.observing()) {
                ctx.observer().onCompaction(actor.topic, actor.partition, c.compactedRecords, freed);
            }
        } catch (RuntimeException | Error e) {
            c.error = e;
            if (log.isFailed()) {
                lifecycle.failure(e, "compaction");
            }
        }
    }

    /** {@link RetentionPace#unfinished}: the scheduler runs retention here again. Any thread. */
    boolean retentionUnfinished() {
        return retentionPace.unfinished();
    }

    /** The owner's run of a {@link CommandRequest.Kind#RETENTION} command, paced by {@link RetentionPace}. */
    private void retention() {
        int maxSegments = retentionPace.begin(); // a closed, failed or deleted partition has nothing more due
        if (actor.state != PartitionState.RUNNING) {
            return;
        }
        long before = log.sizeBytes();
        try {
            int deletedSegments = log.applyRetention(maxSegments);
            retentionPace.ran(deletedSegments);
            if (deletedSegments > 0) {
                waiters.wake(); // a consumer below the new log start must reset
                if (ctx.observing()) {
                    ctx.observer().onRetention(actor.topic, actor.partition, deletedSegments,
                            Math.max(0, before - log.sizeBytes()));
                }
            }
        } catch (RuntimeException | Error e) {
            lifecycle.failure(e, "retention");
        }
    }

    /**
     * Submits a new command of one kind to a partition: a task of the scheduler's (the end of a linger, an interval
     * fsync). Each run submits a command of its own, so one task may be scheduled again and again.
     */
    static final class Submit implements Runnable {
        private final PartitionActor actor;
        private final CommandRequest.Kind kind;

        Submit(PartitionActor actor, CommandRequest.Kind kind) {
            this.actor = actor;
            this.kind = kind;
        }

        @Override
        public void run() {
            actor.submit(new CommandRequest(kind));
        }
    }
}
