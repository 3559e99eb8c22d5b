package dev.kafko.spring.listener;

import dev.kafko.UnknownTopicException;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.event.ConsumerStoppedEvent;
import dev.kafko.spring.support.KafkoInstrumentation;
import dev.kafko.spring.support.micrometer.KafkoListenerObservation;
import dev.kafko.spring.support.micrometer.KafkoListenerObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.Collections;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
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
 */
public final class ConcurrentMessageListenerContainer implements MessageListenerContainer {

    private static final Logger LOG = LoggerFactory.getLogger(ConcurrentMessageListenerContainer.class);

    private final String listenerId;
    private final List<String> topics;
    private final String groupId;
    private final LogBackend backend;
    private final ContainerProperties properties;
    private final boolean autoStartup;
    private final KafkoErrorHandler errorHandler;
    private final KafkoInstrumentation instrumentation;
    private final List<KafkoMessageListenerContainer> members = new ArrayList<>();
    private final ProcessedOffsets processed;
    /** Members whose polling thread runs; their launches and exits count under their own locks. */
    private final AtomicInteger live = new AtomicInteger();
    /** Why the first member that died since none ran ended; null while none did. */
    private final AtomicReference<ConsumerStoppedEvent.@Nullable Reason> diedSinceAllStopped = new AtomicReference<>();
    /** Whether this container holds the {@link KeepAlive}: from its start until it is asked to stop. */
    private boolean keepingAlive;
    private volatile @Nullable ApplicationEventPublisher eventPublisher;

    public ConcurrentMessageListenerContainer(String listenerId, List<String> topics, String groupId, LogBackend backend,
                                              ContainerProperties properties, boolean autoStartup,
                                              KafkoMessageListener listener, KafkoErrorHandler errorHandler,
                                              KafkoInstrumentation instrumentation, TaskExecutor executor) {
        if (topics.isEmpty()) {
            throw new IllegalArgumentException("Listener '" + listenerId + "' names no topic");
        }
        this.listenerId = listenerId;
        this.topics = List.copyOf(topics);
        this.groupId = groupId;
        this.backend = backend;
        this.properties = properties;
        this.autoStartup = autoStartup;
        this.errorHandler = errorHandler;
        this.instrumentation = instrumentation;
        this.processed = new ProcessedOffsets(backend::topicId);
        int n = 0;
        for (String topic : this.topics) {
            for (int i = 0; i < properties.concurrency(); i++) {
                members.add(new KafkoMessageListenerContainer(this, listenerId + "-" + n++, topic, groupId,
                        backend, properties, listener, errorHandler, instrumentation, executor, processed));
            }
        }
    }

    /**
     * Observes the delivery of every record to a record listener ({@link KafkoListenerObservation}):
     * its attempts and, when they fail, its recovery, as one observation that continues the trace the
     * record carries; {@link ObservationRegistry#NOOP} observes nothing. Takes effect at the next start.
     */
    public void setObservationRegistry(ObservationRegistry registry,
                                       @Nullable KafkoListenerObservationConvention convention) {
        RecordObservations observations = new RecordObservations(registry, convention);
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

    @Override
    public List<String> getTopics() {
        return topics;
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
        for (String topic : topics) {
            try {
                backend.ensureTopic(topic, 1);
            } catch (UnknownTopicException e) {
                throw new UnknownTopicException("Listener '" + listenerId + "' cannot start: " + e.getMessage());
            }
            errorHandler.prepare(topic);
            int partitions = backend.partitionCount(topic);
            if (properties.concurrency() > partitions) {
                LOG.warn("Listener '{}' has concurrency {} but topic '{}' has {} partition(s): {} member(s) will idle",
                        listenerId, properties.concurrency(), topic, partitions, properties.concurrency() - partitions);
            }
            instrumentation.listenerStarting(listenerId, groupId, topic);
        }
        if (members.stream().allMatch(m -> !m.isRunning() || m.isStopping())) {
            // a new run starts from the group's commits: what the last run processed but never
            // committed is delivered again, and the test helper must wait for that
            processed.clear();
        }
        CountDownLatch allJoined = new CountDownLatch(1);
        if (!keepingAlive) {
            KeepAlive.acquire();
            keepingAlive = true;
        }
        try {
            members.forEach(member -> member.start(allJoined));
        } catch (RuntimeException e) {
            allJoined.countDown();
            stop();
            throw e;
        } finally {
            allJoined.countDown();
        }
    }

    /**
     * {@inheritDoc} Called by one of this container's own listeners (a circuit breaker), it returns at once:
     * every member stops after its record in hand, the caller's once its listener returns.
     */
    @Override
    public void stop() {
        requestStop();
        if (!isPollingThread(Thread.currentThread())) {
            members.forEach(KafkoMessageListenerContainer::awaitStopped);
        }
    }

    /**
     * Asks every member to stop; the waits happen outside the lock, which a member's own stop() needs. A
     * member leaves its group only once all were asked: a sibling not yet asked would take its partitions
     * and deliver again what it had not committed.
     */
    private synchronized void requestStop() {
        releaseKeepAlive();
        CountDownLatch together = new CountDownLatch(1);
        try {
            members.forEach(m -> m.requestStop(together));
        } finally {
            together.countDown();
        }
    }

    /**
     * Stops as the application's shutdown does when one of this container's listeners runs it (it closed
     * the application from its polling thread): every other member is waited for, up to the shutdown
     * timeout, so that their records in hand are finished and committed before kafko closes; the caller's
     * member stops once its listener returns.
     */
    public void stopForShutdown() {
        requestStop();
        members.forEach(KafkoMessageListenerContainer::awaitStopped); // which skips the caller's own member
    }

    /** The container was removed from its registry (and stopped): its meters go. */
    public void removed() {
        instrumentation.listenerRemoved(listenerId, groupId, topics);
    }

    /** A member's polling thread was started. */
    void memberLaunched() {
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
        return members.stream().anyMatch(m -> m.isPollingThread(thread));
    }

    /** Under this container's lock. */
    private void releaseKeepAlive() {
        if (keepingAlive) {
            keepingAlive = false;
            KeepAlive.release();
        }
    }

    @Override
    public void pause() {
        members.forEach(KafkoMessageListenerContainer::pause);
    }

    @Override
    public void resume() {
        members.forEach(KafkoMessageListenerContainer::resume);
    }

    @Override
    public boolean isRunning() {
        return members.stream().anyMatch(KafkoMessageListenerContainer::isRunning);
    }

    @Override
    public boolean isPauseRequested() {
        return members.stream().allMatch(KafkoMessageListenerContainer::isPauseRequested);
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
        Map<String, Map<Integer, Long>> targets = new HashMap<>();
        for (String topic : topics) {
            targets.put(topic, backend.endOffsets(topic));
        }
        return targets;
    }

    /**
     * As {@link #awaitCaughtUp(Duration)}, up to {@code targets} (from {@link #endOffsets()}) taken
     * earlier: several containers can be waited for up to the ends of one moment.
     */
    public List<String> awaitCaughtUp(Map<String, Map<Integer, Long>> targets, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<String> behind = behind(targets);
            long left = deadline - System.nanoTime();
            if (behind.isEmpty() || left <= 0 || hasDeadMember()) {
                return behind;
            }
            processed.awaitChange(Math.min(Duration.ofNanos(left).toMillis(), 100));
        }
    }

    private List<String> behind(Map<String, Map<Integer, Long>> targets) {
        List<String> behind = new ArrayList<>();
        for (KafkoMessageListenerContainer member : members) {
            if (member.hasPendingSeeks()) {
                behind.add(member.memberName() + " has seeks to make");
            }
        }
        targets.forEach((topic, ends) -> {
            Map<Integer, Long> done = processed.snapshot(topic, backend.topicId(topic));
            Map<Integer, Long> committed = backend.committedOffsets(topic, groupId);
            ends.forEach((partition, end) -> {
                // a seek made is committed at once, and its progress set back (a seek not yet made is pending)
                long reached = Math.max(done.getOrDefault(partition, 0L), committed.getOrDefault(partition, 0L));
                if (reached < end) {
                    behind.add(topic + "-" + partition + " at " + reached + " of " + end);
                }
            });
        });
        return behind;
    }

    @Override
    public String toString() {
        return "ConcurrentMessageListenerContainer[" + listenerId + " on " + topics + ", group " + groupId
                + ", " + members.size() + " member(s)]";
    }
}
