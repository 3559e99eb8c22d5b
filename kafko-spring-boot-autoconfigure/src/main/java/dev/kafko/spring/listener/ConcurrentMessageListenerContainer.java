package dev.kafko.spring.listener;

import dev.kafko.UnknownTopicException;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.event.ConcurrentContainerStoppedEvent;
import dev.kafko.spring.event.ConsumerStoppedEvent;
import dev.kafko.spring.support.GuardedInstrumentation;
import dev.kafko.spring.support.KafkoInstrumentation;
import dev.kafko.spring.support.TopicPartitionOffset;
import dev.kafko.spring.support.micrometer.KafkoListenerObservation;
import dev.kafko.spring.support.micrometer.KafkoListenerObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.Collections;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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

    private static final Logger LOG = LoggerFactory.getLogger(ConcurrentMessageListenerContainer.class);

    private final String listenerId;
    /** The topic pattern and its watch of topic creations; null for a container that reads the topics it names. */
    private final @Nullable TopicPatternWatch topicPattern;
    /** The partitions read by hand per topic, in the order given; null for a container of its group. */
    private final @Nullable Map<String, List<TopicPartitionOffset>> assigned;
    /** The topics read, in the order their members were made: fixed, or those the pattern matched so far. */
    private final List<String> topics = new CopyOnWriteArrayList<>();
    private final String groupId;
    private final LogBackend backend;
    private final ContainerProperties properties;
    private final boolean autoStartup;
    private final KafkoMessageListener listener;
    private final KafkoErrorHandler errorHandler;
    private final KafkoInstrumentation instrumentation;
    private final TaskExecutor executor;
    /**
     * Grows (under this container's lock) when a pattern matches a topic, and loses the members of a pattern's topic
     * that was deleted; iterated without a lock.
     */
    private final List<KafkoMessageListenerContainer> members = new CopyOnWriteArrayList<>();
    /** Members of a pattern's deleted topic whose threads have not ended yet: a stop waits for them too. */
    private final List<KafkoMessageListenerContainer> retiring = new CopyOnWriteArrayList<>();
    /** The number in the next member's name: names are never reused. Under this container's lock. */
    private int nextMember;
    private final ProcessedOffsets processed;
    private final CatchUp catchUp;
    /** Members whose polling thread runs; their launches and exits count under their own locks. */
    private final AtomicInteger live = new AtomicInteger();
    /** Why the first member that died since none ran ended; null while none did. */
    private final AtomicReference<ConsumerStoppedEvent.@Nullable Reason> diedSinceAllStopped = new AtomicReference<>();
    /** Whether this container holds the {@link KeepAlive}: from its start until it is asked to stop. */
    private boolean keepingAlive;
    /** From {@link #start()} until a stop is asked for: members made for newly matched topics start. */
    private volatile boolean started;
    /**
     * Whether a member thread was launched since the container last started: if none was (a pattern that matched
     * no topic yet), no member can be the last one to stop, and the stop itself tells that the container stopped.
     */
    private volatile boolean launchedSinceStart;
    /** Whether a pause was asked for and no resume since: members made meanwhile start paused. */
    private volatile boolean pauseRequested;
    private volatile RecordObservations observations = RecordObservations.NONE;
    /** The topics (and partition counts) whose idle members were warned of. Under this container's lock. */
    private final Set<String> idleWarned = new java.util.HashSet<>();
    private volatile @Nullable ApplicationEventPublisher eventPublisher;

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
        this.topicPattern = topicPattern == null ? null : new TopicPatternWatch(listenerId, topicPattern, backend);
        this.groupId = groupId;
        this.backend = backend;
        this.properties = properties;
        this.autoStartup = autoStartup;
        this.listener = listener;
        this.errorHandler = errorHandler;
        this.instrumentation = GuardedInstrumentation.of(instrumentation); // its failure fails no record
        this.executor = executor;
        this.processed = new ProcessedOffsets(backend::topicId);
        this.catchUp = new CatchUp(this, backend, processed, assigned);
        for (String topic : assigned != null ? assigned.keySet() : new LinkedHashSet<>(topics)) {
            addMembers(topic);
        }
    }

    /** Makes the members of a topic not read yet. Under this container's lock, or in the constructor. */
    private List<KafkoMessageListenerContainer> addMembers(String topic) {
        List<KafkoMessageListenerContainer> added = new ArrayList<>();
        List<AssignedPartitions> byHand = assigned == null ? null
                : AssignedPartitions.split(topic, assigned.get(topic), properties.concurrency());
        if (byHand != null && byHand.size() < properties.concurrency()) {
            LOG.warn("Listener '{}' has concurrency {} but is assigned {} partition(s) of topic '{}': it reads them"
                    + " with {} member(s), one each", listenerId, properties.concurrency(), byHand.size(), topic,
                    byHand.size());
        }
        for (int i = 0; i < (byHand == null ? properties.concurrency() : byHand.size()); i++) {
            KafkoMessageListenerContainer member = new KafkoMessageListenerContainer(this, listenerId + "-"
                    + nextMember++, topic, groupId, backend, properties, listener, errorHandler,
                    instrumentation, executor, processed, byHand == null ? null : byHand.get(i));
            member.setObservations(observations);
            added.add(member);
        }
        topics.add(topic); // before its members, as dropTopic removes it after them: no member without its topic
        members.addAll(added);
        return added;
    }

    /**
     * Observes the delivery of every record to a record listener ({@link KafkoListenerObservation}):
     * its attempts and, when they fail, its recovery, as one observation that continues the trace the
     * record carries; {@link ObservationRegistry#NOOP} observes nothing. Takes effect at the next start.
     */
    public void setObservationRegistry(ObservationRegistry registry,
                                       @Nullable KafkoListenerObservationConvention convention) {
        RecordObservations observations = new RecordObservations(registry, convention);
        this.observations = observations;
        for (KafkoMessageListenerContainer member : members) {
            member.setObservations(observations);
        }
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
        return List.copyOf(topics);
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
        Map<String, Set<Integer>> all = new TreeMap<>();
        for (KafkoMessageListenerContainer member : members) {
            member.getAssignedPartitions().forEach((topic, partitions) ->
                    all.computeIfAbsent(topic, t -> new TreeSet<>()).addAll(partitions));
        }
        return Collections.unmodifiableMap(all);
    }

    public ContainerProperties getContainerProperties() {
        return properties;
    }

    /** The members, in thread-name order. */
    public List<MessageListenerContainer> getMembers() {
        return List.copyOf(members);
    }

    @Override
    public synchronized void start() {
        if (topicPattern != null) {
            topicPattern.start(this::followedTopicCreated);
        }
        try {
            if (topicPattern != null) {
                for (String topic : backend.topicNames()) {
                    if (topicPattern.follows(topic) && !topics.contains(topic)) {
                        addMembers(topic);
                    }
                }
            }
            for (String topic : topics) {
                if (!prepare(topic)) {
                    dropTopic(topic); // a pattern's topic deleted while the container was stopped
                }
            }
        } catch (RuntimeException | Error e) {
            if (!started && topicPattern != null) {
                topicPattern.stop(); // a container that does not run is told nothing, nor kept by the watch
            }
            throw e;
        }
        if (members.stream().allMatch(m -> !m.isRunning() || m.isStopping())) {
            // a new run starts from the group's commits: what the last run processed but never
            // committed is delivered again, and the test helper must wait for that
            processed.clear();
        }
        if (!keepingAlive) {
            KeepAlive.acquire();
            keepingAlive = true;
        }
        if (!started) {
            launchedSinceStart = false;
        }
        started = true;
        try {
            startMembers(members);
        } catch (RuntimeException e) {
            stop();
            throw e;
        }
    }

    /**
     * Gets a topic ready before its members start: created where allowed (but for a pattern's), its dead-letter
     * topic ready, a warning when members will idle. Under this container's lock.
     *
     * @return false when a pattern's topic no longer exists (it is no longer read, and matched anew when created)
     */
    private boolean prepare(String topic) {
        int partitions;
        try {
            if (topicPattern == null) {
                backend.ensureTopic(topic, 1);
            }
            partitions = backend.partitionCount(topic);
        } catch (UnknownTopicException e) {
            if (topicPattern != null) {
                return false;
            }
            throw new UnknownTopicException("Listener '" + listenerId + "' cannot start: " + e.getMessage());
        }
        if (assigned != null) {
            AssignedPartitions.check(listenerId, topic, assigned.get(topic), partitions);
        }
        errorHandler.prepare(topic);
        if (assigned == null && properties.concurrency() > partitions && idleWarned.add(topic + '\0' + partitions)) {
            // once per topic and partition count: not again at each restart (a cached test context's resumes)
            LOG.warn("Listener '{}' has concurrency {} but topic '{}' has {} partition(s): {} member(s) will idle",
                    listenerId, properties.concurrency(), topic, partitions, properties.concurrency() - partitions);
        }
        instrumentation.listenerStarting(listenerId, groupId, topic);
        return true;
    }

    /**
     * Starts {@code starting} behind one gate, opened once all have joined their groups, paused when a pause is
     * asked for; a pattern's topic deleted meanwhile is no longer read (its pattern matches it anew at a creation).
     * Under this container's lock.
     */
    private void startMembers(List<KafkoMessageListenerContainer> starting) {
        CountDownLatch allJoined = new CountDownLatch(1);
        try {
            for (KafkoMessageListenerContainer member : starting) {
                if (!members.contains(member)) {
                    continue; // its topic was deleted as a sibling started
                }
                if (pauseRequested) {
                    member.pause();
                }
                try {
                    member.start(allJoined);
                } catch (UnknownTopicException e) {
                    if (topicPattern == null) {
                        throw e;
                    }
                    LOG.info("Listener '{}' no longer reads topic '{}', deleted as {} started: {}; it reads the"
                            + " topic again if it is created", listenerId, member.topic(), member.memberName(),
                            e.getMessage());
                    dropTopic(member.topic());
                }
            }
        } finally {
            allJoined.countDown();
        }
    }

    /**
     * A topic this container's pattern matches was created, on the creating thread: its members start, those made
     * for it now or left waiting for it. A topic this container cannot get ready (its dead-letter topic cannot be
     * created) is logged and not read. The pattern was matched before this lock is taken ({@link TopicPatternWatch}):
     * another container prepares a topic under its own lock, which creates that topic's dead-letter topic; were that
     * creation to wait for this lock while this container, on another thread, created a dead-letter topic under it,
     * each would wait for the other for good.
     */
    private synchronized void followedTopicCreated(String topic) {
        if (!started) {
            return;
        }
        List<KafkoMessageListenerContainer> ofTopic = new ArrayList<>();
        for (KafkoMessageListenerContainer member : members) {
            if (member.topic().equals(topic) && !member.isRunning()) {
                ofTopic.add(member);
            }
        }
        boolean added = !topics.contains(topic);
        if (!added && ofTopic.isEmpty()) {
            return; // read already (found by the start's look at the topics, which the watch began before)
        }
        try {
            if (!prepare(topic)) {
                return; // deleted again already
            }
        } catch (RuntimeException e) {
            LOG.error("Listener '{}' does not read topic '{}', which its pattern '{}' matches: {}", listenerId, topic,
                    topicPattern == null ? null : topicPattern.pattern(), e.getMessage(), e);
            return;
        }
        if (added) {
            ofTopic.addAll(addMembers(topic));
            LOG.info("Listener '{}' reads topic '{}', created just now ({} member(s))", listenerId, topic,
                    ofTopic.size());
        }
        startMembers(ofTopic);
    }

    /**
     * A member of a pattern's topic found the topic deleted, and could not read it again: when it still does not
     * exist, every member of it ends (a stop of theirs, with nothing to commit) and the topic is no longer read, until
     * its pattern matches it again at a creation. Called on the member's polling thread, which ends when this returns
     * true. Under this container's lock, which a creation of the topic takes too: a creation comes either before
     * (the topic exists: the member reads it again) or after (the topic is matched anew).
     */
    synchronized boolean retireDeletedTopic(KafkoMessageListenerContainer member) {
        if (retiring.contains(member)) {
            return true; // a sibling retired the topic first
        }
        String topic = member.topic();
        if (topicPattern == null || !started || !members.contains(member)) {
            return false;
        }
        try {
            backend.partitionCount(topic);
            return false; // created again meanwhile: the member reads it again
        } catch (UnknownTopicException gone) {
            // ends
        }
        int ending = dropTopic(topic);
        LOG.info("Listener '{}' no longer reads topic '{}', which was deleted: its {} member(s) end; it reads the topic"
                + " again if it is created", listenerId, topic, ending);
        return true;
    }

    /**
     * A pattern's topic that no longer exists is no longer read: its members end, and its pattern matches it anew
     * at a creation. Under this container's lock.
     *
     * @return how many members it had
     */
    private int dropTopic(String topic) {
        List<KafkoMessageListenerContainer> ofTopic = members.stream().filter(m -> m.topic().equals(topic)).toList();
        members.removeAll(ofTopic);
        topics.remove(topic);
        processed.forget(topic);
        idleWarned.removeIf(warned -> warned.startsWith(topic + '\0'));
        for (KafkoMessageListenerContainer ending : ofTopic) {
            if (ending.retire()) {
                retiring.add(ending); // removed as its thread ends, which takes this lock
            }
        }
        return ofTopic.size();
    }

    /**
     * The polling thread of a member retired by {@link #retireDeletedTopic} ends: as {@link #memberExited}, but
     * while the container runs it publishes nothing, and a stop with no member left tells that it stopped.
     */
    synchronized ConsumerStoppedEvent.@Nullable Reason retiredMemberExited(KafkoMessageListenerContainer member,
                                                                          @Nullable Throwable died) {
        retiring.remove(member);
        if (!started) {
            return memberExited(died); // a stop was asked for meanwhile: this exit counts as any member's
        }
        if (live.decrementAndGet() == 0) {
            launchedSinceStart = false; // so that the next stop publishes the container's stop itself
        }
        return null;
    }

    /**
     * {@inheritDoc} Called by one of this container's own listeners (a circuit breaker), it returns at once:
     * every member stops after its record in hand, the caller's once its listener returns.
     */
    @Override
    public void stop() {
        boolean noMemberRan = requestStop();
        if (!isPollingThread(Thread.currentThread())) {
            members.forEach(KafkoMessageListenerContainer::awaitStopped);
            retiring.forEach(KafkoMessageListenerContainer::awaitStopped);
        }
        if (noMemberRan) {
            publishStopped();
        }
    }

    /** The {@link ConcurrentContainerStoppedEvent} of a stop of a container in which no member ran. */
    private void publishStopped() {
        ApplicationEventPublisher publisher = eventPublisher;
        if (publisher == null) {
            return;
        }
        try {
            publisher.publishEvent(new ConcurrentContainerStoppedEvent(this, listenerId,
                    ConsumerStoppedEvent.Reason.NORMAL));
        } catch (RuntimeException e) {
            LOG.error("An application listener of the stop of listener '{}' failed", listenerId, e);
        }
    }

    /**
     * Asks every member to stop; the waits happen outside the lock, which a member's own stop() needs. A
     * member leaves its group only once all were asked: a sibling not yet asked would take its partitions
     * and deliver again what it had not committed.
     *
     * @return whether the container ran with no member launched since its start (its stop is told by the caller)
     */
    private synchronized boolean requestStop() {
        boolean noMemberRan = started && !launchedSinceStart;
        started = false;
        if (topicPattern != null) {
            topicPattern.stop();
        }
        releaseKeepAlive();
        CountDownLatch together = new CountDownLatch(1);
        try {
            members.forEach(m -> m.requestStop(together));
        } finally {
            together.countDown();
        }
        return noMemberRan;
    }

    /**
     * Stops as the application's shutdown does when one of this container's listeners runs it (it closed
     * the application from its polling thread): every other member is waited for, up to the shutdown
     * timeout, so that their records in hand are finished and committed before kafko closes; the caller's
     * member stops once its listener returns.
     */
    public void stopForShutdown() {
        boolean noMemberRan = requestStop();
        members.forEach(KafkoMessageListenerContainer::awaitStopped); // which skips the caller's own member
        retiring.forEach(KafkoMessageListenerContainer::awaitStopped);
        if (noMemberRan) {
            publishStopped();
        }
    }

    /** The container was removed from its registry (and stopped): its meters go. */
    public void removed() {
        instrumentation.listenerRemoved(listenerId, groupId, getTopics());
    }

    /** A member's polling thread was started. */
    void memberLaunched() {
        launchedSinceStart = true;
        live.incrementAndGet();
    }

    /**
     * A member's polling thread ends ({@code died}: what ended it, or null); returns, to the last running member
     * only, the reason of the {@link ConcurrentContainerStoppedEvent} it publishes, else null.
     */
    ConsumerStoppedEvent.@Nullable Reason memberExited(@Nullable Throwable died) {
        if (died != null) {
            diedSinceAllStopped.compareAndSet(null, MemberEvents.reason(died));
        }
        if (live.decrementAndGet() != 0) {
            return null;
        }
        ConsumerStoppedEvent.Reason reason = diedSinceAllStopped.getAndSet(null);
        return reason != null ? reason : ConsumerStoppedEvent.Reason.NORMAL;
    }

    /** Whether {@code thread} is the polling thread of one of this container's members. */
    public boolean isPollingThread(Thread thread) {
        return members.stream().anyMatch(m -> m.isPollingThread(thread))
                || retiring.stream().anyMatch(m -> m.isPollingThread(thread));
    }

    /** Under this container's lock. */
    private void releaseKeepAlive() {
        if (keepingAlive) {
            keepingAlive = false;
            KeepAlive.release();
        }
    }

    @Override
    public synchronized void pause() {
        pauseRequested = true;
        members.forEach(KafkoMessageListenerContainer::pause);
    }

    @Override
    public synchronized void resume() {
        pauseRequested = false;
        members.forEach(KafkoMessageListenerContainer::resume);
    }

    /** {@inheritDoc} A container with a pattern that matched no topic yet runs from its start until its stop. */
    @Override
    public boolean isRunning() {
        return members.isEmpty() ? started : members.stream().anyMatch(KafkoMessageListenerContainer::isRunning);
    }

    @Override
    public boolean isPauseRequested() {
        return members.isEmpty() ? pauseRequested
                : members.stream().allMatch(KafkoMessageListenerContainer::isPauseRequested);
    }

    @Override
    public boolean isPaused() {
        return isPauseRequested() && members.stream().filter(KafkoMessageListenerContainer::isRunning)
                .allMatch(KafkoMessageListenerContainer::isPaused);
    }

    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }

    @Override
    public boolean isInExpectedState() {
        return members.stream().allMatch(KafkoMessageListenerContainer::isInExpectedState);
    }

    @Override
    public @Nullable Throwable getFailure() {
        for (KafkoMessageListenerContainer member : members) {
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
     * Waits until this listener has finished (processed or recovered) every record that was in its
     * topics when this method was called, or its group has committed past them.
     *
     * @return the partitions still behind when {@code timeout} passed, or as soon as a member died
     *     ({@link #hasDeadMember()}); empty when caught up
     */
    public List<String> awaitCaughtUp(Duration timeout) throws InterruptedException {
        return awaitCaughtUp(endOffsets(), timeout);
    }

    /** The end offsets of this container's topics now, per topic and partition: targets for {@link #awaitCaughtUp(Map, Duration)}. */
    public Map<String, Map<Integer, Long>> endOffsets() {
        return catchUp.endOffsets(topics);
    }

    /**
     * As {@link #awaitCaughtUp(Duration)}, up to {@code targets} (from {@link #endOffsets()}) taken
     * earlier: several containers can be waited for up to the ends of one moment.
     */
    public List<String> awaitCaughtUp(Map<String, Map<Integer, Long>> targets, Duration timeout)
            throws InterruptedException {
        return catchUp.await(targets, timeout, members);
    }

    @Override
    public String toString() {
        return "ConcurrentMessageListenerContainer[" + listenerId + " on " + (assigned != null ? assigned.values()
                : topicPattern == null ? topics : "pattern '" + topicPattern.pattern() + "' " + topics)
                + ", group " + groupId
                + ", " + members.size() + " member(s)]";
    }
}
