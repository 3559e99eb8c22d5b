package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.event.ConcurrentContainerStoppedEvent;
import dev.kafko.spring.event.ConsumerStoppedEvent;
import dev.kafko.spring.event.KafkoEvent;
import dev.kafko.spring.support.GuardedInstrumentation;
import dev.kafko.spring.support.KafkoInstrumentation;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.PlatformTransactionManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.core.task.TaskExecutor;

/**
 * One member of a listener's group on one topic (or a reader of partitions of it assigned by hand, for the
 * group): one polling thread, named {@code <id>-<n>}.
 * Lifecycle methods may be called from any thread and are serialized; the polling itself happens
 * in {@link ListenerConsumer} on the member thread. {@link ConcurrentMessageListenerContainer}
 * runs several of these.
 */
public final class KafkoMessageListenerContainer implements MessageListenerContainer {

    private static final Logger LOG = LoggerFactory.getLogger(KafkoMessageListenerContainer.class);

    private final ConcurrentMessageListenerContainer parent;
    private final String listenerId;
    private final String memberName;
    private final String topic;
    private final String groupId;
    private final LogBackend backend;
    private final ContainerProperties properties;
    private final KafkoMessageListener listener;
    private final KafkoErrorHandler errorHandler;
    private final KafkoInstrumentation instrumentation;
    private final TaskExecutor executor;
    private final ProcessedOffsets processed;
    /** The partitions this member reads by hand, or null for a member of its group. */
    private final @Nullable AssignedPartitions assignment;
    private volatile RecordObservations observations = RecordObservations.NONE;

    /** How long past its shutdown timeout a stop that cancelled its members' stages waits more for them to end. */
    static final long CANCELLED_STOP_MILLIS = 1000;
    /** The gate of a member started on its own: it polls at once. */
    private static final CountDownLatch OPEN = new CountDownLatch(0);

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition signal = lock.newCondition();
    private volatile boolean stopRequested;
    private volatile boolean pauseRequested;
    private volatile boolean paused;
    private volatile boolean running;
    private volatile boolean expectedRunning;
    /**
     * {@link #start()} came while the member thread was still finishing a stop it outlived: a new member thread starts
     * as soon as that one exits. Written under {@link #lock}; read without it by {@link #isInExpectedState()}.
     */
    private volatile boolean restartPending;
    /** The member outlived the shutdown timeout of the current stop: later waits for it return at once. */
    private volatile boolean overran;
    /** When the last stop was requested ({@link System#nanoTime}): its shutdown timeout counts from then. */
    private volatile long stopRequestedNanos;
    private volatile @Nullable Throwable failure;
    /** Its pattern's topic was deleted: the member's thread ends and no start launches it again. */
    private volatile boolean retired;
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

    /** Whether the member's listener asked for seeks it has not made yet. Any thread. */
    boolean hasPendingSeeks() {
        ListenerConsumer c = consumer;
        return c != null && c.hasPendingSeeks();
    }

    /** The partitions the member reads now, under its topic (none: empty). Any thread. */
    @Override
    public Map<String, Set<Integer>> getAssignedPartitions() {
        ListenerConsumer c = consumer;
        Set<Integer> partitions = c == null ? Set.of() : c.assignedPartitions();
        return partitions.isEmpty() ? Map.of() : Map.of(topic, partitions);
    }

    KafkoMessageListenerContainer(ConcurrentMessageListenerContainer parent, String memberName, String topic,
                                  String groupId, LogBackend backend, ContainerProperties properties,
                                  KafkoMessageListener listener, KafkoErrorHandler errorHandler,
                                  KafkoInstrumentation instrumentation, TaskExecutor executor,
                                  ProcessedOffsets processed, @Nullable AssignedPartitions assignment) {
        this.parent = parent;
        this.listenerId = parent.getListenerId();
        this.memberName = memberName;
        this.topic = topic;
        this.groupId = groupId;
        this.backend = backend;
        this.properties = properties;
        this.listener = listener;
        this.errorHandler = errorHandler;
        this.instrumentation = GuardedInstrumentation.of(instrumentation);
        this.executor = executor;
        this.processed = processed;
        this.assignment = assignment;
    }

    @Override
    public String getListenerId() {
        return listenerId;
    }

    /** The name of this member's polling thread. */
    public String memberName() {
        return memberName;
    }

    @Override
    public String getGroupId() {
        return groupId;
    }

    @Override
    public List<String> getTopics() {
        return List.of(topic);
    }

    String topic() {
        return topic;
    }

    /** Whether this member creates its topic when it does not exist (and topics are created on use). */
    boolean createsTopic() {
        return parent.getTopicPattern() == null;
    }

    /** The partitions this member reads by hand ({@code topicPartitions}), or null: a member of its group. */
    @Nullable AssignedPartitions assignment() {
        return assignment;
    }

    ContainerProperties properties() {
        return properties;
    }

    KafkoErrorHandler errorHandler() {
        return errorHandler;
    }

    KafkoInstrumentation instrumentation() {
        return instrumentation;
    }

    void setObservations(RecordObservations observations) {
        this.observations = observations;
    }

    RecordObservations observations() {
        return observations;
    }

    @Nullable RecordInterceptor recordInterceptor() {
        return parent.getRecordInterceptor();
    }

    @Nullable BatchInterceptor batchInterceptor() {
        return parent.getBatchInterceptor();
    }

    @Nullable PlatformTransactionManager transactionManager() {
        return parent.getTransactionManager();
    }

    /** The partitions of this member's topic now (a seek of one past them is refused when asked for). */
    int partitionCount() {
        return backend.partitionCount(topic);
    }

    ProcessedOffsets processed() {
        return processed;
    }

    /**
     * Publishes the event {@code event} makes of this member and its container, when the container has a
     * publisher; an application listener that throws is logged. Polling thread.
     */
    void publish(BiFunction<KafkoMessageListenerContainer, ConcurrentMessageListenerContainer, ?> event) {
        ApplicationEventPublisher publisher = parent.eventPublisher();
        if (publisher == null) {
            return;
        }
        // a KafkoEvent: typed Object in the function so that verifying the lambdas that make the events (when
        // their class is linked, at start-up) does not load every event class, only those published
        KafkoEvent published = (KafkoEvent) event.apply(this, parent);
        try {
            publisher.publishEvent(published);
        } catch (RuntimeException | Error e) {
            if (e instanceof VirtualMachineError fatal) {
                throw fatal;
            }
            LOG.error("An application listener of {} failed; {} goes on", published, memberName, e);
        }
    }

    @Override
    public void start() {
        start(OPEN);
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

    /** Starts a member thread. Under {@link #lock}, with no member thread running. */
    private void launch(CountDownLatch firstPoll) {
        stopRequested = false;
        paused = false;
        failure = null;
        overran = false;
        closedByOwnListener = false;
        ListenerConsumer c = new ListenerConsumer(this, backend, listener, firstPoll);
        consumer = c;
        exited = new CountDownLatch(1);
        running = true;
        expectedRunning = true;
        executor.execute(c);
        parent.memberLaunched(); // the thread's exited() waits for this lock: it cannot count down first
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
            c.commitProcessed();
            hold = c;
        } else if (Thread.currentThread() == exiting && exitingRun != null) {
            // an application listener of the member's stop (a ConsumerStoppedEvent: exit when a listener died) on its
            // ending thread: nothing is in hand, but the JVM must wait for it all the same
            hold = exitingRun;
        } else {
            return;
        }
        exitHold.take(hold, properties.shutdownTimeout(), parent.eventPublisher(), memberName);
    }

    /** Whether this member's own listener closed the application (its record in hand is not committed). */
    boolean closedByOwnListener() {
        return closedByOwnListener;
    }

    /** Asks the member to stop without waiting; {@link #awaitStopped()} waits. */
    void requestStop() {
        requestStop(new CountDownLatch(0));
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
        ListenerConsumer c = consumer;
        if (c != null) {
            c.wakeup();
        }
        signalAll();
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
            long deadline = stopRequestedNanos + properties.shutdownTimeout().toNanos();
            if (awaitStopping(deadline)) {
                return;
            }
            overran = true;
            ListenerConsumer c = consumer;
            if (c == null || !c.cancelAwaited()) {
                LOG.warn("{} did not stop within {}; it is left to finish its record in hand, whose commit may not"
                        + " happen if kafko closes first", memberName, properties.shutdownTimeout());
                return;
            }
            // its listener's CompletionStage or Mono, cancelled (the record in hand not committed): the member ends at
            // once, committing what it processed before; the second more counts from the deadline, so that members
            // stopped together, waited for one after the other, share it as they share the timeout
            LOG.warn("{} did not stop within {}; the CompletionStage or Mono its listener returned is cancelled, and"
                    + " its record will be delivered again", memberName, properties.shutdownTimeout());
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

    @Override
    public void stop() {
        requestStop();
        awaitStopped();
    }

    /**
     * On the polling thread of a member whose topic was deleted and does not exist: whether the member ends, as
     * a pattern's do ({@link ConcurrentMessageListenerContainer#retireDeletedTopic}); a member of named topics
     * waits for its topic instead.
     */
    boolean retireIfTopicGone() {
        return parent.getTopicPattern() != null && parent.retireDeletedTopic(this);
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
        requestStop();
        return runs;
    }

    @Override
    public void pause() {
        pauseRequested = true;
        ListenerConsumer c = consumer;
        if (c != null) {
            c.wakeup();
        }
        signalAll(); // a retry's back-off ends: the failed records wait for the resume
    }

    @Override
    public void resume() {
        pauseRequested = false;
        signalAll();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public boolean isPauseRequested() {
        return pauseRequested;
    }

    @Override
    public boolean isPaused() {
        return paused;
    }

    /** Asks the container: a request holds for whichever member reads the partition. */
    @Override
    public void pausePartition(String topic, int partition) {
        parent.pausePartition(topic, partition);
    }

    @Override
    public void resumePartition(String topic, int partition) {
        parent.resumePartition(topic, partition);
    }

    @Override
    public boolean isPartitionPauseRequested(String topic, int partition) {
        return parent.isPartitionPauseRequested(topic, partition);
    }

    /**
     * Whether this member reads the partition and has paused it, alone or with the whole member (a container's
     * {@code pause()}), as spring-kafka's answer from its consumer's paused partitions.
     */
    @Override
    public boolean isPartitionPaused(String topic, int partition) {
        ListenerConsumer c = consumer;
        return c != null && this.topic.equals(topic) && (c.pausedPartitions().contains(partition)
                || paused && c.assignedPartitions().contains(partition));
    }

    /** The partitions the container was asked to pause. */
    PartitionPauses partitionPauses() {
        return parent.partitionPauses();
    }

    /**
     * Makes the member's poll return now, so that it looks at what changed, and ends a retry's back-off of a record
     * whose partition is now to be paused ({@link #awaitStopOrPause(long, List)}).
     */
    void wakeup() {
        ListenerConsumer c = consumer;
        if (c != null) {
            c.wakeup();
        }
        signalAll();
    }

    /** Whether a pause of the partition of one of {@code records} was asked for ({@link #pausePartition}). */
    boolean partitionPauseRequested(List<KafkoRecord> records) {
        for (KafkoRecord record : records) {
            if (parent.isPartitionPauseRequested(topic, record.partition())) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean isAutoStartup() {
        return true;
    }

    @Override
    public boolean isInExpectedState() {
        // a restart asked for during a stop the member outlived is not a death (restartPending, read first, is
        // cleared only once the new run is running)
        return restartPending || running || !expectedRunning;
    }

    /** Why the polling thread died, or {@code null}. */
    @Override
    public @Nullable Throwable getFailure() {
        return failure;
    }

    boolean stopRequested() {
        return stopRequested;
    }

    boolean pauseRequested() {
        return pauseRequested;
    }

    void markPaused(boolean value) {
        paused = value;
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
                running = false;
                consumer = null;
                exited = new CountDownLatch(0);
                failure = e;
                LOG.error("{} could not start again after its stop", memberName, e);
            } finally {
                restartPending = false; // after the launch, whatever it did: until then, restarting, not dead
                // after any launch: a run started meanwhile keeps the container counted as running
                ended = retired;
                exitedLast = ended ? null : parent.memberExited(died);
                lock.unlock();
            }
            ConsumerStoppedEvent.@Nullable Reason allStopped = ended
                    ? parent.retiredMemberExited(this, died) // not under this lock: it takes the container's
                    : exitedLast;
            if (allStopped != null) {
                try {
                    publish((member, container) -> new ConcurrentContainerStoppedEvent(container,
                            container.getListenerId(), allStopped));
                } catch (RuntimeException | Error e) {
                    LOG.error("Telling that {} stopped failed", memberName, e);
                }
                parent.runAfterStop();
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
            siblingsStopping.await(properties.shutdownTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether this member is stopping: asked to stop, its thread not yet gone. */
    boolean isStopping() {
        return running && stopRequested;
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

    /** Waits {@code millis} unless a stop or a pause is requested first (a resume does not cut it short). */
    void awaitStopOrPause(long millis) throws InterruptedException {
        awaitStopOrPause(millis, List.of());
    }

    /**
     * As {@link #awaitStopOrPause(long)}, and ended too by a request to pause the partition of one of
     * {@code records} (a retry's back-off of them: the partition's pause holds them, as it holds its other records).
     */
    void awaitStopOrPause(long millis, List<KafkoRecord> records) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        lock.lock();
        try {
            long left;
            while (!stopRequested && !pauseRequested && !partitionPauseRequested(records)
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

    @Override
    public String toString() {
        return "KafkoMessageListenerContainer[" + memberName + " on " + topic
                + (assignment == null ? "" : " partitions " + assignment.partitions()) + ", group " + groupId + "]";
    }
}
