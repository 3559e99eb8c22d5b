package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.event.ConsumerStoppedEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.task.TaskExecutor;

/**
 * The runs of one member's polling thread: any thread starts, stops, pauses and resumes them, serialized on
 * {@link #lock}; the polling thread waits here for a stop, a pause or a resume, and tells as its last act that it
 * exited. A start during a stop the thread outlived launches a new thread once that one exits; a stop waits for the
 * run it asked to end, up to the shutdown timeout, then cancels what the listener returned; a retired member (its
 * pattern's topic deleted) never starts again. While the member's own listener shuts the application down on its
 * thread, its {@link ExitHold} keeps the JVM alive. Internal to {@link KafkoMessageListenerContainer}.
 */
final class MemberLifecycle {

    /** The member's: what it logs of its runs stays under the logger an application configures for it. */
    private static final Logger LOG = LoggerFactory.getLogger(KafkoMessageListenerContainer.class);

    /** How long past its shutdown timeout a stop that cancelled its members' stages waits more for them to end. */
    static final long CANCELLED_STOP_MILLIS = 1000;
    /** The gate of a member started on its own: it polls at once. */
    static final CountDownLatch OPEN = new CountDownLatch(0);

    private final KafkoMessageListenerContainer member;
    private final ConcurrentMessageListenerContainer parent;
    private final LogBackend backend;
    private final KafkoMessageListener listener;
    private final TaskExecutor executor;
    private final String memberName;
    private final Duration shutdownTimeout;
    /** Under a manual ack mode the record in hand at a cancelled stop may have been acknowledged already. */
    private final boolean manualAcks;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition signal = lock.newCondition();
    private volatile boolean stopRequested;
    private volatile boolean pauseRequested;
    private volatile boolean paused;
    private volatile boolean running;
    private volatile boolean expectedRunning;
    /**
     * {@link #start} came while the member thread was still finishing a stop it outlived: a new member thread starts
     * as soon as that one exits. Written under {@link #lock}; read without it by {@link #inExpectedState()}.
     */
    private volatile boolean restartPending;
    /** The member outlived the shutdown timeout of the current stop: later waits for it return at once. */
    private volatile boolean overran;
    /** When the last stop was requested ({@link System#nanoTime}): its shutdown timeout counts from then. */
    private volatile long stopRequestedNanos;
    private volatile @Nullable Throwable failure;
    /** Its pattern's topic was deleted: the member's thread ends and no start launches it again. */
    private volatile boolean retired;
    /** Its container's members were made again ({@link ContainerMembers#remake}): no start launches it again. */
    private volatile boolean replaced;
    /**
     * Open once every member of the container was asked to stop with this one: a stopping member leaves its
     * group only then, or a sibling still polling would take its partitions and deliver again what it had
     * not committed, in the application that is shutting down. Written before {@link #stopRequested}.
     */
    private volatile CountDownLatch siblingsStopping = new CountDownLatch(0);
    private volatile @Nullable ListenerConsumer consumer;
    /** Keeps the JVM alive while this member's listener shuts the application down on the member's thread. */
    private final ExitHold exitHold = new ExitHold();
    /** This run's listener closed the application from this member's polling thread. */
    private volatile boolean closedByOwnListener;
    /** The member's thread while it tells that it stopped ({@link #exited}): still this member's own thread. */
    private volatile @Nullable Thread exiting;
    /** The run whose thread is {@link #exiting}. */
    private volatile @Nullable ListenerConsumer exitingRun;

    /**
     * Opens as the current run ends: its last act on its thread, which is alive a moment longer (and, under
     * {@link #lock}, a pending restart launched).
     */
    private volatile CountDownLatch exited = new CountDownLatch(0);
    /**
     * {@link #exited} of the run the last stop asked to end: a stop waits for that run only, not for one started
     * meanwhile (from a {@code ConsumerStoppedEvent} or {@code ConcurrentContainerStoppedEvent} listener).
     */
    private volatile CountDownLatch stopping = new CountDownLatch(0);

    MemberLifecycle(KafkoMessageListenerContainer member, ConcurrentMessageListenerContainer parent,
                    LogBackend backend, KafkoMessageListener listener, TaskExecutor executor) {
        this.member = member;
        this.parent = parent;
        this.backend = backend;
        this.listener = listener;
        this.executor = executor;
        this.memberName = member.memberName();
        this.shutdownTimeout = member.properties().shutdownTimeout();
        this.manualAcks = member.properties().ackMode().isManual();
    }

    /** The current run, or null when no member thread runs. */
    @Nullable ListenerConsumer consumer() {
        return consumer;
    }

    /**
     * Starts the member; its thread polls once {@code firstPoll} is open. A listener's members start
     * behind one gate, opened once all have joined the group, so the first assignment spreads the
     * partitions over all of them (a member that polled alone first took every partition, and the others
     * idled until it had worked through its first records).
     */
    void start(CountDownLatch firstPoll) {
        lock.lock();
        try {
            if (retired) {
                throw new IllegalStateException(memberName + " read a topic that was deleted; it cannot start again");
            }
            if (replaced) {
                throw new IllegalStateException(memberName + " is no longer a member of listener '"
                        + member.getListenerId() + "', whose members were made again with new settings; start the"
                        + " listener's container");
            }
            if (running) {
                if (stopRequested) {
                    // the member thread is still finishing its record after a stop: it cannot be told
                    // to carry on (it may be leaving the group already), so a new one follows it
                    restartPending = true;
                    expectedRunning = true;
                }
                return;
            }
            launch(firstPoll);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Starts a member thread. Under {@link #lock}, with no member thread running. A consumer that cannot be opened, or
     * an executor that refuses the thread (a bounded pool that is full), leaves the member stopped, not running with no
     * thread to end it, the consumer it opened gone from its group, and the failure goes to the caller.
     */
    private void launch(CountDownLatch firstPoll) {
        stopRequested = false;
        paused = false;
        failure = null;
        overran = false;
        closedByOwnListener = false;
        ListenerConsumer c = null;
        try {
            c = new ListenerConsumer(member, backend, listener, firstPoll);
            consumer = c;
            exited = new CountDownLatch(1);
            running = true;
            expectedRunning = true;
            executor.execute(c);
        } catch (RuntimeException | Error e) {
            running = false;
            consumer = null;
            exited = new CountDownLatch(0); // no thread will open it: a stop does not wait for this run
            if (c != null) {
                c.closeUnrun();
            }
            throw e;
        }
        parent.lifecycle().memberLaunched(); // the thread's exited() waits for this lock: it cannot count down first
    }

    boolean isPollingThread(Thread thread) {
        ListenerConsumer c = consumer;
        return c != null && c.isPollingThread(thread) || thread == exiting;
    }

    /**
     * On this member's polling thread, whose listener is closing the application: commits what the member
     * processed before its record in hand (kafko closes before the listener returns, and would take those
     * commits with it: a whole poll delivered again at the next start instead of the one record), and holds the
     * JVM alive until the member's thread ends, at most the shutdown timeout.
     */
    void shutdownFromListener() {
        ListenerConsumer c = consumer;
        Object hold; // this run's: the end of this run's thread releases it, not a later run's
        if (c != null && c.isPollingThread(Thread.currentThread())) {
            closedByOwnListener = true;
            c.commitProcessed("as its listener closes the application");
            hold = c;
        } else if (Thread.currentThread() == exiting && exitingRun != null) {
            // an application listener of the member's stop (a ConsumerStoppedEvent: exit when a listener died) on its
            // ending thread: nothing is in hand, but the JVM must wait for it all the same
            hold = exitingRun;
        } else {
            return;
        }
        exitHold.take(hold, shutdownTimeout, parent.eventPublisher(), memberName);
    }

    /** Whether this member's own listener closed the application (its record in hand is not committed). */
    boolean closedByOwnListener() {
        return closedByOwnListener;
    }

    /**
     * Asks the member to stop without waiting, as one of several members that stop together: it leaves its
     * group once {@code together} opens (every member was asked).
     */
    void requestStop(CountDownLatch together) {
        siblingsStopping = together;
        stopRequestedNanos = System.nanoTime();
        lock.lock();
        try {
            restartPending = false;
            // with the latch, under the lock: a start between the two would launch a run this stop then stops
            // without waiting for it
            stopping = exited;
            expectedRunning = false;
            stopRequested = true;
        } finally {
            lock.unlock();
        }
        wakeup();
    }

    /**
     * Waits until the shutdown timeout after the stop was requested for the member thread to finish, once
     * per stop: a member that overran it is not waited for again (the registry's lifecycle stop and its
     * destroy both stop it). Members asked to stop together (a container's, the registry's) so overrun
     * one timeout together, not one after the other.
     */
    void awaitStopped() {
        if (overran || isPollingThread(Thread.currentThread())) {
            // a listener that stops its own container: its thread stops once the listener returns
            return;
        }
        try {
            long deadline = stopRequestedNanos + shutdownTimeout.toNanos();
            if (awaitStopping(deadline)) {
                return;
            }
            overran = true;
            ListenerConsumer c = consumer;
            if (c == null || !c.cancelAwaited()) {
                LOG.warn("{} did not stop within {}; it is left to finish its record in hand, whose commit may not"
                        + " happen if kafko closes first", memberName, shutdownTimeout);
                return;
            }
            // its listener's CompletionStage or Mono, cancelled (the record in hand not committed): the member ends at
            // once, committing what it processed before; the second more counts from the deadline, so that members
            // stopped together, waited for one after the other, share it as they share the timeout
            LOG.warn("{} did not stop within {}; the CompletionStage or Mono its listener returned is cancelled, and"
                    + " its record {}", memberName, shutdownTimeout, manualAcks
                            ? "is delivered again unless the listener acknowledged it before"
                            : "will be delivered again");
            if (!awaitStopping(deadline + TimeUnit.MILLISECONDS.toNanos(CANCELLED_STOP_MILLIS))) {
                LOG.warn("{} did not end within {} ms of its listener's cancellation", memberName,
                        CANCELLED_STOP_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean awaitStopping(long deadlineNanos) throws InterruptedException {
        return stopping.await(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /**
     * Ends the member for good: a stop that no start follows. Under the container's lock.
     *
     * @return whether its thread still runs (it ends on its own, telling the container as it does)
     */
    boolean retire() {
        boolean runs;
        lock.lock();
        try {
            retired = true; // under the lock, where the thread's exit reads it once
            runs = running;
        } finally {
            lock.unlock();
        }
        requestStop(new CountDownLatch(0));
        return runs;
    }

    /**
     * The member is no longer its container's: its container's members were made again, once every member's thread
     * had ended. Under the container's lock.
     */
    void replaced() {
        lock.lock();
        try {
            replaced = true; // under the lock, which a start takes
        } finally {
            lock.unlock();
        }
    }

    void pause() {
        pauseRequested = true;
        wakeup(); // a retry's back-off ends: the failed records wait for the resume
    }

    void resume() {
        pauseRequested = false;
        wakeup(); // a paused member polls on, its partitions paused: it reads them again at once
    }

    boolean running() {
        return running;
    }

    boolean stopRequested() {
        return stopRequested;
    }

    boolean pauseRequested() {
        return pauseRequested;
    }

    boolean paused() {
        return paused;
    }

    void markPaused(boolean value) {
        paused = value;
    }

    /** Whether the member is as its last start or stop asked: false when it should run but its thread died. */
    boolean inExpectedState() {
        // a restart asked for during a stop the member outlived is not a death (restartPending, read first, is
        // cleared only once the new run is running)
        return restartPending || running || !expectedRunning;
    }

    /** Why the polling thread died, or {@code null}. */
    @Nullable Throwable failure() {
        return failure;
    }

    /** Whether this member is stopping: asked to stop, its thread not yet gone. */
    boolean isStopping() {
        return running && stopRequested;
    }

    /**
     * Makes the member's poll return now, so that it looks at what changed, and ends a wait of its thread here
     * (a retry's back-off of a record whose partition is now to be paused: {@link #awaitStopOrPause}).
     */
    void wakeup() {
        ListenerConsumer c = consumer;
        if (c != null) {
            c.wakeup();
        }
        signalAll();
    }

    /**
     * Called by the member thread as its last act: the member is marked stopped (or dead), then {@code stopped}
     * runs (the {@code ConsumerStoppedEvent}: an application listener of it sees the member stopped, and may
     * start it again), then the member starts again when a start came during its stop, and only then does it
     * leave the container's count of running members: the last one out publishes the container's stopped event,
     * unless a start from those events or a pending restart made the container run again.
     */
    void exited(@Nullable Throwable died, Runnable stopped) {
        CountDownLatch done;
        ListenerConsumer run;
        lock.lock();
        try {
            run = consumer;
            failure = died;
            paused = false;
            consumer = null;
            running = false;
            done = exited;
        } finally {
            lock.unlock();
        }
        // a stop asked for from the events (a circuit breaker, the application closing) must not wait for this thread
        exitingRun = run;
        exiting = Thread.currentThread();
        try {
            try {
                stopped.run();
            } catch (RuntimeException | Error e) {
                LOG.error("Telling that {} stopped failed", memberName, e);
            }
            ConsumerStoppedEvent.@Nullable Reason exitedLast;
            boolean ended;
            lock.lock();
            try {
                // a start during the stop it outlived, unless a stop came after it (which clears it) or a start from
                // the event launched a member already
                if (restartPending && !running) {
                    LOG.info("{} finished the stop it outlived; starting again, as asked meanwhile", memberName);
                    launch(OPEN);
                }
            } catch (RuntimeException e) {
                failure = e; // launch left the member stopped
                LOG.error("{} could not start again after its stop", memberName, e);
            } finally {
                restartPending = false; // after the launch, whatever it did: until then, restarting, not dead
                // after any launch: a run started meanwhile keeps the container counted as running
                ended = retired;
                exitedLast = ended ? null : parent.lifecycle().memberExited(died);
                lock.unlock();
            }
            // not under this lock: a retired member's exit takes the container's
            ConsumerStoppedEvent.@Nullable Reason allStopped = ended
                    ? parent.lifecycle().retiredMemberExited(member, died)
                    : exitedLast;
            if (allStopped != null) {
                try {
                    parent.lifecycle().publishStopped(allStopped);
                } catch (RuntimeException | Error e) {
                    LOG.error("Telling that {} stopped failed", memberName, e);
                }
                parent.lifecycle().runAfterStop();
            }
        } finally {
            exiting = null;
            exitingRun = null;
            done.countDown();
            if (run != null) {
                exitHold.release(run);
            }
        }
    }

    /**
     * On the member thread, before it leaves its group after a stop: waits (up to the shutdown timeout) until
     * every member stopping with it was asked to, so that none of them takes its partitions meanwhile.
     */
    void awaitSiblingsStopping() {
        if (!stopRequested) {
            return;
        }
        try {
            siblingsStopping.await(shutdownTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for a stop, resume or pause signal, at most {@code millis}. */
    void awaitSignal(long millis) throws InterruptedException {
        lock.lock();
        try {
            if (!stopRequested) {
                signal.await(millis, TimeUnit.MILLISECONDS);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * On the polling thread of a paused member: waits for a resume or a stop, at most {@code millis}, and not at all
     * when one came already (after the thread saw the pause: a resume from its {@code ConsumerPausedEvent}, or from
     * another thread meanwhile), which a wait for the next signal would miss until {@code millis} passed.
     */
    void awaitResume(long millis) throws InterruptedException {
        lock.lock();
        try {
            if (!stopRequested && pauseRequested) {
                signal.await(millis, TimeUnit.MILLISECONDS);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits {@code millis} unless a stop or a pause is requested first, or a pause of the partition of one of
     * {@code records} (a retry's back-off of them: the partition's pause holds them, as it holds its other records),
     * or a seek of it the listener asked for; a resume does not cut it short.
     */
    void awaitStopOrPause(long millis, List<KafkoRecord> records) throws InterruptedException {
        await(millis, () -> member.partitionPauseRequested(records) || member.seekRequested(records));
    }

    /**
     * Waits {@code millis} unless a stop or a pause is requested first, or any seek the listener asked for (a nack's
     * sleep: the member makes the seek, then sleeps on); a resume does not cut it short.
     */
    void awaitStopPauseOrSeek(long millis) throws InterruptedException {
        await(millis, member::anySeekRequested);
    }

    private void await(long millis, BooleanSupplier endsIt) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        lock.lock();
        try {
            long left;
            while (!stopRequested && !pauseRequested && !endsIt.getAsBoolean()
                    && (left = deadline - System.nanoTime()) > 0) {
                signal.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }

    private void signalAll() {
        lock.lock();
        try {
            signal.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
