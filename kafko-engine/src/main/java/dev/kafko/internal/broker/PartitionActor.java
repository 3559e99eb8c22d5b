package dev.kafko.internal.broker;

import dev.kafko.FsyncPolicy;
import dev.kafko.InterruptException;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoException;
import dev.kafko.KafkoStorageException;
import dev.kafko.OutgoingRecord;
import dev.kafko.PartitionFailedException;
import dev.kafko.PartitionInfo;
import dev.kafko.PartitionState;
import dev.kafko.TopicConfig;
import dev.kafko.UnknownTopicException;
import dev.kafko.internal.log.AppendSizes;
import dev.kafko.internal.log.PartitionLog;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Internal: one partition as an actor without a thread: any thread may {@link #submit} requests;
 * whichever submitter finds the partition idle becomes its owner and runs every queued request, so
 * the {@link PartitionLog} has exactly one writer at a time and an uncontended send never crosses a
 * thread. Readers use {@link #log()} from any thread.
 *
 * <p>The {@link Mailbox} is a bounded lock-free stack (a sender that finds it full waits for room).
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
 * under {@link FsyncPolicy#EVERY_BATCH}).
 */
final class PartitionActor implements Mailbox.Owner {

    /** A frame stops growing at this many bytes (a single batch may still be larger: it is atomic). */
    static final long MAX_FRAME_BYTES = 1 << 20;
    /** A frame stops growing at this many records. */
    static final int MAX_FRAME_RECORDS = 16 * 1024;
    /** How often a command's caller tries to take the partition while it waits for the command; see {@link #runCommand}. */
    static final long COMMAND_HELP_INTERVAL_MS = 10;
    /** How long a close waits for the rounds before it to complete their futures; see {@link #closeLog}. */
    static final Duration CLOSE_COMPLETION_WAIT = Duration.ofSeconds(5);

    private static final System.Logger LOG = System.getLogger(PartitionActor.class.getName());
    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(PartitionActor.class, "owner", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final String topic;
    final int partition;
    private final PartitionLog log;
    private final FsyncPolicy fsync;
    /** A coalesced frame stops growing at this many record bytes: {@link #MAX_FRAME_BYTES} or what a segment holds. */
    private final long frameBytes;
    private final BrokerContext ctx;
    private final CompletionBarrier completions = new CompletionBarrier();

    private final Mailbox mailbox;
    private volatile int owner; // CAS through OWNER
    private final DeferredSends deferredSends;

    // written by the owner only
    private @Nullable Thread ownerThread;
    private final ArrayList<OutgoingRecord> frame = new ArrayList<>(256);
    private boolean dirty;
    private boolean flushScheduled;
    /** Sends accepted but not yet written; owner only but for its lingering flag. */
    private final LingerChain chain;

    private volatile PartitionState state = PartitionState.RUNNING;
    private volatile boolean deleted;
    private final RetentionPace retentionPace = new RetentionPace();
    private volatile @Nullable Throwable failure;
    private volatile @Nullable PartitionInfo closedInfo;
    private final Waiters waiters;
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
        this.frameBytes = Math.min(MAX_FRAME_BYTES, AppendSizes.recordBytesPerSegment(config.segmentBytes()));
        this.mailbox = new Mailbox(topic + "-" + partition, ctx.options().maxQueuedBytes(), ctx.options().maxBlock());
        this.deferredSends = new DeferredSends(this, mailbox, ctx.scheduler());
        this.ctx = ctx;
        this.waiters = new Waiters();
        Duration linger = ctx.options().linger();
        this.chain = new LingerChain(linger, waiters, () -> ctx.scheduler().schedule(
                () -> submit(new CommandRequest(CommandRequest.Kind.LINGER_ENDED)), linger));
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

    /** {@link RetentionPace#unfinished}: the scheduler runs retention here again. Any thread. */
    boolean retentionUnfinished() {
        return retentionPace.unfinished();
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
        }
        if (!mailbox.tryPush(r, false)) {
            if (marks[ThreadMarks.OWNING] > 0) {
                mailbox.tryPush(r, true);
            } else if (!mailbox.pushWhenRoom(r, this)) {
                return;
            }
        } else if (r.recordCount() > 0 && DeferredSends.defers(marks)) {
            deferredSends.deferred(marks);
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
        if (marks[ThreadMarks.OWNING] > 0 && ctx.scheduler().schedule(this::drainIfIdle, Duration.ZERO)) {
            return false; // (a closed scheduler refuses: the instance is closing, nothing waits for this thread)
        }
        return drain(marks);
    }

    /**
     * Takes the partition for a command's waiting caller. One that owns another partition would hand the run
     * to the scheduler (see {@link #drainIfIdle}); on the scheduler's own thread (an observer of its interval
     * flush making an admin call) that task would never run while the thread waits, so it runs here.
     */
    private void helpDrain() {
        int[] marks = ThreadMarks.get();
        if (marks[ThreadMarks.OWNING] > 0 && ctx.scheduler().isCurrentThread()) {
            drain(marks);
        } else {
            drainIfIdle();
        }
    }

    /**
     * Closes the log and returns once every round released before it has completed its futures too (a close
     * completes every pending send), unless this thread is completing a round itself (see
     * {@link CompletionBarrier}), or {@link #CLOSE_COMPLETION_WAIT} passed. An interrupt does not cut it
     * short; it is kept. (A deletion runs its command alone: it does not wait for earlier callbacks.)
     */
    void closeLog() {
        CommandRequest c = runCommand(CommandRequest.Kind.CLOSE);
        boolean interrupted = false;
        long deadline = System.nanoTime() + CLOSE_COMPLETION_WAIT.toNanos();
        while (true) {
            try {
                if (!completions.await(c.epoch, Math.max(0, deadline - System.nanoTime()))) {
                    // the records are written either way; a callback that waits for something, or a chain of
                    // callbacks that ran out of stack before it could count its round done, must not hold the close
                    logQuietly(Level.WARNING, "closing partition " + topic + "-" + partition + ": sends written"
                            + " before the close were still completing their futures after " + CLOSE_COMPLETION_WAIT
                            + " (a callback that waits, or one that ran out of stack); the close goes on", null);
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
     * Refuses {@code what} on the partition's owner thread (a {@link dev.kafko.KafkoObserver} callback there),
     * which would wait for itself. Any thread.
     */
    void requireNotOwnedByCaller(String what) {
        if (ownerThread == Thread.currentThread()) {
            throw new IllegalStateException("partition " + topic + "-" + partition + " cannot take a " + what
                    + " from inside its own work (a KafkoObserver callback on the thread that appends to it):"
                    + " make the call from another thread");
        }
    }

    @Override
    public boolean isOwned() {
        return owner != 0;
    }

    /**
     * Submits a command and waits for it; its failure is thrown as it is (typed), not wrapped. The owner
     * that found the command in its mailbox looks at the mailbox again only after it completed its round's
     * futures, and a callback of theirs may wait for this caller (for the admin lock a deletion holds): the
     * wait takes the partition itself, every {@link #COMMAND_HELP_INTERVAL_MS} ms, once that owner released it.
     */
    CommandRequest runCommand(CommandRequest.Kind kind) {
        requireNotOwnedByCaller(kind.name().toLowerCase(Locale.ROOT));
        CommandRequest c = new CommandRequest(kind);
        submit(c);
        boolean interrupted = false;
        while (!c.isDone()) {
            try {
                c.get(COMMAND_HELP_INTERVAL_MS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                helpDrain();
            } catch (InterruptedException e) {
                interrupted = true; // a command is not abandoned half way: the interrupt is kept for later
            } catch (ExecutionException e) {
                break; // thrown typed below
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return c.await();
    }

    /**
     * Takes the partition, unless somebody owns it (false), and runs rounds until the mailbox is empty;
     * {@code marks} are this thread's {@link ThreadMarks}. A thread may run out of stack anywhere in here
     * (a chain of sends made from callbacks nests on one stack), so between taking the partition and
     * releasing it, and between taking the mailbox and completing what it took, there is no call whose
     * failure would skip the other half: the partition would stay owned, or futures incomplete, for ever.
     */
    private boolean drain(int[] marks) {
        boolean drained = drainRounds(marks);
        DeferredSends.runIfOutermost(marks);
        return drained;
    }

    /** {@link #drain}, but for the sends this thread deferred meanwhile to other partitions. */
    private boolean drainRounds(int[] marks) {
        if (!OWNER.compareAndSet(this, 0, 1)) {
            return false;
        }
        for (;;) {
            Request<?> round = null;
            int ticket = -1;
            boolean interrupted = false;
            marks[ThreadMarks.OWNING]++;
            try {
                try {
                    ownerThread = Thread.currentThread();
                    // an interrupt would close the log's file channels (interruptible channels) for everyone:
                    // hold it back while this thread works for the partition, and restore it afterwards
                    interrupted = Thread.interrupted();
                    Request<?> taken = mailbox.takeAll();
                    if (taken != null) {
                        round = taken;
                        mailbox.wakeWaiting();
                        round = process(taken);
                    }
                } catch (RuntimeException | Error e) {
                    // process settles every request itself; this is a thread out of stack before it could.
                    // No call here: the requests taken fail with the error itself
                    for (Request<?> q = round; q != null; q = q.next) {
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
                    complete(round, ticket, marks);
                }
            }
            if (mailbox.isEmpty() || !OWNER.compareAndSet(this, 0, 1)) {
                return true;
            }
        }
    }

    /** Completes the futures of {@code round}, then ends its {@code ticket} (if it has one). */
    private void complete(@Nullable Request<?> round, int ticket, int[] marks) {
        try {
            for (Request<?> r = round; r != null; ) {
                Request<?> next = r.next;
                r.next = null;
                try {
                    r.finish(partition);
                } catch (RuntimeException | Error e) {
                    // the thread ran out of stack in a callback chain: the next future is still completed
                    r.completeExceptionally(e);
                }
                r = next;
            }
        } finally {
            if (ticket >= 0) {
                completions.done(ticket, marks);
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
                    execute((CommandRequest) r);
                    r = r.next;
                    open = r;
                    continue;
                }
                if (state != PartitionState.RUNNING) {
                    r.error = rejection();
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
                cause = e instanceof KafkoException ? e : new KafkoException("partition " + topic + "-"
                        + partition + " could not finish a round of requests: " + e, e);
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
        if (chain.isLingering()) {
            submit(new CommandRequest(CommandRequest.Kind.AWAITED));
        } else if (owner == 0 && !mailbox.isEmpty()) {
            drainIfIdle(); // a deferred send (DeferredSends): nobody may be about to write it
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
            throw new InterruptException("interrupted while waiting for the sends before a flush of " + topic + "-"
                    + partition + " to complete");
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
            Throwable cause = failure(e, "append");
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
            flushScheduled = true;
            ctx.scheduler().schedule(() -> submit(new CommandRequest(CommandRequest.Kind.INTERVAL_FLUSH)),
                    interval.period());
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

    /** Under EVERY_BATCH, one flush for the appends of [start, end); a failure fails all of them. */
    private void groupCommit(Request<?> start, @Nullable Request<?> end) {
        if (fsync != FsyncPolicy.EVERY_BATCH || state != PartitionState.RUNNING) {
            return;
        }
        Throwable cause = flush();
        if (cause != null) {
            for (Request<?> q = start; q != end; q = q.next) {
                if (q.recordCount() > 0 && q.error == null) {
                    q.error = cause;
                }
            }
        }
    }

    /** Flushes if anything was appended since the last flush; returns the failure, if any. */
    private @Nullable Throwable flush() {
        if (!dirty) {
            return null;
        }
        long t0 = ctx.observing() ? System.nanoTime() : 0L;
        try {
            log.flush();
            dirty = false;
        } catch (RuntimeException | Error e) {
            return failure(e, "flush");
        }
        publishEnd();
        if (ctx.observing()) {
            ctx.observer().onFsync(topic, partition, System.nanoTime() - t0);
        }
        return null;
    }

    private void execute(CommandRequest c) {
        // every send that lingered came before this command in the round, and is written already
        switch (c.kind) {
            case LINGER_ENDED -> chain.ended();
            case AWAITED -> chain.awaitedBlocked();
            case WRITE_LINGERING -> {
                // nothing more to do
            }
            case WRITE_SUBMITTED -> c.epoch = completions.flip();
            case INTERVAL_FLUSH -> {
                flushScheduled = false;
                if (state == PartitionState.RUNNING) {
                    flush();
                }
            }
            case RETENTION -> {
                int max = retentionPace.begin(); // a closed, failed or deleted partition has nothing more due
                if (state == PartitionState.RUNNING) {
                    retention(max);
                }
            }
            case CLOSE, DELETE -> {
                c.epoch = completions.flip(); // closeLog waits for the rounds before it to complete
                close(c);
            }
        }
    }

    private void retention(int maxSegments) {
        long before = log.sizeBytes();
        try {
            int deletedSegments = log.applyRetention(maxSegments);
            retentionPace.ran(deletedSegments);
            if (deletedSegments > 0) {
                waiters.wake(); // a consumer below the new log start must reset
                if (ctx.observing()) {
                    ctx.observer().onRetention(topic, partition, deletedSegments, Math.max(0, before - log.sizeBytes()));
                }
            }
        } catch (RuntimeException | Error e) {
            failure(e, "retention");
        }
    }

    private void close(CommandRequest c) {
        if (state == PartitionState.CLOSED) {
            return;
        }
        closedInfo = snapshot(PartitionState.CLOSED, null);
        deleted = c.kind == CommandRequest.Kind.DELETE;
        try {
            log.close();
        } catch (RuntimeException | Error e) {
            if (state == PartitionState.RUNNING) {
                c.error = e instanceof KafkoException ? e : new KafkoStorageException(
                        "closing partition " + topic + "-" + partition + " failed: " + e, e);
            }
            logQuietly(Level.WARNING, "closing partition " + topic + "-" + partition + " failed: " + e, e);
        }
        state = PartitionState.CLOSED;
        waiters.wakeAll();
    }

    /**
     * The exception to hand to the waiters of a failed operation; when the log says it failed (its
     * fail-fast policy after an I/O error), the partition enters the failed state.
     */
    private Throwable failure(Throwable e, String what) {
        String name = topic + "-" + partition;
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
        if (state == PartitionState.RUNNING && fatal) {
            Throwable logFailure = log.failure();
            failure = logFailure != null ? logFailure : cause;
            state = PartitionState.FAILED;
            waiters.wakeAll();
            logQuietly(Level.ERROR, "partition " + name + " failed during " + what + ": " + e, e);
        }
        if (ctx.observing()) {
            ctx.observer().onFailure(topic, partition, cause);
        }
        return cause;
    }

    /**
     * Logs without letting the logging fail the caller: a handler that throws (one that cannot open a
     * file when descriptors ran out, say) must not take the place of the failure being reported.
     */
    private static void logQuietly(Level level, String message, @Nullable Throwable e) {
        try {
            LOG.log(level, message, e);
        } catch (RuntimeException | Error ignored) {
            // the failure is still reported: to the futures, and by the partition's state
        }
    }

    /** The exception for a request the partition can no longer take. */
    private KafkoException rejection() {
        if (state == PartitionState.FAILED) {
            Throwable f = failure;
            return new PartitionFailedException("partition " + topic + "-" + partition + " failed earlier: " + f, f);
        }
        if (deleted) {
            return new UnknownTopicException("topic '" + topic + "' was deleted");
        }
        return new KafkoClosedException("partition " + topic + "-" + partition + " is closed");
    }

    /** A snapshot for {@link dev.kafko.Topic#partitions()}. Any thread. */
    PartitionInfo info() {
        PartitionInfo closed = closedInfo;
        if (closed != null && state == PartitionState.CLOSED) {
            return closed;
        }
        PartitionState s = state;
        // the failure is set before the state says FAILED: read after it, a running partition shows none
        return snapshot(s, s == PartitionState.RUNNING ? null : failure);
    }

    private PartitionInfo snapshot(PartitionState s, @Nullable Throwable cause) {
        return new PartitionInfo(topic, partition, log.logStartOffset(), log.endOffset(), log.sizeBytes(),
                log.segmentCount(), s, cause);
    }

    /** Registers a consumer to be woken after appends. Any thread. */
    void addWaiter(Waiter w) {
        waiters.add(w);
    }

    void removeWaiter(Waiter w) {
        waiters.remove(w);
    }
}
