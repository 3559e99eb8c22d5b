package dev.kafko.spring.listener;

import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.event.ConcurrentContainerStoppedEvent;
import dev.kafko.spring.support.GuardedInstrumentation;
import dev.kafko.spring.support.KafkoInstrumentation;
import dev.kafko.spring.support.TopicPartitionOffset;
import dev.kafko.spring.support.micrometer.KafkoListenerObservation;
import dev.kafko.spring.support.micrometer.KafkoListenerObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.core.task.TaskExecutor;

/**
 * A listener's container: for each of its topics, {@code concurrency} members of one group that
 * share the topic's partitions, each a {@link KafkoMessageListenerContainer} with its own thread,
 * named {@code <id>-0}, {@code <id>-1}, ... Lifecycle methods may be called from any thread and
 * are serialized on this object.
 *
 * <p>A container made with a topic pattern reads every topic whose whole name the pattern matches, but for
 * dead-letter topics ({@code <topic>.DLT}, which its own failures fill): those that exist when it starts, and,
 * while it runs, each one created later, from the moment it is created, where the backend tells creations
 * ({@link LogBackend#watchTopicCreations}; else at its next start). It never creates a topic. The members of a
 * topic deleted under it end (each publishes its {@code ConsumerStoppedEvent}; the container runs on, and tells
 * nothing more), so a pattern over short-lived topics keeps no thread per topic it ever read; when the topic is
 * created again, it is matched again and new members read it.
 *
 * <p>A container made with topic partitions reads exactly those, assigned by hand (Kafka's {@code assign}), as
 * spring-kafka's container does: each topic's partitions are split among {@code concurrency} members (fewer when
 * there are fewer partitions: one each), in the order given, in contiguous runs, the last member taking what is
 * left. Its members are no members of the group: they join nothing and commit the group's offsets of their
 * partitions (refused while the group has live members). Each member seeks the initial offsets of its partitions
 * each time it starts, then tells a {@link ConsumerSeekAware} listener of all its partitions at once. The topics
 * are created on first use where topics are, and a partition a topic does not have fails the start.
 */
public final class ConcurrentMessageListenerContainer implements MessageListenerContainer {

    private final String listenerId;
    /** The topic pattern, its watch of topic creations and its topics' members; null for named topics. */
    private final @Nullable TopicPatternWatch topicPattern;
    /** The partitions read by hand per topic, in the order given; null for a container of its group. */
    private final @Nullable Map<String, List<TopicPartitionOffset>> assigned;
    private final String groupId;
    private volatile boolean autoStartup;
    private final KafkoInstrumentation instrumentation;
    /** The members and the topics they read: made, started and stopped, and counted as their threads run. */
    private final ContainerMembers members;
    /** The pauses asked of it, of the whole container or of single partitions, which its members take into effect. */
    private final ContainerPauses pauses;
    /** Its starts and stops, and the telling of its stops. */
    private final ContainerLifecycle lifecycle;
    private final CatchUp catchUp;
    private volatile @Nullable ApplicationEventPublisher eventPublisher;
    private volatile @Nullable RecordInterceptor recordInterceptor;
    private volatile @Nullable PlatformTransactionManager transactionManager;
    private volatile @Nullable BatchInterceptor batchInterceptor;

    public ConcurrentMessageListenerContainer(String listenerId, List<String> topics, String groupId, LogBackend backend,
                                              ContainerProperties properties, boolean autoStartup,
                                              KafkoMessageListener listener, KafkoErrorHandler errorHandler,
                                              KafkoInstrumentation instrumentation, TaskExecutor executor) {
        this(listenerId, null, topics, null, groupId, backend, properties, autoStartup, listener, errorHandler,
                instrumentation, executor);
    }

    /**
     * A container that reads exactly {@code topicPartitions}, assigned by hand, for {@code groupId} (see the class
     * comment).
     */
    public ConcurrentMessageListenerContainer(String listenerId, TopicPartitionOffset[] topicPartitions,
                                              String groupId, LogBackend backend, ContainerProperties properties,
                                              boolean autoStartup, KafkoMessageListener listener,
                                              KafkoErrorHandler errorHandler, KafkoInstrumentation instrumentation,
                                              TaskExecutor executor) {
        this(listenerId, null, List.of(), AssignedPartitions.byTopic(listenerId, topicPartitions), groupId, backend,
                properties, autoStartup, listener, errorHandler, instrumentation, executor);
    }

    /**
     * A container that reads every topic whose whole name {@code topicPattern} matches (see the class comment).
     */
    public ConcurrentMessageListenerContainer(String listenerId, Pattern topicPattern, String groupId,
                                              LogBackend backend, ContainerProperties properties, boolean autoStartup,
                                              KafkoMessageListener listener, KafkoErrorHandler errorHandler,
                                              KafkoInstrumentation instrumentation, TaskExecutor executor) {
        this(listenerId, Objects.requireNonNull(topicPattern, "topicPattern"), List.of(), null, groupId, backend,
                properties, autoStartup, listener, errorHandler, instrumentation, executor);
    }

    private ConcurrentMessageListenerContainer(String listenerId, @Nullable Pattern topicPattern, List<String> topics,
                                               @Nullable Map<String, List<TopicPartitionOffset>> assigned,
                                               String groupId, LogBackend backend, ContainerProperties properties,
                                               boolean autoStartup, KafkoMessageListener listener,
                                               KafkoErrorHandler errorHandler, KafkoInstrumentation instrumentation,
                                               TaskExecutor executor) {
        if (topicPattern == null && topics.isEmpty() && assigned == null) {
            throw new IllegalArgumentException("Listener '" + listenerId + "' names no topic");
        }
        this.listenerId = listenerId;
        this.assigned = assigned;
        this.groupId = groupId;
        this.autoStartup = autoStartup;
        this.instrumentation = GuardedInstrumentation.of(instrumentation); // its failure fails no record
        ProcessedOffsets processed = new ProcessedOffsets(backend);
        this.members = new ContainerMembers(new ContainerMemberFactory(this, backend, listener, this.instrumentation,
                executor, processed), listenerId, groupId, backend, properties, errorHandler, this.instrumentation,
                processed, assigned, topicPattern != null);
        this.topicPattern = topicPattern == null ? null
                : new TopicPatternWatch(listenerId, topicPattern, backend, members);
        this.pauses = new ContainerPauses(members);
        this.lifecycle = new ContainerLifecycle(this, members, this.topicPattern, pauses, processed);
        this.catchUp = new CatchUp(this, backend, processed, assigned);
        for (String topic : assigned != null ? assigned.keySet() : new LinkedHashSet<>(topics)) {
            members.add(topic);
        }
    }

    /**
     * Observes the delivery of every record to a record listener ({@link KafkoListenerObservation}):
     * its attempts and, when they fail, its recovery, as one observation that continues the trace the
     * record carries; {@link ObservationRegistry#NOOP} observes nothing. Takes effect at the next start.
     */
    public void setObservationRegistry(ObservationRegistry registry,
                                       @Nullable KafkoListenerObservationConvention convention) {
        members.setObservations(new RecordObservations(registry, convention));
    }

    /**
     * What sees each record before a record listener does ({@link RecordInterceptor}); {@code null} (the default):
     * nothing. A batch listener's container does not use it. Takes effect at the next start.
     */
    public void setRecordInterceptor(@Nullable RecordInterceptor recordInterceptor) {
        this.recordInterceptor = recordInterceptor;
    }

    public @Nullable RecordInterceptor getRecordInterceptor() {
        return recordInterceptor;
    }

    /**
     * What sees each batch before a batch listener does ({@link BatchInterceptor}); {@code null} (the default):
     * nothing. A record listener's container does not use it. Takes effect at the next start.
     */
    public void setBatchInterceptor(@Nullable BatchInterceptor batchInterceptor) {
        this.batchInterceptor = batchInterceptor;
    }

    public @Nullable BatchInterceptor getBatchInterceptor() {
        return batchInterceptor;
    }

    /**
     * Runs each delivery attempt (of a record, or of a batch) in a transaction of this manager, as spring-kafka's
     * {@code ContainerProperties.setTransactionManager}: with a {@code KafkoTransactionManager}, or any other, the
     * records a transactional template sends from the listener are written when the attempt returns and dropped when
     * it throws; the offsets are committed after the transaction. {@code null} (the default): none. Takes effect at
     * the next start.
     */
    public void setTransactionManager(@Nullable PlatformTransactionManager transactionManager) {
        this.transactionManager = transactionManager;
    }

    public @Nullable PlatformTransactionManager getTransactionManager() {
        return transactionManager;
    }

    /**
     * Where the members publish their events ({@link dev.kafko.spring.event}); {@code null} (the default of a
     * container made without a factory bean): none. The container factory sets it to the application context.
     */
    public void setApplicationEventPublisher(@Nullable ApplicationEventPublisher eventPublisher) {
        this.eventPublisher = eventPublisher;
    }

    @Nullable ApplicationEventPublisher eventPublisher() {
        return eventPublisher;
    }

    @Override
    public String getListenerId() {
        return listenerId;
    }

    @Override
    public String getGroupId() {
        return groupId;
    }

    /**
     * The topics read now: those named, or those the topic pattern matched so far. A member that {@link #getMembers()}
     * lists has its topic here for as long as it is listed there.
     */
    @Override
    public List<String> getTopics() {
        return List.copyOf(members.topics());
    }

    /** The partitions this container reads by hand, in the order given, or {@code null} for a group's container. */
    public @Nullable List<TopicPartitionOffset> getTopicPartitions() {
        return assigned == null ? null : assigned.values().stream().flatMap(List::stream).toList();
    }

    /** The pattern of the topics this container reads, or {@code null} when it reads the topics it names. */
    public @Nullable Pattern getTopicPattern() {
        return topicPattern == null ? null : topicPattern.pattern();
    }

    @Override
    public Map<String, Set<Integer>> getAssignedPartitions() {
        return members.assignedPartitions();
    }

    public ContainerProperties getContainerProperties() {
        return members.properties();
    }

    /**
     * Replaces the settings the container was made with (ack mode, concurrency, polls, ...; a customizer's
     * {@code c.setContainerProperties(c.getContainerProperties().withAckMode(AckMode.RECORD))}) before its first
     * start, or while it is stopped (a stop, then this, then a start, as spring-kafka's containers take a new
     * concurrency): its members are made again with them, named from {@code <id>-0} on.
     *
     * @throws IllegalStateException while the container runs, or a member it stopped still finishes its record past
     *         the shutdown timeout: its members run with the settings they had
     */
    public synchronized void setContainerProperties(ContainerProperties properties) {
        members.remake(Objects.requireNonNull(properties, "properties"), members.errorHandler(), lifecycle.started(),
                pauses);
    }

    /** The error handler of its members' failed deliveries (spring-kafka's {@code getCommonErrorHandler}). */
    public KafkoErrorHandler getErrorHandler() {
        return members.errorHandler();
    }

    /** As {@link #setContainerProperties}, the error handler (spring-kafka's {@code setCommonErrorHandler}). */
    public synchronized void setErrorHandler(KafkoErrorHandler errorHandler) {
        members.remake(members.properties(), Objects.requireNonNull(errorHandler, "errorHandler"),
                lifecycle.started(), pauses);
    }

    /** spring-kafka's name of {@link #getErrorHandler}. */
    public KafkoErrorHandler getCommonErrorHandler() {
        return getErrorHandler();
    }

    /** spring-kafka's name of {@link #setErrorHandler}, so that a ported customizer reads as it did. */
    public void setCommonErrorHandler(KafkoErrorHandler errorHandler) {
        setErrorHandler(errorHandler);
    }

    /**
     * As {@link #setContainerProperties}, the members per topic (spring-kafka's {@code setConcurrency}).
     *
     * @throws IllegalArgumentException when {@code concurrency} is below 1
     * @throws IllegalStateException while the container runs (see {@link #setContainerProperties})
     */
    public synchronized void setConcurrency(int concurrency) {
        setContainerProperties(getContainerProperties().withConcurrency(concurrency));
    }

    /** Whether the registry starts it with the context (or when registered while it runs); any time. */
    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    /**
     * The members, in thread-name order: made with the container, so listed before its first start and after a stop
     * too (not running, assigned nothing), and the same ones run again at its next start; made again only by
     * {@link #setContainerProperties}, {@link #setErrorHandler} and {@link #setConcurrency}, and, for a topic
     * pattern, as topics are matched or deleted.
     * spring-kafka's {@code getContainers()} is empty until the first start and makes its children again at each.
     */
    public List<MessageListenerContainer> getMembers() {
        return List.copyOf(members.all());
    }

    @Override
    public synchronized void start() {
        lifecycle.start();
    }

    /**
     * Whether {@code topic}, as it exists now ({@code topicId}), is one its pattern matched as it was created while the
     * container ran, in this run or an earlier one. Any thread.
     */
    boolean topicCreatedWhileRunning(String topic, @Nullable Object topicId) {
        return members.createdWhileRunning(topic, topicId);
    }

    /** Its starts and stops: the hooks of its members' threads, and of its pattern's deleted topics. */
    ContainerLifecycle lifecycle() {
        return lifecycle;
    }

    /**
     * {@inheritDoc} Called by one of this container's own listeners (a circuit breaker), it returns at once:
     * every member stops after its record in hand, the caller's once its listener returns.
     */
    @Override
    public void stop() {
        lifecycle.stop();
    }

    /**
     * {@link #stop()}, then {@code callback}. Called by one of this container's own listeners, it returns at once, and
     * {@code callback} runs once every member has stopped (the caller's after its listener returned), on the polling
     * thread of the last one, after the {@link ConcurrentContainerStoppedEvent}, as spring-kafka's asynchronous stop;
     * a start before then keeps it for the end of the next stop. From any other thread, on the calling thread once
     * {@code stop()} returned. A callback that throws is logged.
     */
    @Override
    public void stop(Runnable callback) {
        lifecycle.stop(callback);
    }

    /**
     * Stops as the application's shutdown does when one of this container's listeners runs it (it closed
     * the application from its polling thread): every other member is waited for, up to the shutdown
     * timeout, so that their records in hand are finished and committed before kafko closes; the caller's
     * member commits what it processed before its record in hand at once, and stops once its listener returns.
     */
    public void stopForShutdown() {
        lifecycle.stopForShutdown();
    }

    /** The container was removed from its registry (and stopped): its meters go. */
    public void removed() {
        instrumentation.listenerRemoved(listenerId, groupId, getTopics());
    }

    /** Whether {@code thread} is the polling thread of one of this container's members. */
    public boolean isPollingThread(Thread thread) {
        return members.isPollingThread(thread);
    }

    @Override
    public synchronized void pause() {
        pauses.pause();
    }

    @Override
    public synchronized void resume() {
        pauses.resume();
    }

    @Override
    public void pausePartition(String topic, int partition) {
        pauses.pausePartition(topic, partition);
    }

    @Override
    public void resumePartition(String topic, int partition) {
        pauses.resumePartition(topic, partition);
    }

    @Override
    public boolean isPartitionPauseRequested(String topic, int partition) {
        return pauses.partitions().isRequested(topic, partition);
    }

    @Override
    public boolean isPartitionPaused(String topic, int partition) {
        return pauses.isPartitionPaused(topic, partition);
    }

    /** The partitions this container was asked to pause, for its members. */
    PartitionPauses partitionPauses() {
        return pauses.partitions();
    }

    /** {@inheritDoc} A container with a pattern that matched no topic yet runs from its start until its stop. */
    @Override
    public boolean isRunning() {
        List<KafkoMessageListenerContainer> all = members.all();
        return all.isEmpty() ? lifecycle.started() : all.stream().anyMatch(KafkoMessageListenerContainer::isRunning);
    }

    @Override
    public boolean isPauseRequested() {
        return pauses.isPauseRequested();
    }

    /**
     * {@inheritDoc} A container that is not running (before its first start, or stopped) is not paused, whatever was
     * asked: no member of it polls, and each answers false; {@link #isPauseRequested()} tells the request, which
     * outlasts the stop (its members start paused).
     */
    @Override
    public boolean isPaused() {
        return isRunning() && pauses.isPaused();
    }

    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }

    @Override
    public boolean isInExpectedState() {
        return members.all().stream().allMatch(KafkoMessageListenerContainer::isInExpectedState);
    }

    @Override
    public @Nullable Throwable getFailure() {
        for (KafkoMessageListenerContainer member : members.all()) {
            Throwable failure = member.getFailure();
            if (failure != null) {
                return failure;
            }
        }
        return null;
    }

    /** Whether a member's polling thread died while the container should run: it reads nothing any more. */
    public boolean hasDeadMember() {
        return getFailure() != null && !isInExpectedState();
    }

    /**
     * Whether the container was started, and no stop asked for since, but runs no member yet, none of them dead: a
     * start made while its members finished a stop runs them again once that stop ends (its
     * {@code ConsumerStoppedEvent} told); a start from another thread is under way. Any thread.
     */
    public boolean isStartPending() {
        return lifecycle.started() && !isRunning() && !hasDeadMember();
    }

    /**
     * Waits until this listener has finished (processed or recovered) every record that was in its
     * topics when this method was called, or its group has committed past them, and no member has its record or batch
     * interceptor still to tell how the records it holds went.
     *
     * @return the partitions still behind when {@code timeout} passed, or as soon as a member died
     *     ({@link #hasDeadMember()}); empty when caught up
     */
    public List<String> awaitCaughtUp(Duration timeout) throws InterruptedException {
        return awaitCaughtUp(endOffsets(), timeout);
    }

    /** The end offsets of this container's topics now, per topic and partition: targets for {@link #awaitCaughtUp(Map, Duration)}. */
    public Map<String, Map<Integer, Long>> endOffsets() {
        return catchUp.endOffsets(members.topics());
    }

    /**
     * As {@link #awaitCaughtUp(Duration)}, up to {@code targets} (from {@link #endOffsets()}) taken
     * earlier: several containers can be waited for up to the ends of one moment.
     */
    public List<String> awaitCaughtUp(Map<String, Map<Integer, Long>> targets, Duration timeout)
            throws InterruptedException {
        return catchUp.await(targets, timeout, members.all());
    }

    @Override
    public String toString() {
        List<String> topics = members.topics();
        return "ConcurrentMessageListenerContainer[" + listenerId + " on " + (assigned != null ? assigned.values()
                : topicPattern == null ? topics : "pattern '" + topicPattern.pattern() + "' " + topics)
                + ", group " + groupId
                + ", " + members.all().size() + " member(s)]";
    }
}
