package dev.kafko.spring.listener;

import dev.kafko.InterruptException;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoException;
import dev.kafko.KafkoRecord;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.core.BackendConsumer;
import dev.kafko.spring.core.LogBackend;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The polling loop of one container member: poll, deliver ({@link MemberDelivery}), commit by ack mode
 * ({@link MemberCommits}), and read the topic again with a new consumer when it was deleted under the member
 * ({@link MemberTopic}).
 * Everything here runs on the member's own thread, except {@link Ack#acknowledge()} (any thread:
 * a foreign ack is queued and committed by the polling thread) and {@link #wakeup()}.
 */
final class ListenerConsumer implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(ListenerConsumer.class);

    private final KafkoMessageListenerContainer container;
    private final ContainerProperties properties;
    private final LogBackend backend;
    /** Whether the last poll returned records: a poll failure right after them is the next poll's (see poll()). */
    private boolean lastPollRead;
    /** What this member has yet to commit, and when it commits it; polling thread only. */
    private final MemberCommits commits;
    /** Where the member starts and how far it got without records; polling thread only. */
    private final MemberPositions positions;
    /** Whether this run's first poll completed ({@link ConsumerSeekAware#onFirstPoll} told). Polling thread. */
    private boolean polledOnce;
    /** The seeks a {@link ConsumerSeekAware} listener asks for while the member runs; null for other listeners. */
    private final @Nullable MemberSeeks seeks;
    private volatile @Nullable Thread owner;
    /** The partitions the member reads, and what it does as they are assigned and revoked. */
    private final MemberAssignment assignment;
    /** The partitions the member pauses because its container was asked to; polling thread, but for its snapshot. */
    private final MemberPauses pauses;
    /** How the member delivers its records, with their retries and recovery; polling thread only. */
    private final MemberDelivery delivery;
    private final CountDownLatch firstPoll;
    /** What the member logs of its repeated failures and its death; polling thread only. */
    private final MemberLog log;
    /** The events this member publishes, and when it is idle; polling thread only. */
    private final MemberEvents events;
    /** What the polling thread waits for from the listener: cancelled when a stop overran its shutdown timeout. */
    private final AwaitedStage awaited;
    /** The topic the member reads, through its consumer, made again when the topic was deleted under it. */
    private final MemberTopic topic;

    /**
     * @param firstPoll opened once the listener's other members have joined the group; this member's first
     *     poll waits for it
     */
    ListenerConsumer(KafkoMessageListenerContainer container, LogBackend backend, KafkoMessageListener listener,
                     CountDownLatch firstPoll) {
        this.firstPoll = firstPoll;
        this.container = container;
        this.properties = container.properties();
        this.awaited = new AwaitedStage(properties.ackMode().isManual(),
                properties.ackMode() == AckMode.MANUAL_IMMEDIATE ? () -> commitProcessed("as its listener runs") : null);
        this.backend = backend;
        this.log = new MemberLog(container);
        this.commits = new MemberCommits(container, this, log);
        this.positions = new MemberPositions(container, backend, commits);
        ConsumerSeekAware aware = listener.seekAware();
        this.seeks = aware == null ? null : new MemberSeeks(container, aware, container::wakeup); // a retry's back-off too
        this.events = new MemberEvents(container, this);
        this.pauses = new MemberPauses(container.partitionPauses(), container.topic(), events);
        this.assignment = new MemberAssignment(this, container, listener, commits, positions, seeks, events, pauses);
        this.delivery = new MemberDelivery(this, container, listener, commits, log, seeks);
        this.topic = new MemberTopic(container, backend, assignment, positions, commits.offsets(), events, seeks, log);
    }

    /** Waits for the gate of {@link #firstPoll}, which its starter always opens, interrupted or not. */
    private void awaitFirstPoll() {
        boolean interrupted = false;
        while (firstPoll.getCount() > 0) {
            try {
                firstPoll.await();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether {@code thread} is this member's polling thread (a listener calling into its container). */
    boolean isPollingThread(Thread thread) {
        return thread == owner;
    }

    /**
     * Whether the listener asked for seeks this member has not made yet, or the member has not yet sought the
     * initial offsets of its partitions assigned by hand. Any thread.
     */
    boolean hasPendingSeeks() {
        return !assignment.startedByHand() || seeks != null && seeks.pending();
    }

    /** Whether this member holds records whose interceptor it has still to tell how they went. Any thread. */
    boolean interceptorToTell() {
        return delivery.interceptorToTell();
    }

    /**
     * Whether the listener asked for a seek, not made yet, of the partition of one of {@code records}: a retry's
     * back-off of them ends for it. Any thread.
     */
    boolean seekRequested(List<KafkoRecord> records) {
        return seeks != null && seeks.queuedFor(records);
    }

    /** Whether the listener asked for a seek, of any partition, not made yet: a nack's sleep makes it. Any thread. */
    boolean anySeekRequested() {
        return seeks != null && seeks.queued();
    }

    /** The partitions this member reads now. Any thread. */
    Set<Integer> assignedPartitions() {
        return assignment.partitions();
    }

    /** The partitions this member has paused now, as its container was asked to. Any thread. */
    Set<Integer> pausedPartitions() {
        return pauses.paused();
    }

    void wakeup() {
        topic.wakeup();
    }

    /**
     * Under {@code manual_immediate}, an acknowledgment on another thread was queued: the polling thread commits it,
     * whether it polls or waits for the stage its listener returned. Any thread.
     */
    void acknowledgedElsewhere() {
        topic.wakeup();
        awaited.acknowledgedElsewhere();
    }

    /**
     * On the polling thread, inside a delivery (whose listener closes the application, or waits for the stage its
     * listener returned, {@code when}): commits what this member processed (and was acknowledged on other threads)
     * before the record in hand. A failure is logged, not thrown: a commit the log refused is dropped, as any failed
     * commit of the member is (a later one, cumulative, covers it), and acknowledgments not yet taken stay queued.
     */
    void commitProcessed(String when) {
        try {
            commits.drainForeign();
            commits.commitPending();
        } catch (RuntimeException e) {
            LOG.warn("Commit of what {} processed, {}, failed", container.memberName(), when, e);
        }
    }

    /**
     * No thread will run this member (the executor refused it, {@link MemberLifecycle}, or its topic's id could not be
     * read once the consumer opened): the consumer it opened, a member of its group already, leaves the group, which
     * would otherwise keep the partitions it was given. On the thread that made it.
     */
    void closeUnrun() {
        topic.closeUnrun();
    }

    /**
     * A stop overran its shutdown timeout: cancels the {@code CompletionStage} or {@code Mono} the listener returned
     * and the polling thread waits for (and any it waits for later). Any thread.
     *
     * @return whether a wait was cancelled, so that the member's thread is about to end
     */
    boolean cancelAwaited() {
        return awaited.stopOverran();
    }

    /** Whether this member's stop cancelled the stage its listener returned for the record in hand. Polling thread. */
    boolean stageCancelledByStop() {
        return awaited.stageCancelled();
    }

    @Override
    public void run() {
        owner = Thread.currentThread();
        awaited.bind();
        Thread.currentThread().setName(container.memberName());
        Throwable died = null;
        try {
            events.starting();
            awaitFirstPoll();
            if (seeks != null) {
                seeks.register();
            }
            events.started();
            assignment.start();
            while (!container.stopRequested()) {
                commits.drainForeign();
                makeSeeks();
                if (container.pauseRequested()) {
                    commits.commitPending();
                    if (topic.leftWhilePaused()) {
                        continue; // its pattern's topic was deleted: the member ends
                    }
                    // first: a partition its consumer took is committed at its start before a rebalance moves it
                    topic.startWhilePaused();
                    // the group's rebalance, if one is due, before the member counts as paused
                    boolean polls = pollWhilePaused(Duration.ZERO);
                    container.markPaused(true);
                    events.paused(true);
                    long waitMillis = events.waitMillis(properties.pollTimeout().toMillis());
                    if (!polls || !container.pauseRequested() || container.stopRequested()
                            || !pollWhilePaused(Duration.ofMillis(waitMillis))) {
                        container.awaitResume(waitMillis);
                    }
                    events.nothingReceived();
                    events.partitionsPolled(List.of());
                    continue;
                }
                container.markPaused(false);
                events.paused(false);
                applyPartitionPauses();
                if (!delivery.intercepted()) {
                    pollAndDeliver();
                    continue;
                }
                delivery.setupThreadState(); // the interceptor's, around each poll as spring-kafka's
                try {
                    pollAndDeliver();
                } finally {
                    delivery.clearThreadState();
                }
            }
        } catch (KafkoClosedException e) {
            if (container.stopRequested() && container.closedByOwnListener()) {
                LOG.debug("Kafko closed under {} of listener '{}', which closed the application itself: {}",
                        container.memberName(), container.getListenerId(), e.toString());
            } else if (container.stopRequested()) {
                // the stop waited its shutdown timeout, then kafko closed: expected, nothing died
                LOG.warn("Kafko closed under {} of listener '{}' after its shutdown timeout ({}); what it had not"
                        + " committed will be delivered again: {}", container.memberName(), container.getListenerId(),
                        properties.shutdownTimeout(), e.toString());
            } else {
                died = e;
                log.died(e);
            }
        } catch (Throwable t) {
            died = t;
            log.died(t);
        } finally {
            try {
                commits.drainForeign();
                commits.commitPending();
            } catch (RuntimeException e) {
                LOG.warn("Final commit of {} failed", container.memberName(), e);
            }
            container.awaitSiblingsStopping();
            try {
                try {
                    if (container.assignment() != null && topic.readable()) {
                        // as a group member's close revokes what it reads
                        assignment.onPartitionsRevoked(assignment.partitions());
                    }
                } finally {
                    topic.consumer().close();
                }
            } catch (RuntimeException e) {
                LOG.warn("Closing the consumer of {} failed", container.memberName(), e);
            }
            if (seeks != null) {
                seeks.unregister();
            }
            assignment.clear();
            AwaitedStage.unbind();
            owner = null;
            Throwable cause = died;
            container.exited(died, () -> events.stopped(cause));
        }
    }

    /** Polls, delivers what the poll returned, and commits what is due. */
    private void pollAndDeliver() throws InterruptedException {
        List<KafkoRecord> records = poll();
        if (!polledOnce) {
            polledOnce = true;
            if (seeks != null) {
                seeks.firstPollDone();
            }
        }
        if (records.isEmpty()) {
            events.nothingReceived();
        } else {
            events.received();
        }
        events.partitionsPolled(records);
        if (!records.isEmpty()) {
            delivery.deliver(records);
        }
        commits.drainForeign();
        commits.commitIfDue();
    }

    /**
     * A paused member polls on with every partition it reads paused ({@link MemberPauses#pauseAll}), as spring-kafka's
     * paused consumer does: its group's rebalances run in the poll, so a member started meanwhile gets its share at
     * once, the partitions taken from this one are committed and revoked on this thread, and those it is given are
     * paused before the poll could read them (their start committed as an assignment says, their seek-aware callback
     * told); nothing is read. The poll ends at a resume or a stop, which wake it, or after {@code timeout}.
     *
     * @return false when the member does not poll so: it waits for the resume without polling, as
     *     {@link MemberPositions#whilePaused} says. Its topic was deleted under it (found by this poll too); or its
     *     backend's consumers cannot pause partitions; or it reads partitions assigned by hand, which no rebalance
     *     moves, and which it reads again after a delete at the resume, their initial offsets sought then
     */
    private boolean pollWhilePaused(Duration timeout) {
        if (!topic.readable() || container.assignment() != null) {
            return false;
        }
        BackendConsumer consumer = topic.consumer();
        try {
            if (!pauses.pauseAll(consumer)) {
                return false;
            }
            consumer.poll(timeout); // nothing: every partition is paused, also those the poll assigns
            return true;
        } catch (KafkoClosedException e) {
            throw e;
        } catch (UnknownTopicException e) {
            topic.forgetDeletedTopic(e); // left, and read again if it exists, at the next pause wait, as before a poll
            return false;
        } catch (InterruptException e) {
            if (container.stopRequested()) {
                return true; // the loop ends; the thread keeps its interrupt
            }
            throw e;
        } catch (KafkoException e) {
            log.pollFailed(e, false, properties.pollTimeout().toMillis()); // waited for as a pause wait
            return false;
        }
    }

    /**
     * Takes the partition pauses asked of the container into effect before a poll. A topic deleted under the member
     * (found by a commit, or by this call) is left by the poll that follows, as any other finding of it, not a death
     * of the member: its next consumer pauses what it is assigned anew.
     */
    private void applyPartitionPauses() {
        if (!topic.readable()) {
            return;
        }
        try {
            pauses.resumeAll(topic.consumer()); // the container was paused: its partitions are read again
            pauses.apply(topic.consumer(), assignment.partitions());
        } catch (UnknownTopicException e) {
            topic.forgetDeletedTopic(e);
        }
    }

    private List<KafkoRecord> poll() throws InterruptedException {
        boolean readable = topic.beforePoll();
        long pollMillis = events.waitMillis(properties.pollTimeout().toMillis());
        if (!readable) {
            if (!container.retireIfTopicGone()) {
                container.awaitSignal(pollMillis);
            }
            return List.of(); // a retired member's loop ends: it was asked to stop
        }
        BackendConsumer consumer = topic.consumer();
        try {
            if (pauses.holding()) {
                // a retry topic's partitions held back for a back-off: those whose back-off ended are read again,
                // and the poll returns by the time the next one ends
                long now = currentTimeMillis();
                pauses.releaseDue(consumer, now);
                pollMillis = pauses.pollMillis(pollMillis, now);
            }
            List<KafkoRecord> records = consumer.poll(pollMillis == properties.pollTimeout().toMillis()
                    ? properties.pollTimeout() : Duration.ofMillis(pollMillis));
            if (records.isEmpty()) {
                positions.afterEmptyPoll(consumer);
            }
            lastPollRead = !records.isEmpty();
            return records;
        } catch (KafkoClosedException e) {
            throw e;
        } catch (UnknownTopicException e) {
            topic.leaveDeletedTopic(e);
            return List.of();
        } catch (InterruptException e) {
            if (container.stopRequested()) {
                return List.of(); // the loop ends; the thread keeps its interrupt
            }
            throw e; // someone else interrupted the member's thread: it ends, reported as dead
        } catch (KafkoException e) {
            // a partition that cannot be read (a corrupt record, a failed partition): the consumer returns the other
            // partitions' records and throws at the next poll, so a failure right after records is polled again at
            // once, and only one with nothing read between waits the poll timeout; a line a poll timeout at most
            boolean others = lastPollRead;
            lastPollRead = false;
            log.pollFailed(e, others, pollMillis);
            if (!others) {
                container.awaitSignal(pollMillis);
            }
            return List.of();
        }
    }

    /** A commit or a seek found the topic deleted: nothing of it is committed or delivered any more. */
    void forgetDeletedTopic(UnknownTopicException e) {
        topic.forgetDeletedTopic(e);
    }

    /** Whether a commit or a seek found the topic deleted: the records still in hand are not delivered. */
    boolean topicLost() {
        return topic.lost();
    }

    /** {@code count} records in hand were not delivered because the topic was deleted. */
    void notDelivered(int count) {
        topic.notDelivered(count);
    }

    /**
     * Makes the seeks the listener asked for, once what the member processed is committed, and commits the
     * positions sought: a restart, or a member the partition moves to, goes on from there. A partition sought
     * counts as assigned again, so an acknowledgment made before is stale. Polling thread: before each poll, and
     * while the member sleeps out a nack ({@link MemberDelivery}).
     *
     * @return false when the member cannot make seeks now (its topic was deleted under it): they wait for its poll
     */
    boolean makeSeeks() {
        if (seeks == null || !topic.readable()) {
            return false;
        }
        if (!seeks.pending()) {
            return true;
        }
        commits.commitPending();
        BackendConsumer consumer = topic.consumer();
        CommitOffsets offsets = commits.offsets();
        try {
            Set<Integer> sought = seeks.makeQueued(consumer);
            if (sought.isEmpty()) {
                return true;
            }
            pauses.sought(consumer, sought); // a partition held back for a back-off is read from where it was sought
            offsets.assigned(sought);
            Map<Integer, Long> positions = new HashMap<>();
            for (int p : sought) {
                positions.put(p, this.positions.committableAfterSeek(consumer, p));
            }
            positions.forEach(offsets::add);
            commits.commitPending();
            positions.forEach((p, o) -> container.processed().rewind(container.topic(), topic.topicId(), p, o));
            return true;
        } catch (UnknownTopicException e) {
            topic.forgetDeletedTopic(e);
            return false;
        } finally {
            seeks.made();
        }
    }

    /** The member went idle: a {@link ConsumerSeekAware} listener may seek, with the member's positions. */
    void idle() {
        idle(assignment.partitions());
    }

    /**
     * A partition went idle: a {@link ConsumerSeekAware} listener may seek it, given its position alone, as
     * spring-kafka calls {@code onIdleContainer} for an idle partition.
     */
    void idlePartition(int partition) {
        idle(Set.of(partition));
    }

    private void idle(Set<Integer> partitions) {
        if (seeks == null || !topic.readable()) {
            return;
        }
        Map<Integer, Long> positions = new TreeMap<>();
        try {
            for (int p : partitions) {
                positions.put(p, topic.consumer().position(p));
            }
        } catch (UnknownTopicException e) {
            topic.forgetDeletedTopic(e);
            return;
        }
        seeks.idle(Collections.unmodifiableMap(positions));
    }

    /**
     * Holds the partition back until {@code untilMillis} (the backend's clock): the record at its position waits for
     * its retry back-off, while the member polls its other partitions ({@link MemberPauses#hold}). Polling thread.
     */
    void holdUntil(int partition, long untilMillis) {
        pauses.hold(topic.consumer(), partition, untilMillis);
    }

    /** The member's consumer now (replaced when its topic was deleted and exists again). */
    BackendConsumer consumer() {
        return topic.consumer();
    }

    /** The backend's clock, epoch milliseconds (what a retry topic's back-off ends by). */
    long currentTimeMillis() {
        return backend.currentTimeMillis();
    }

    /** The id of the topic the consumer reads. */
    @Nullable Object topicId() {
        return topic.topicId();
    }
}
