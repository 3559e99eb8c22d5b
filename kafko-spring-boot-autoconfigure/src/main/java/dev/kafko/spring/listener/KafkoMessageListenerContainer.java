package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.event.KafkoEvent;
import dev.kafko.spring.support.GuardedInstrumentation;
import dev.kafko.spring.support.KafkoInstrumentation;
import java.util.List;
import java.util.concurrent.CountDownLatch;
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
 * Lifecycle methods may be called from any thread and are serialized (by its {@link MemberLifecycle}); the polling
 * itself happens in {@link ListenerConsumer} on the member thread. {@link ConcurrentMessageListenerContainer}
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
    private final KafkoErrorHandler errorHandler;
    private final KafkoInstrumentation instrumentation;
    private final ProcessedOffsets processed;
    /** The partitions this member reads by hand, or null for a member of its group. */
    private final @Nullable AssignedPartitions assignment;
    private volatile RecordObservations observations = RecordObservations.NONE;
    /** Its polling thread's runs: started, stopped, paused, and what that thread waits for. */
    private final MemberLifecycle lifecycle;

    /** Whether the member's listener asked for seeks it has not made yet. Any thread. */
    boolean hasPendingSeeks() {
        ListenerConsumer c = lifecycle.consumer();
        return c != null && c.hasPendingSeeks();
    }

    /**
     * Whether the member holds records whose {@link RecordInterceptor} or {@link BatchInterceptor} it has still to
     * tell how they went (their commit may come before). Any thread.
     */
    boolean hasInterceptorToTell() {
        ListenerConsumer c = lifecycle.consumer();
        return c != null && c.interceptorToTell();
    }

    /**
     * The partitions the member reads now, under its topic (none: empty, as before its first start and once its
     * thread ended). Any thread.
     */
    @Override
    public Map<String, Set<Integer>> getAssignedPartitions() {
        ListenerConsumer c = lifecycle.consumer();
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
        this.errorHandler = errorHandler;
        this.instrumentation = GuardedInstrumentation.of(instrumentation);
        this.processed = processed;
        this.assignment = assignment;
        this.lifecycle = new MemberLifecycle(this, parent, backend, listener, executor); // last: it reads the above
    }

    @Override
    public String getListenerId() {
        return listenerId;
    }

    /** The name of this member's polling thread. */
    public String memberName() {
        return memberName;
    }

    /**
     * The listener's id with this member's number, {@code <id>-<n>} (whatever {@code clientIdPrefix} names the
     * thread), as spring-kafka names the child container of a member and its idle events.
     */
    String childId() {
        return listenerId + memberName.substring(memberName.lastIndexOf('-'));
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

    /**
     * Whether the member reads a topic its pattern matched as it was created while the container ran, and that topic
     * still ({@code topicId}, its id now): it reads from the topic's start the partitions the group has no commit
     * for, in whichever run it is first assigned them (one that started before, stopped before its first poll, never
     * committed them).
     */
    boolean topicCreatedWhileRunning(@Nullable Object topicId) {
        return parent.topicCreatedWhileRunning(topic, topicId);
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
     * publisher; an application listener that throws is logged ({@link ContainerEvents}). Polling thread.
     */
    /** The listener's container, of which this is a member. */
    ConcurrentMessageListenerContainer parent() {
        return parent;
    }

    void publish(BiFunction<KafkoMessageListenerContainer, ConcurrentMessageListenerContainer, ?> event) {
        ApplicationEventPublisher publisher = parent.eventPublisher();
        if (publisher == null) {
            return;
        }
        // a KafkoEvent: typed Object in the function so that verifying the lambdas that make the events (when
        // their class is linked, at start-up) does not load every event class, only those published. A lambda that
        // makes one of two events returns each on its own: javac 25 (not 17) types a conditional between them as
        // their common superclass where its branches meet, which the verifier checks by loading both
        ContainerEvents.publish(publisher, (KafkoEvent) event.apply(this, parent), LOG, memberName);
    }

    @Override
    public void start() {
        lifecycle.start(MemberLifecycle.OPEN);
    }

    /** Starts the member; its thread polls once {@code firstPoll} is open ({@link MemberLifecycle#start}). */
    void start(CountDownLatch firstPoll) {
        lifecycle.start(firstPoll);
    }

    boolean isPollingThread(Thread thread) {
        return lifecycle.isPollingThread(thread);
    }

    /**
     * On this member's polling thread, whose listener is closing the application: commits what the member processed
     * and holds the JVM alive ({@link MemberLifecycle#shutdownFromListener}).
     */
    void shutdownFromListener() {
        lifecycle.shutdownFromListener();
    }

    /** Whether this member's own listener closed the application (its record in hand is not committed). */
    boolean closedByOwnListener() {
        return lifecycle.closedByOwnListener();
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
        lifecycle.requestStop(together);
    }

    /** Waits for the stop asked for, up to the shutdown timeout ({@link MemberLifecycle#awaitStopped}). */
    void awaitStopped() {
        lifecycle.awaitStopped();
    }

    @Override
    public void stop() {
        requestStop();
        awaitStopped();
    }

    /**
     * On the polling thread of a member whose topic was deleted and does not exist: whether the member ends, as
     * a pattern's do ({@link ContainerLifecycle#retireDeletedTopic}); a member of named topics
     * waits for its topic instead.
     */
    boolean retireIfTopicGone() {
        return parent.getTopicPattern() != null && parent.lifecycle().retireDeletedTopic(this);
    }

    /**
     * Ends the member for good: a stop that no start follows. Under the container's lock.
     *
     * @return whether its thread still runs (it ends on its own, telling the container as it does)
     */
    boolean retire() {
        return lifecycle.retire();
    }

    /** No start launches the member again: its container made its members again ({@link ContainerMembers#remake}). */
    void replaced() {
        lifecycle.replaced();
    }

    @Override
    public void pause() {
        lifecycle.pause();
    }

    @Override
    public void resume() {
        lifecycle.resume();
    }

    @Override
    public boolean isRunning() {
        return lifecycle.running();
    }

    @Override
    public boolean isPauseRequested() {
        return lifecycle.pauseRequested();
    }

    @Override
    public boolean isPaused() {
        return lifecycle.paused();
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
        ListenerConsumer c = lifecycle.consumer();
        return c != null && this.topic.equals(topic) && (c.pausedPartitions().contains(partition)
                || lifecycle.paused() && c.assignedPartitions().contains(partition));
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
        lifecycle.wakeup();
    }

    /** Whether a pause of the partition of one of {@code records} was asked for ({@link #pausePartition}). */
    boolean partitionPauseRequested(List<KafkoRecord> records) {
        return parent.partitionPauses().anyRequested(topic, records);
    }

    /**
     * Whether the listener asked this member for a seek, not made yet, of the partition of one of {@code records}
     * ({@link ListenerConsumer#seekRequested}).
     */
    boolean seekRequested(List<KafkoRecord> records) {
        ListenerConsumer c = lifecycle.consumer();
        return c != null && c.seekRequested(records);
    }

    /** Whether the listener asked this member for a seek, of any partition, not made yet. */
    boolean anySeekRequested() {
        ListenerConsumer c = lifecycle.consumer();
        return c != null && c.anySeekRequested();
    }

    @Override
    public boolean isAutoStartup() {
        return true;
    }

    @Override
    public boolean isInExpectedState() {
        return lifecycle.inExpectedState();
    }

    /** Why the polling thread died, or {@code null}. */
    @Override
    public @Nullable Throwable getFailure() {
        return lifecycle.failure();
    }

    boolean stopRequested() {
        return lifecycle.stopRequested();
    }

    boolean pauseRequested() {
        return lifecycle.pauseRequested();
    }

    void markPaused(boolean value) {
        lifecycle.markPaused(value);
    }

    /** Called by the member thread as its last act ({@link MemberLifecycle#exited}). */
    void exited(@Nullable Throwable died, Runnable stopped) {
        lifecycle.exited(died, stopped);
    }

    /** Before the member thread leaves its group after a stop ({@link MemberLifecycle#awaitSiblingsStopping}). */
    void awaitSiblingsStopping() {
        lifecycle.awaitSiblingsStopping();
    }

    /** Whether this member is stopping: asked to stop, its thread not yet gone. */
    boolean isStopping() {
        return lifecycle.isStopping();
    }

    /** Waits for a stop, resume or pause signal, at most {@code millis}. */
    void awaitSignal(long millis) throws InterruptedException {
        lifecycle.awaitSignal(millis);
    }

    /** On the polling thread of a paused member: waits for a resume or a stop, at most {@code millis}. */
    void awaitResume(long millis) throws InterruptedException {
        lifecycle.awaitResume(millis);
    }

    /** Waits {@code millis} unless a stop or a pause is requested first (a resume does not cut it short). */
    void awaitStopOrPause(long millis) throws InterruptedException {
        awaitStopOrPause(millis, List.of());
    }

    /**
     * As {@link #awaitStopOrPause(long)}, and ended too by a request to pause the partition of one of
     * {@code records} (a retry's back-off of them: the partition's pause holds them, as it holds its other records),
     * or by a seek of it the listener asked for (the partition is read from where it is sought).
     */
    void awaitStopOrPause(long millis, List<KafkoRecord> records) throws InterruptedException {
        lifecycle.awaitStopOrPause(millis, records);
    }

    /**
     * As {@link #awaitStopOrPause(long)}, and ended too by any seek the listener asked for (a nack's sleep, during
     * which the member makes the seeks: {@link ListenerConsumer#makeSeeks}).
     */
    void awaitStopPauseOrSeek(long millis) throws InterruptedException {
        lifecycle.awaitStopPauseOrSeek(millis);
    }

    @Override
    public String toString() {
        return "KafkoMessageListenerContainer[" + memberName + " on " + topic
                + (assignment == null ? "" : " partitions " + assignment.partitions()) + ", group " + groupId + "]";
    }
}