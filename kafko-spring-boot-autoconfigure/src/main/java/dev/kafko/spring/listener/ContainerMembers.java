package dev.kafko.spring.listener;

import dev.kafko.UnknownTopicException;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.event.ConsumerStoppedEvent;
import dev.kafko.spring.support.KafkoInstrumentation;
import dev.kafko.spring.support.TopicPartitionOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The members of one listener's container and the topics they read: changed under the container's lock (its monitor,
 * which its {@code synchronized} methods and its {@link ContainerLifecycle} hold; or in its constructor), read from
 * any thread without a lock. It makes a topic's members, gets the topic ready before they start, starts them behind
 * one gate, asks them to stop together, drops a pattern's deleted topic with its members, and counts the members'
 * polling threads as they launch and exit (atomically; a member counts under its own lock), so that the last one out
 * tells that the container stopped.
 */
final class ContainerMembers {

    /** The container's: what it logs of its members stays under the logger an application configures for it. */
    private static final Logger LOG = LoggerFactory.getLogger(ConcurrentMessageListenerContainer.class);

    /**
     * Makes one member: its thread's name, its topic, the partitions it reads by hand (null: its group's), and the
     * container's settings and error handler.
     */
    @FunctionalInterface
    interface Factory {
        KafkoMessageListenerContainer make(String memberName, String topic, @Nullable AssignedPartitions byHand,
                                           ContainerProperties properties, KafkoErrorHandler errorHandler);
    }

    private final Factory factory;
    private final String listenerId;
    private final String groupId;
    private final LogBackend backend;
    /** The container's settings and error handler: replaced while no member runs ({@link #remake}). */
    private volatile ContainerProperties properties;
    private volatile KafkoErrorHandler errorHandler;
    /** Whether the container was ever asked to start: a member may have run since. Under its lock. */
    private boolean startAsked;
    private final KafkoInstrumentation instrumentation;
    private final ProcessedOffsets processed;
    /** The partitions read by hand per topic, in the order given; null for a container of its group. */
    private final @Nullable Map<String, List<TopicPartitionOffset>> assigned;
    /** Whether the topics are a pattern's: never created, and no longer read once deleted. */
    private final boolean followsPattern;
    /** The topics read, in the order their members were made: fixed, or those the pattern matched so far. */
    private final List<String> topics = new CopyOnWriteArrayList<>();
    /**
     * Grows (under the container's lock) when a pattern matches a topic, and loses the members of a pattern's topic
     * that was deleted; iterated without a lock.
     */
    private final List<KafkoMessageListenerContainer> members = new CopyOnWriteArrayList<>();
    /** Members of a pattern's deleted topic whose threads have not ended yet: a stop waits for them too. */
    private final List<KafkoMessageListenerContainer> retiring = new CopyOnWriteArrayList<>();
    /** What {@link #topics()} and {@link #all()} hand out: the lists above, read-only. */
    private final List<String> topicsView = Collections.unmodifiableList(topics);
    private final List<KafkoMessageListenerContainer> membersView = Collections.unmodifiableList(members);
    /** The number in the next member's name: names are never reused. Under the container's lock. */
    private int nextMember;
    /**
     * The pattern's topics created while the container ran, by name, with the id each had then
     * ({@link LogBackend#topicId}): their members read the partitions their group has no commit for from the topic's
     * start, in every run, as long as the topic is the one created then (not one created again under its name while
     * the container was stopped). Written under the container's lock, read by the members' threads.
     */
    private final Map<String, Object> createdWhileRunning = new ConcurrentHashMap<>();
    /** The topics (and partition counts) whose idle members were warned of. Under the container's lock. */
    private final Set<String> idleWarned = new HashSet<>();
    private volatile RecordObservations observations = RecordObservations.NONE;
    /** Members whose polling thread runs; their launches and exits count under their own locks. */
    private final AtomicInteger live = new AtomicInteger();
    /** Why the first member that died since none ran ended; null while none did. */
    private final AtomicReference<ConsumerStoppedEvent.@Nullable Reason> diedSinceAllStopped = new AtomicReference<>();
    /**
     * Whether a member thread was launched since the container last started: if none was (a pattern that matched
     * no topic yet), no member can be the last one to stop, and the stop itself tells that the container stopped.
     */
    private volatile boolean launchedSinceStart;

    ContainerMembers(Factory factory, String listenerId, String groupId, LogBackend backend,
                     ContainerProperties properties, KafkoErrorHandler errorHandler,
                     KafkoInstrumentation instrumentation, ProcessedOffsets processed,
                     @Nullable Map<String, List<TopicPartitionOffset>> assigned, boolean followsPattern) {
        this.factory = factory;
        this.listenerId = listenerId;
        this.groupId = groupId;
        this.backend = backend;
        this.properties = properties;
        this.errorHandler = errorHandler;
        this.instrumentation = instrumentation;
        this.processed = processed;
        this.assigned = assigned;
        this.followsPattern = followsPattern;
    }

    /** The members, in thread-name order (read-only; iterated without a lock). */
    List<KafkoMessageListenerContainer> all() {
        return membersView;
    }

    /** The partitions the members read now, per topic, each set in ascending order. Any thread. */
    Map<String, Set<Integer>> assignedPartitions() {
        Map<String, Set<Integer>> all = new TreeMap<>();
        for (KafkoMessageListenerContainer member : members) {
            member.getAssignedPartitions().forEach((topic, partitions) ->
                    all.computeIfAbsent(topic, t -> new TreeSet<>()).addAll(partitions));
        }
        return Collections.unmodifiableMap(all);
    }

    /**
     * The topics read, in the order their members were made (read-only). A member {@link #all()} lists has its
     * topic here for as long as it is listed there.
     */
    List<String> topics() {
        return topicsView;
    }

    /** Makes the members of a topic not read yet. Under the container's lock, or in the constructor. */
    List<KafkoMessageListenerContainer> add(String topic) {
        List<KafkoMessageListenerContainer> added = new ArrayList<>();
        List<AssignedPartitions> byHand = assigned == null ? null
                : AssignedPartitions.split(topic, assigned.get(topic), properties.concurrency());
        if (byHand != null && byHand.size() < properties.concurrency()) {
            LOG.warn("Listener '{}' has concurrency {} but is assigned {} partition(s) of topic '{}': it reads them"
                    + " with {} member(s), one each", listenerId, properties.concurrency(), byHand.size(), topic,
                    byHand.size());
        }
        for (int i = 0; i < (byHand == null ? properties.concurrency() : byHand.size()); i++) {
            String prefix = properties.clientId() != null ? properties.clientId() : listenerId;
            KafkoMessageListenerContainer member = factory.make(prefix + "-" + nextMember++, topic,
                    byHand == null ? null : byHand.get(i), properties, errorHandler);
            member.setObservations(observations);
            added.add(member);
        }
        topics.add(topic); // before its members, as drop removes it after them: no member without its topic
        members.addAll(added);
        return added;
    }

    /** The container's settings, which its members run with. */
    ContainerProperties properties() {
        return properties;
    }

    /** The error handler of the members' failed deliveries. */
    KafkoErrorHandler errorHandler() {
        return errorHandler;
    }

    /**
     * Replaces the container's settings and error handler while no member runs: before it was ever asked to start, or
     * once it stopped and every member's thread ended (spring-kafka's stop, {@code setConcurrency}, start). The
     * members made so far (of its named topics or partitions, or the topics its pattern matched) are made again, named
     * from {@code <id>-0} on, with them; a pause asked of the container ({@code paused}) or of its partitions holds
     * for the new ones, and the members replaced cannot be started again (by one who kept them), running unseen by
     * the container's stop. Under the container's lock.
     *
     * @throws IllegalStateException while the container runs ({@code started}), or a member it stopped still finishes
     *         its record past the shutdown timeout: the members take their settings as they are made
     */
    void remake(ContainerProperties properties, KafkoErrorHandler errorHandler, boolean started,
                BooleanSupplier paused) {
        if (started) {
            throw new IllegalStateException("Listener '" + listenerId + "' was started and not stopped since: its"
                    + " container's settings and error handler change only while it is stopped (stop() it, set them,"
                    + " then start() it; or set them before its first start, from a ContainerCustomizer or on its"
                    + " container factory)");
        }
        if (startAsked && (!noneLive() || !retiring.isEmpty())) {
            throw new IllegalStateException("Listener '" + listenerId + "' was stopped but a member of it still"
                    + " finishes its record: its container's settings and error handler change once every member"
                    + " ended (stop() returns once they did, unless one overran kafko.listener.shutdown-timeout)");
        }
        this.properties = properties;
        this.errorHandler = errorHandler;
        List<String> made = List.copyOf(topics);
        members.forEach(KafkoMessageListenerContainer::replaced);
        members.clear();
        topics.clear();
        idleWarned.clear(); // the new concurrency may leave other members idle
        nextMember = 0;
        for (String topic : made) {
            add(topic);
        }
        if (paused.getAsBoolean()) {
            members.forEach(KafkoMessageListenerContainer::pause); // as they were: asked, taken into effect at start
        }
    }

    /** The observations of the members' deliveries: those made from now on, and those made already. */
    void setObservations(RecordObservations observations) {
        this.observations = observations;
        for (KafkoMessageListenerContainer member : members) {
            member.setObservations(observations);
        }
    }

    /**
     * Gets every topic ready as the container starts ({@link #prepare}); a pattern's topic deleted while the container
     * was stopped is dropped. Under the container's lock.
     */
    void prepareAll() {
        startAsked = true;
        for (String topic : topics) {
            if (!prepare(topic)) {
                drop(topic);
            }
        }
    }

    /**
     * Gets a topic ready before its members start: created where allowed (but for a pattern's), its dead-letter
     * topic ready ({@link KafkoErrorHandler#prepareMatched} for a pattern's: such topics come and go, and what is
     * made for each must not outlive it), a warning when members will idle. Under the container's lock.
     *
     * @return false when a pattern's topic no longer exists (it is no longer read, and matched anew when created)
     */
    boolean prepare(String topic) {
        int partitions;
        try {
            if (!followsPattern) {
                backend.ensureTopic(topic, 1);
            }
            partitions = backend.partitionCount(topic);
        } catch (UnknownTopicException e) {
            if (followsPattern) {
                return false;
            }
            throw new UnknownTopicException("Listener '" + listenerId + "' cannot start: " + e.getMessage());
        }
        if (assigned != null) {
            AssignedPartitions.check(listenerId, topic, assigned.get(topic), partitions);
        }
        if (followsPattern) {
            errorHandler.prepareMatched(topic);
        } else {
            errorHandler.prepare(topic);
        }
        if (assigned == null && properties.concurrency() > partitions && idleWarned.add(topic + '\0' + partitions)) {
            // once per topic and partition count: not again at each restart (a cached test context's resumes)
            LOG.warn("Listener '{}' has concurrency {} but topic '{}' has {} partition(s): {} member(s) will idle",
                    listenerId, properties.concurrency(), topic, partitions, properties.concurrency() - partitions);
        }
        instrumentation.listenerStarting(listenerId, groupId, topic);
        return true;
    }

    /** {@code topic}, its id {@code topicId}, was created while the container ran ({@link #createdWhileRunning}). */
    void markCreatedWhileRunning(String topic, @Nullable Object topicId) {
        if (topicId != null) {
            createdWhileRunning.put(topic, topicId);
        }
    }

    /** Whether {@code topic}, as it exists now ({@code topicId}), was created while the container ran. Any thread. */
    boolean createdWhileRunning(String topic, @Nullable Object topicId) {
        return topicId != null && topicId.equals(createdWhileRunning.get(topic));
    }

    /**
     * Starts {@code starting} behind one gate, opened once all have joined their groups, paused when a pause is asked
     * for as each starts ({@code paused}, asked again for each: what runs on this thread as one starts may pause or
     * resume the container); a pattern's topic deleted meanwhile is no longer read (its pattern matches it anew at a
     * creation). Under the container's lock.
     */
    void start(List<KafkoMessageListenerContainer> starting, BooleanSupplier paused) {
        CountDownLatch allJoined = new CountDownLatch(1);
        try {
            for (KafkoMessageListenerContainer member : starting) {
                if (!members.contains(member)) {
                    continue; // its topic was deleted as a sibling started
                }
                if (paused.getAsBoolean()) {
                    member.pause();
                }
                try {
                    member.start(allJoined);
                } catch (UnknownTopicException e) {
                    if (!followsPattern) {
                        throw e;
                    }
                    LOG.info("Listener '{}' no longer reads topic '{}', deleted as {} started: {}; it reads the"
                            + " topic again if it is created", listenerId, member.topic(), member.memberName(),
                            e.getMessage());
                    drop(member.topic());
                }
            }
        } finally {
            allJoined.countDown();
        }
    }

    /**
     * A pattern's topic that no longer exists is no longer read: its members end, and its pattern matches it anew
     * at a creation. Under the container's lock.
     *
     * @return how many members it had
     */
    int drop(String topic) {
        createdWhileRunning.remove(topic);
        List<KafkoMessageListenerContainer> ofTopic = members.stream().filter(m -> m.topic().equals(topic)).toList();
        members.removeAll(ofTopic);
        topics.remove(topic);
        processed.forget(topic);
        idleWarned.removeIf(warned -> warned.startsWith(topic + '\0'));
        for (KafkoMessageListenerContainer ending : ofTopic) {
            if (ending.retire()) {
                retiring.add(ending); // removed as its thread ends, which takes the container's lock
            }
        }
        return ofTopic.size();
    }

    /**
     * Asks every member to stop, without waiting; a member leaves its group only once all were asked: a sibling not
     * yet asked would take its partitions and deliver again what it had not committed. Under the container's lock.
     */
    void requestStop() {
        CountDownLatch together = new CountDownLatch(1);
        try {
            members.forEach(m -> m.requestStop(together));
        } finally {
            together.countDown();
        }
    }

    /** Waits for every member asked to stop, and those of deleted topics still ending (which skips the caller's). */
    void awaitStopped() {
        members.forEach(KafkoMessageListenerContainer::awaitStopped);
        retiring.forEach(KafkoMessageListenerContainer::awaitStopped);
    }

    /** Whether {@code thread} is the polling thread of one of the members, or of one of a deleted topic's. */
    boolean isPollingThread(Thread thread) {
        return members.stream().anyMatch(m -> m.isPollingThread(thread))
                || retiring.stream().anyMatch(m -> m.isPollingThread(thread));
    }

    /** The member whose polling thread {@code thread} is, or null. */
    @Nullable KafkoMessageListenerContainer polledBy(Thread thread) {
        for (KafkoMessageListenerContainer m : members) {
            if (m.isPollingThread(thread)) {
                return m;
            }
        }
        for (KafkoMessageListenerContainer m : retiring) {
            if (m.isPollingThread(thread)) {
                return m;
            }
        }
        return null;
    }

    /** Whether {@code member} read a pattern's topic that was deleted, and its thread has not ended yet. */
    boolean isRetiring(KafkoMessageListenerContainer member) {
        return retiring.contains(member);
    }

    /** The container starts a run after a stop: no member thread was launched in it yet. Under its lock. */
    void newRun() {
        launchedSinceStart = false;
    }

    /** Whether a member thread was launched since the container last started. */
    boolean launchedSinceStart() {
        return launchedSinceStart;
    }

    /** Whether no member's polling thread runs: none is left to be the last one out. */
    boolean noneLive() {
        return live.get() == 0;
    }

    /** A member's polling thread was started. */
    void launched() {
        launchedSinceStart = true;
        live.incrementAndGet();
    }

    /**
     * A member's polling thread ends ({@code died}: what ended it, or null); returns, to the last running member
     * only, the reason of the {@link dev.kafko.spring.event.ConcurrentContainerStoppedEvent} it publishes, else null.
     */
    ConsumerStoppedEvent.@Nullable Reason exited(@Nullable Throwable died) {
        if (died != null) {
            diedSinceAllStopped.compareAndSet(null, MemberEvents.reason(died));
        }
        if (live.decrementAndGet() != 0) {
            return null;
        }
        ConsumerStoppedEvent.Reason reason = diedSinceAllStopped.getAndSet(null);
        return reason != null ? reason : ConsumerStoppedEvent.Reason.NORMAL;
    }

    /**
     * The polling thread of a member of a deleted topic ({@link #drop}) ends: as {@link #exited}, but while the
     * container runs ({@code started}) it tells nothing, and a stop with no member left tells that it stopped.
     * Under the container's lock.
     */
    ConsumerStoppedEvent.@Nullable Reason retiredExited(KafkoMessageListenerContainer member, @Nullable Throwable died,
                                                       boolean started) {
        retiring.remove(member);
        if (!started) {
            return exited(died); // a stop was asked for meanwhile: this exit counts as any member's
        }
        if (live.decrementAndGet() == 0) {
            launchedSinceStart = false; // so that the next stop publishes the container's stop itself
        }
        return null;
    }
}
