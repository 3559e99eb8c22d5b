package dev.kafko.spring.listener;

import dev.kafko.spring.event.ConcurrentContainerStoppedEvent;
import dev.kafko.spring.event.ConsumerStoppedEvent;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;

/**
 * The starts and stops of one {@link ConcurrentMessageListenerContainer}, serialized on the container's own lock (its
 * monitor): a start gets the topics ready and starts the members behind one gate, a pattern's watch telling of the
 * topics created while it runs; a stop asks every member at once, then waits outside the lock, which a member's own
 * stop needs. It holds the JVM alive ({@link KeepAlive}) from a start until a stop is asked for, counts the members'
 * polling threads as they launch and exit (in {@link ContainerMembers}), and tells the end of a run: the
 * {@link ConcurrentContainerStoppedEvent}, then the callbacks of the stops the container's own listeners asked for,
 * by the last member out on its polling thread, or by the stop itself when no member ran. Any thread.
 */
final class ContainerLifecycle {

    /** The container's: what it logs of its stops stays under the logger an application configures for it. */
    private static final Logger LOG = LoggerFactory.getLogger(ConcurrentMessageListenerContainer.class);

    private final ConcurrentMessageListenerContainer container;
    private final ContainerMembers members;
    /** The topic pattern, its watch of topic creations and its topics' members; null for named topics. */
    private final @Nullable TopicPatternWatch topicPattern;
    private final ContainerPauses pauses;
    private final ProcessedOffsets processed;
    /** The callbacks of {@link #stop(Runnable)} called by the container's own listeners, run once all stopped. */
    private final ConcurrentLinkedQueue<Runnable> afterStop = new ConcurrentLinkedQueue<>();
    /** Whether the container holds the {@link KeepAlive}: from its start until it is asked to stop. Under its lock. */
    private boolean keepingAlive;
    /** From {@link #start()} until a stop is asked for: members made for newly matched topics start. */
    private volatile boolean started;

    ContainerLifecycle(ConcurrentMessageListenerContainer container, ContainerMembers members,
                       @Nullable TopicPatternWatch topicPattern, ContainerPauses pauses, ProcessedOffsets processed) {
        this.container = container;
        this.members = members;
        this.topicPattern = topicPattern;
        this.pauses = pauses;
        this.processed = processed;
    }

    /** Whether the container was started and no stop was asked for since. */
    boolean started() {
        return started;
    }

    /** See {@link ConcurrentMessageListenerContainer#start()}. Under the container's lock. */
    void start() {
        if (topicPattern != null) {
            topicPattern.start(this::followedTopicCreated);
        }
        try {
            if (topicPattern != null) {
                topicPattern.addExisting();
            }
            members.prepareAll(); // which drops a pattern's topic deleted while the container was stopped
        } catch (RuntimeException | Error e) {
            if (!started && topicPattern != null) {
                topicPattern.stop(); // a container that does not run is told nothing, nor kept by the watch
            }
            throw e;
        }
        if (noMemberRuns()) {
            // a new run starts from the group's commits: what the last run processed but never
            // committed is delivered again, and the test helper must wait for that
            processed.clear();
        }
        if (!keepingAlive) {
            KeepAlive.acquire();
            keepingAlive = true;
        }
        if (!started) {
            members.newRun();
        }
        started = true;
        try {
            members.start(members.all(), pauses);
        } catch (RuntimeException e) {
            stop();
            throw e;
        }
    }

    /** Whether every member is stopped or stopping. */
    private boolean noMemberRuns() {
        for (KafkoMessageListenerContainer m : members.all()) {
            if (m.isRunning() && !m.isStopping()) {
                return false;
            }
        }
        return true;
    }

    /**
     * A topic the container's pattern matches was created, on the creating thread: its members start, those made
     * for it now or left waiting for it ({@link TopicPatternWatch#created}). The pattern was matched before the
     * container's lock is taken: another container prepares a topic under its own lock, which creates that topic's
     * dead-letter topic; were that creation to wait for this lock while this container, on another thread, created a
     * dead-letter topic under it, each would wait for the other for good.
     */
    private void followedTopicCreated(String topic) {
        synchronized (container) {
            if (started && topicPattern != null) {
                topicPattern.created(topic, pauses);
            }
        }
    }

    /**
     * A member of a pattern's topic found the topic deleted, and could not read it again: when it still does not
     * exist, every member of it ends (a stop of theirs, with nothing to commit) and the topic is no longer read, until
     * its pattern matches it again at a creation. Called on the member's polling thread, which ends when this returns
     * true. Under the container's lock, which a creation of the topic takes too: a creation comes either before
     * (the topic exists: the member reads it again) or after (the topic is matched anew).
     */
    boolean retireDeletedTopic(KafkoMessageListenerContainer member) {
        synchronized (container) {
            return topicPattern != null && topicPattern.retire(member, started);
        }
    }

    /** A member's polling thread was started. */
    void memberLaunched() {
        members.launched();
    }

    /**
     * A member's polling thread ends ({@code died}: what ended it, or null); returns, to the last running member
     * only, the reason of the {@link ConcurrentContainerStoppedEvent} it publishes, else null.
     */
    ConsumerStoppedEvent.@Nullable Reason memberExited(@Nullable Throwable died) {
        return members.exited(died);
    }

    /**
     * The polling thread of a member retired by {@link #retireDeletedTopic} ends: as {@link #memberExited}, but
     * while the container runs it publishes nothing, and a stop with no member left tells that it stopped.
     */
    ConsumerStoppedEvent.@Nullable Reason retiredMemberExited(KafkoMessageListenerContainer member,
                                                              @Nullable Throwable died) {
        synchronized (container) {
            return members.retiredExited(member, died, started);
        }
    }

    /** See {@link ConcurrentMessageListenerContainer#stop()}. */
    void stop() {
        boolean noMemberRan = requestStop();
        boolean polling = members.isPollingThread(Thread.currentThread());
        if (!polling) {
            members.awaitStopped();
        }
        if (noMemberRan) {
            publishStopped(ConsumerStoppedEvent.Reason.NORMAL);
            if (!polling && members.noneLive()) {
                // no member is left to run the callbacks a start kept for this stop (their member was retired with
                // its deleted topic, its exit ending nothing while the container ran): the stop runs them itself;
                // a member still running (its own, on a polling thread; one that overran the timeout) runs them
                // as it exits last
                runAfterStop();
            }
        }
    }

    /** See {@link ConcurrentMessageListenerContainer#stop(Runnable)}. */
    void stop(Runnable callback) {
        Objects.requireNonNull(callback, "callback");
        if (!members.isPollingThread(Thread.currentThread())) {
            stop();
            callback.run();
            return;
        }
        // queued before the stop is asked for: the caller's own member, still running, is the last to exit at the latest
        afterStop.add(callback);
        stop();
    }

    /** See {@link ConcurrentMessageListenerContainer#stopForShutdown()}. */
    void stopForShutdown() {
        KafkoMessageListenerContainer own = members.polledBy(Thread.currentThread());
        if (own != null) {
            // before the other members leave and kafko closes: what the caller's member processed before its record
            // in hand is committed now, and the JVM stays alive until its listener returns (see shutdownFromListener)
            own.shutdownFromListener();
        }
        boolean noMemberRan = requestStop();
        members.awaitStopped(); // which skips the caller's own member
        if (noMemberRan) {
            publishStopped(ConsumerStoppedEvent.Reason.NORMAL);
        }
    }

    /**
     * Asks every member to stop; the waits happen outside the lock, which a member's own stop() needs. A
     * member leaves its group only once all were asked: a sibling not yet asked would take its partitions
     * and deliver again what it had not committed.
     *
     * @return whether the container ran with no member launched since its start and none left running (its stop is
     *     told by the caller)
     */
    private boolean requestStop() {
        synchronized (container) {
            // a member of the stop before a start that came while it finished (restarting, not launched yet) is still
            // running: it is the last one out, which tells this stop
            boolean noMemberRan = started && !members.launchedSinceStart() && members.noneLive();
            started = false;
            if (topicPattern != null) {
                topicPattern.stop();
            }
            if (keepingAlive) {
                keepingAlive = false;
                KeepAlive.release();
            }
            members.requestStop();
            return noMemberRan;
        }
    }

    /** Every member has stopped: runs the callbacks of the stops the container's own listeners asked for. */
    void runAfterStop() {
        for (Runnable callback = afterStop.poll(); callback != null; callback = afterStop.poll()) {
            try {
                callback.run();
            } catch (RuntimeException | Error e) {
                LOG.error("A callback of the stop of listener '{}' failed", container.getListenerId(), e);
            }
        }
    }

    /**
     * Publishes the container's {@link ConcurrentContainerStoppedEvent}, when it has a publisher: by the last member
     * out, or by a stop in which no member ran.
     */
    void publishStopped(ConsumerStoppedEvent.Reason reason) {
        ApplicationEventPublisher publisher = container.eventPublisher();
        if (publisher != null) {
            String listenerId = container.getListenerId();
            ContainerEvents.publish(publisher, new ConcurrentContainerStoppedEvent(container, listenerId, reason), LOG,
                    "the stop of listener '" + listenerId + "'");
        }
    }
}
