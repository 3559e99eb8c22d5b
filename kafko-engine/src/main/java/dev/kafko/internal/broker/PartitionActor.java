package dev.kafko.internal.broker;

import dev.kafko.FsyncPolicy;
import dev.kafko.OutgoingRecord;
import dev.kafko.PartitionInfo;
import dev.kafko.PartitionState;
import dev.kafko.TopicConfig;
import dev.kafko.internal.log.PartitionLog;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Internal: one partition as an actor without a thread: any thread may {@link #submit} requests;
 * whichever submitter finds the partition idle becomes its owner and runs every queued request, so
 * the {@link PartitionLog} has exactly one writer at a time and an uncontended send never crosses a
 * thread. Readers use {@link #log()} from any thread.
 *
 * <p>A sender that finds the partition idle and nothing queued takes it and runs its own request as
 * the round, without a trip through the mailbox, and completes it before releasing the partition (its
 * future is not handed out yet, so no callback can run there). Otherwise the request is queued in the
 * {@link Mailbox}, a bounded lock-free stack (a sender that finds it full waits for room).
 * The owner takes it all, in arrival order, with one {@code getAndSet}, and coalesces
 * its records into {@link PartitionLog#append} frames (up to {@link #MAX_FRAME_BYTES}, and no more
 * than a segment holds). Under {@link FsyncPolicy#EVERY_BATCH} one flush covers every append of the
 * round (group commit). The owner then releases the partition, completes the round's futures outside
 * of ownership (so a callback that sends here, or waits for a thread that does, cannot deadlock) and
 * looks at the mailbox again: an entry pushed meanwhile is never stranded, because its sender either
 * won the ownership CAS or the owner sees the entry after releasing.
 *
 * <p>Futures complete in offset order within one round. Two rounds drained one after the other
 * by different threads may complete concurrently.
 *
 * <p><b>Lingering sends.</b> Single-record sends that stream in may linger, to be written as one frame
 * with the sends that follow; {@link LingerChain} holds them and the rule for when they may (never
 * under {@link FsyncPolicy#EVERY_BATCH}). Off the send path: {@link PartitionCommands} (the commands callers
 * wait for: close, delete, flush, retention, a changed config; and the owner's run of every command),
 * {@link PartitionLifecycle} (failing and closing, and what a round that failed half-way tells its requests) and
 * {@link Waiters} (the consumers an append wakes).
 */
final class PartitionActor implements Mailbox.Owner {

    /** A frame stops growing at this many bytes (a single batch may still be larger: it is atomic). */
    static final long MAX_FRAME_BYTES = 1 << 20;
    /** A frame stops growing at this many records. */
    static final int MAX_FRAME_RECORDS = 16 * 1024;
    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(PartitionActor.class, "owner", int.class);
            // a class a thread first initializes out of stack fails every later use in the JVM
            // (NoClassDefFoundError): initialized here, as a partition opens, not by a thread that first blocks on a
            // future (a command's caller) or completes a stranded round deep in a recursion
            Class.forName("java.util.concurrent.CompletableFuture$Signaller");
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final String topic;
    final int partition;
    private final PartitionLog log;
    /**
     * The topic's fsync policy; changed by a {@link CommandRequest.Kind#RECONFIGURE} command
     * ({@link PartitionCommands#execute}). Owner only.
     */
    FsyncPolicy fsync;
    /**
     * A coalesced frame stops growing at this many record bytes: {@link #MAX_FRAME_BYTES} or what a segment holds
     * ({@link PartitionCommands#frameBytesOf}); changed with {@link #fsync}. Owner only.
     */
    long frameBytes;
    private final BrokerContext ctx;
    private final CompletionBarrier completions;

    private final Mailbox mailbox;
    private volatile int owner; // CAS through OWNER
    private final DeferredSends deferredSends;

    // written by the owner only
    /** The owner's thread while it owns the partition; compared with a command's caller ({@link PartitionCommands}). */
    @Nullable Thread ownerThread;
    private final ArrayList<OutgoingRecord> frame = new ArrayList<>(256);
    private boolean dirty;
    /** An {@link CommandRequest.Kind#INTERVAL_FLUSH} is scheduled; lowered by its run ({@link PartitionCommands}). */
    boolean flushScheduled;
    /** Submits an {@link CommandRequest.Kind#INTERVAL_FLUSH}: the scheduler's task once {@link #flushScheduled}. */
    private final Runnable intervalFlush = new PartitionCommands.Submit(this, CommandRequest.Kind.INTERVAL_FLUSH);
    /** {@link #drainIfIdle()}, as the scheduler's task. */
    private final Runnable drainLater = new Runnable() {
        @Override
        public void run() {
            drainIfIdle();
        }
    };
    /** Sends accepted but not yet written; owner only but for its lingering flag. */
    private final LingerChain chain;

    /** Read by the owner on every round and by any thread; written by the owner through {@link PartitionLifecycle}. */
    volatile PartitionState state = PartitionState.RUNNING;
    /** The consumers to wake after appends; they register and leave from any thread. */
    final Waiters waiters;
    /** Failing and closing: cold, off the send path. */
    private final PartitionLifecycle lifecycle;
    /** The close, delete, flush, retention and config commands that their callers wait for, and every command's run. */
    final PartitionCommands commands;
    /** Held by a compaction of this partition from its preparation to its application ({@link Compactions}). */
    final ReentrantLock compactionLock = new ReentrantLock();
    /**
     * The end offset consumers may read up to. Under {@link FsyncPolicy#EVERY_BATCH} it moves only
     * after the flush that covers the records, so a consumer never sees (and a group never commits
     * past) a record that a power loss could still take away; otherwise it follows every append.
     */
    private volatile long readableEnd;

    PartitionActor(String topic, int partition, PartitionLog log, TopicConfig config, BrokerContext ctx) {
        this.topic = topic;
        this.partition = partition;
        this.log = log;
        this.fsync = config.fsync();
        this.frameBytes = PartitionCommands.frameBytesOf(config);
        this.mailbox = new Mailbox(topic + "-" + partition, ctx.options().maxQueuedBytes(), ctx.options().maxBlock());
        this.deferredSends = new DeferredSends(this, mailbox, ctx.scheduler());
        this.ctx = ctx;
        this.completions = new CompletionBarrier(partition, ctx.stranded());
        this.waiters = new Waiters();
        this.lifecycle = new PartitionLifecycle(this, log, waiters, ctx);
        this.chain = new LingerChain(ctx.options().linger(), waiters, ctx.scheduler(),
                new PartitionCommands.Submit(this, CommandRequest.Kind.LINGER_ENDED));
        this.commands = new PartitionCommands(this, log, completions, lifecycle, waiters, chain, ctx);
        this.readableEnd = log.endOffset();
    }

    /** The end offset consumers may read up to; see {@link #readableEnd}. Any thread. */
    long readableEnd() {
        return readableEnd;
    }

    /** Publishes the log's end to consumers and wakes those waiting. Owner only. */
    private void publishEnd() {
        long end = log.endOffset();
        if (end != readableEnd) {
            readableEnd = end;
            if (waiters.wake()) {
                chain.consumerWoken();
            }
        }
    }

    /** The log, for reads and getters from any thread. */
    PartitionLog log() {
        return log;
    }

    /** Whether reads may go on: the log is open. */
    boolean isOpen() {
        return state != PartitionState.CLOSED;
    }

    /**
     * Queues {@code r}; runs the mailbox on this thread if nobody owns the partition. A record request
     * that finds the mailbox full waits for room first ({@link Mailbox#pushWhenRoom}), unless this
     * thread owns a partition (user code inside a drain: an observer, a logger), which must never wait.
     * A record request made {@link DeferredSends#DEPTH} callbacks deep is only queued ({@link DeferredSends}).
     * Any thread.
     */
    void submit(Request<?> r) {
        int[] marks = ThreadMarks.get();
        if (r.recordCount() > 0) {
            r.actor = this;
            if (r instanceof SendRequest && ctx.scheduler().isCurrentThread()) {
                r.awaited = true; // the scheduler ends lingers: it must not wait for one (Scheduler#isCurrentThread)
            }
            if (marks[ThreadMarks.OWNING] == 0 && !DeferredSends.defers(marks) && mailbox.isEmpty()) {
                if (r instanceof SendRequest && !r.awaited && chain.isLingering()) {
                    r.detach(); // it will likely linger too: copied before the partition is taken, not while held
                }
                if (drainRounds(marks, r)) {
                    DeferredSends.runIfOutermost(marks); // the uncontended send: see drainRounds
                    return;
                }
            }
        }
        r.detach(); // it waits in the queue: its records copied, so that the caller may reuse its buffers
        if (!mailbox.tryPush(r, false)) {
            if (marks[ThreadMarks.OWNING] > 0) {
                mailbox.tryPush(r, true);
            } else if (!mailbox.pushWhenRoom(r, this)) {
                return;
            }
        } else if (r.recordCount() > 0 && deferredSends.deferIfDeep(marks)) {
            return;
        }
        drainIfIdle(marks);
    }

    /** A run of {@link DeferredSends#runIfOutermost}: this partition, if anything is queued. */
    void drainDeferred(int[] marks) {
        if (!mailbox.isEmpty()) {
            drain(marks);
        }
    }

    /**
     * Runs the mailbox on this thread if nobody owns the partition; false when somebody does. A
     * thread that owns another partition hands the run to the scheduler thread instead: it would
     * complete this partition's futures, whose callbacks may wait for the partition it holds.
     */
    @Override
    public boolean drainIfIdle() {
        return drainIfIdle(ThreadMarks.get());
    }

    private boolean drainIfIdle(int[] marks) {
        if (marks[ThreadMarks.OWNING] > 0 && ctx.scheduler().schedule(drainLater, Duration.ZERO)) {
            return false; // (a closed scheduler refuses: the instance is closing, nothing waits for this thread)
        }
        return drain(marks);
    }

    @Override
    public boolean isOwned() {
        return owner != 0;
    }

    /**
     * Takes the partition, unless somebody owns it (false), and runs rounds until the mailbox is empty;
     * {@code marks} are this thread's {@link ThreadMarks}. A thread may run out of stack anywhere in here
     * (a chain of sends made from callbacks nests on one stack), so between taking the partition and
     * releasing it, and between taking the mailbox and completing what it took, there is no call whose
     * failure would skip the other half: the partition would stay owned, or futures incomplete, for ever.
     */
    boolean drain(int[] marks) {
        boolean drained = drainRounds(marks, null);
        DeferredSends.runIfOutermost(marks);
        return drained;
    }

    /**
     * {@link #drain}, but for the sends this thread deferred meanwhile to other partitions. With {@code own}, the
     * uncontended send (nothing was queued when its sender looked): {@code own}, a record request its producer
     * has not handed out yet, is the first round, without a trip through the mailbox; false, and {@code own}
     * not taken, when somebody owns the partition. Nobody else holds {@code own}, so no callback can be
     * registered on it: when that round is {@code own} alone, it is completed before the partition is
     * released, without a completion ticket; a round with sends that lingered before it is completed after
     * the release, as any other.
     */
    private boolean drainRounds(int[] marks, @Nullable Request<?> own) {
        if (!OWNER.compareAndSet(this, 0, 1)) {
            return false;
        }
        for (;;) {
            Request<?> round = null;
            CompletionBarrier.@Nullable Epoch ticket = null;
            boolean interrupted = false;
            boolean lone = false; // own is written and alone: a failure completing it is not its failure
            marks[ThreadMarks.OWNING]++;
            try {
                try {
                    ownerThread = Thread.currentThread();
                    // an interrupt would close the log's file channels (interruptible channels) for everyone:
                    // hold it back while this thread works for the partition, and restore it afterwards
                    interrupted = Thread.interrupted();
                    Request<?> taken = own != null ? own : mailbox.takeAll();
                    if (taken != null) {
                        round = taken;
                        if (own == null) {
                            mailbox.wakeWaiting();
                        }
                        round = process(taken);
                        if (own != null && round == own && own.next == null) {
                            lone = true;
                            own.finish(partition); // runs no callback: nobody else holds it
                            round = null;
                        }
                    }
                } catch (RuntimeException | Error e) {
                    // process settles every request itself; this is a thread out of stack before it could.
                    // No call here: the requests taken fail with the error itself, but a lone one written, which
                    // is completed after the release as any round (with its result, by a thread with stack)
                    for (Request<?> q = lone ? null : round; q != null; q = q.next) {
                        if (q.error == null) {
                            q.error = e;
                        }
                    }
                }
                if (round != null) {
                    ticket = completions.enter(marks);
                }
            } finally {
                marks[ThreadMarks.OWNING]--;
                ownerThread = null;
                owner = 0; // a volatile write, not a call that could fail and keep the partition owned
                try {
                    mailbox.wakeWaiting(); // a sender waiting for room may drain while this completes futures
                    if (interrupted) {
                        Thread.currentThread().interrupt();
                    }
                } finally {
                    // complete outside of ownership: callbacks may submit here again, or wait on a thread that does
                    try {
                        completions.complete(round, ticket, marks);
                    } catch (RuntimeException | Error e) {
                        // out of stack as it called complete, which catches the rest itself: the round is stranded
                        // whole, with no call but the monitor (see CompletionBarrier#complete)
                        if (ticket != null) {
                            marks[ThreadMarks.COMPLETING]--;
                        }
                        synchronized (completions) {
                            if (round != null) {
                                round.strandedFirst = true;
                                Request<?> t = completions.stranded;
                                if (t == null) {
                                    completions.stranded = round;
                                } else {
                                    while (t.next != null) {
                                        t = t.next;
                                    }
                                    t.next = round;
                                }
                            }
                            if (ticket != null) {
                                ticket.strandedRounds++;
                            }
                            completions.anyStranded = true;
                            completions.strandings.raised = true; // a field: the scheduler looks (B148)
                        }
                    }
                }
            }
            own = null;
            if (mailbox.isEmpty() || !OWNER.compareAndSet(this, 0, 1)) {
                if (completions.anyStranded) {
                    completions.completeStrandedUnlessOwning(marks);
                }
                return true;
            }
        }
    }

    /**
     * Runs one round, in arrival order, after the sends that linger. Returns the requests to complete
     * now: the round with those sends before it, or null when the round's sends linger too. Owner only.
     */
    private @Nullable Request<?> process(Request<?> round) {
        assert ownerThread == Thread.currentThread() : "partition " + topic + "-" + partition + " has two writers";
        if (state == PartitionState.RUNNING && fsync != FsyncPolicy.EVERY_BATCH && chain.offer(round)) {
            return null;
        }
        Request<?> first = chain.takeBefore(round);
        Request<?> unflushed = null; // first append of the round not yet covered by an EVERY_BATCH flush
        Request<?> r = first;
        Request<?> open = first; // the first request not yet settled (written, failed or executed)
        try {
            while (r != null) {
                if (r.recordCount() == 0) {
                    if (unflushed != null) {
                        groupCommit(unflushed, r);
                        unflushed = null;
                    }
                    commands.execute((CommandRequest) r);
                    r = r.next;
                    open = r;
                    continue;
                }
                if (state != PartitionState.RUNNING) {
                    r.error = lifecycle.rejection();
                    r = r.next;
                    open = r;
                    continue;
                }
                Request<?> start = r;
                long bytes = 0;
                int records = 0;
                do {
                    bytes += r.encodedBytes();
                    records += r.recordCount();
                    r = r.next;
                } while (r != null && r.recordCount() > 0 && bytes + r.encodedBytes() <= frameBytes
                        && records + r.recordCount() <= MAX_FRAME_RECORDS);
                if (append(start, r, records, bytes) && unflushed == null) {
                    unflushed = start;
                }
                open = r;
            }
            if (unflushed != null) {
                groupCommit(unflushed, null);
            }
        } catch (RuntimeException | Error e) {
            // something besides the log failed half-way through the round (an observer or a log handler
            // threw, the heap ran out): no request is left incomplete. Those not yet settled fail with it,
            // and so, under EVERY_BATCH, do the appends no flush covered yet (no reader saw them)
            Throwable cause = e;
            try {
                cause = lifecycle.roundFailure(e, first, open);
            } catch (StackOverflowError ignored) {
                // out of stack here too: the requests fail with the error itself
            }
            // no call: a thread out of stack must still settle every request
            for (Request<?> q = fsync == FsyncPolicy.EVERY_BATCH && unflushed != null ? unflushed : open; q != null;
                    q = q.next) {
                if (q.error == null) {
                    q.error = cause;
                }
            }
        }
        return first;
    }

    /**
     * A thread is about to block on {@code r}, or on a future derived from it: if sends linger, they
     * are written now, and sends stop lingering for a while. Any thread.
     */
    void awaited(Request<?> r) {
        r.awaited = true; // before reading lingering: see LingerChain
        if (completions.anyStranded) {
            completions.completeStrandedUnlessOwning(ThreadMarks.get()); // r may be one of them
        }
        if (chain.isLingering()) {
            submit(new CommandRequest(CommandRequest.Kind.AWAITED));
        } else if (owner == 0 && !mailbox.isEmpty()) {
            drainIfIdle(); // a deferred send (DeferredSends): nobody may be about to write it
        }
    }

    /**
     * A thread has been blocked on a future of this partition for {@link CompletionBarrier#STRANDED_LOOK_NANOS}:
     * it completes the rounds stranded since it blocked, if any (their thread, out of stack, could not wake it).
     * Any thread.
     */
    void lookForStranded() {
        if (completions.anyStranded) {
            completions.completeStrandedUnlessOwning(ThreadMarks.get());
        }
    }

    /**
     * A consumer of this partition is about to park (its waiter's state is parked): lingering sends are
     * written now, by this thread if the partition is idle. Any thread.
     */
    void readerWaiting() {
        if (chain.isLingering()) {
            submit(new CommandRequest(CommandRequest.Kind.WRITE_LINGERING));
        }
    }

    /** Appends requests [start, end) as one frame; true when any of them is in the log. */
    private boolean append(Request<?> start, @Nullable Request<?> end, int records, long bytes) {
        long t0 = ctx.observing() ? System.nanoTime() : 0L;
        long base;
        try {
            base = appendFrame(start, end);
        } catch (RuntimeException | Error e) {
            if (!log.isFailed() && start.next != end) {
                // a refusal of one request (a record the log finds too large) must not fail its neighbours
                boolean any = false;
                for (Request<?> q = start; q != end; q = q.next) {
                    any |= append(q, q.next, q.recordCount(), q.encodedBytes());
                }
                return any;
            }
            Throwable cause = lifecycle.failure(e, "append");
            for (Request<?> q = start; q != end; q = q.next) {
                q.error = cause;
            }
            return false;
        }
        for (Request<?> q = start; q != end; q = q.next) {
            q.firstOffset = base;
            base += q.recordCount();
        }
        dirty = true;
        if (ctx.observing()) {
            ctx.observer().onAppend(topic, partition, records, bytes, System.nanoTime() - t0);
        }
        if (fsync != FsyncPolicy.EVERY_BATCH) {
            publishEnd();
        }
        if (fsync instanceof FsyncPolicy.Interval interval && !flushScheduled) {
            // marked once scheduled: a schedule that fails (out of heap) leaves it to the next append
            ctx.scheduler().schedule(intervalFlush, interval.period());
            flushScheduled = true;
        }
        return true;
    }

    private long appendFrame(Request<?> start, @Nullable Request<?> end) {
        if (start.next == end) {
            if (start instanceof SendRequest s) {
                return log.append(s.record());
            }
            if (start instanceof BatchRequest b) {
                return log.append(b.records());
            }
        }
        try {
            for (Request<?> q = start; q != end; q = q.next) {
                q.addRecords(frame);
            }
            return log.append(frame);
        } finally {
            frame.clear();
        }
    }

    /**
     * Under EVERY_BATCH, one flush for the appends of [start, end); a failure fails all of them, and so does a
     * partition that a later append of the round failed (no flush covers them now: they are not acknowledged).
     */
    private void groupCommit(Request<?> start, @Nullable Request<?> end) {
        if (fsync != FsyncPolicy.EVERY_BATCH) {
            return;
        }
        Throwable cause = state == PartitionState.RUNNING ? flush() : lifecycle.rejection();
        if (cause != null) {
            for (Request<?> q = start; q != end; q = q.next) {
                if (q.recordCount() > 0 && q.error == null) {
                    q.error = cause;
                }
            }
        }
    }

    /** Flushes if anything was appended since the last flush; returns the failure, if any. Owner only. */
    @Nullable Throwable flush() {
        if (!dirty) {
            return null;
        }
        long t0 = ctx.observing() ? System.nanoTime() : 0L;
        try {
            log.flush();
            dirty = false;
        } catch (RuntimeException | Error e) {
            return lifecycle.failure(e, "flush");
        }
        publishEnd();
        if (ctx.observing()) {
            ctx.observer().onFsync(topic, partition, System.nanoTime() - t0);
        }
        return null;
    }

    /** {@link PartitionLifecycle#info}: a snapshot for {@link dev.kafko.Topic#partitions()}. Any thread. */
    PartitionInfo info() {
        return lifecycle.info();
    }
}
