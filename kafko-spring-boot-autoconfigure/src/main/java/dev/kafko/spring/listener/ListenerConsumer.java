package dev.kafko.spring.listener;

import dev.kafko.ConsumerRebalanceListener;
import dev.kafko.InterruptException;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoException;
import dev.kafko.KafkoRecord;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.core.BackendConsumer;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.support.KafkoInstrumentation;
import io.micrometer.observation.Observation;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The polling loop of one container member: poll, deliver, handle failures, commit by ack mode.
 * Everything here runs on the member's own thread, except {@link Ack#acknowledge()} (any thread:
 * a foreign ack is queued and committed by the polling thread) and {@link #wakeup()}.
 */
final class ListenerConsumer implements Runnable, ConsumerRebalanceListener {

    private static final Logger LOG = LoggerFactory.getLogger(ListenerConsumer.class);
    /** How long a member waits before delivering again records its error handler did not finish. */
    static final long REDELIVERY_PAUSE_MILLIS = 1000;

    private final KafkoMessageListenerContainer container;
    private final ContainerProperties properties;
    private final KafkoMessageListener listener;
    private final LogBackend backend;
    /** The member's consumer: replaced (polling thread only) when its topic was deleted and exists again. */
    private volatile BackendConsumer consumer;
    /**
     * The id of the topic {@link #consumer} reads ({@link LogBackend#topicId}), read once it was made: were
     * the topic deleted and created again meanwhile, the consumer fails before it delivers anything.
     */
    private @Nullable Object topicId;
    /** Whether the topic was deleted under {@link #consumer} and no consumer of it has been made since. */
    private boolean detached;
    /**
     * Why a commit found the topic deleted under {@link #consumer}: the records still in hand are not
     * delivered, and the next poll leaves the topic; polling thread only.
     */
    private @Nullable UnknownTopicException lost;
    /** How many records in hand were not delivered because the topic was deleted; polling thread only. */
    private int dropped;
    /** Whether the last poll returned records: a poll failure right after them is the next poll's (see poll()). */
    private boolean lastPollRead;
    /** When the last poll failure was logged ({@link System#nanoTime}). */
    private long pollFailureLoggedNanos;
    /** What this member has yet to commit, and when it commits it; polling thread only. */
    private final MemberCommits commits;
    /** {@code commits}' bookkeeping. */
    private final CommitOffsets offsets;
    /**
     * A nack's pause, set by the listener on this thread: the nacked records and those after them are delivered
     * again after it (null: none); {@link #nackIndex} is the first of them in a batch. Polling thread only.
     */
    private @Nullable Duration nackSleep;
    private int nackIndex;
    /** Where the member starts and how far it got without records; polling thread only. */
    private final MemberPositions positions;
    private final boolean timed;
    private final RecordObservations observations;
    /** Whether this run's first poll completed ({@link ConsumerSeekAware#onFirstPoll} told). Polling thread. */
    private boolean polledOnce;
    /** The seeks a {@link ConsumerSeekAware} listener asks for while the member runs; null for other listeners. */
    private final @Nullable MemberSeeks seeks;
    private volatile @Nullable Thread owner;
    /** False until a member with partitions assigned by hand has sought their initial offsets (or stopped). */
    private volatile boolean startedByHand;
    /** While its partitions assigned by hand are announced: those whose initial offsets were sought. */
    private Set<Integer> soughtByHand = Set.of();
    /** The partitions this member reads now (any thread may read it; the polling thread replaces it). */
    private volatile Set<Integer> assigned = Set.of();
    private final CountDownLatch firstPoll;
    /** What the member logs of its repeated failures and its death; polling thread only. */
    private final MemberLog log;
    /** The events this member publishes, and when it is idle; polling thread only. */
    private final MemberEvents events;

    /**
     * @param firstPoll opened once the listener's other members have joined the group; this member's first
     *     poll waits for it
     */
    ListenerConsumer(KafkoMessageListenerContainer container, LogBackend backend, KafkoMessageListener listener,
                     CountDownLatch firstPoll) {
        this.firstPoll = firstPoll;
        this.container = container;
        this.properties = container.properties();
        this.listener = listener;
        this.timed = container.instrumentation() != KafkoInstrumentation.NOOP;
        this.observations = container.observations();
        this.backend = backend;
        this.log = new MemberLog(container);
        this.commits = new MemberCommits(container, this, log);
        this.offsets = commits.offsets();
        this.positions = new MemberPositions(container, backend, commits::advance);
        this.consumer = openConsumer();
        this.startedByHand = container.assignment() == null;
        this.topicId = backend.topicId(container.topic());
        ConsumerSeekAware aware = listener.seekAware();
        this.seeks = aware == null ? null : new MemberSeeks(container, aware, this::wakeup);
        this.events = new MemberEvents(container, this::assignedPartitions, this::idle, this::idlePartition);
    }

    /** A member of the group, or a consumer of the partitions assigned by hand ({@link AssignedPartitions}). */
    private BackendConsumer openConsumer() {
        AssignedPartitions byHand = container.assignment();
        return byHand != null ? byHand.open(backend, container, properties.maxPollRecords())
                : backend.groupConsumer(container.topic(), container.getGroupId(), properties.maxPollRecords(), this,
                        container.createsTopic());
    }

    /**
     * Partitions assigned by hand: their initial offsets are sought and they are announced as a group's are
     * ({@link #onPartitionsAssigned}), as the member starts and as it reads its topic again after a delete.
     */
    private void assignByHand() {
        AssignedPartitions byHand = container.assignment();
        if (byHand == null) {
            return;
        }
        try {
            byHand.start(container, consumer, (partitions, sought) -> {
                soughtByHand = sought;
                try {
                    onPartitionsAssigned(partitions);
                } finally {
                    soughtByHand = Set.of();
                }
            }, sought -> {
                sought.forEach(offsets::add);
                commits.commitPending();
            });
        } catch (UnknownTopicException e) {
            forgetDeletedTopic(e);
        }
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
        return !startedByHand || seeks != null && seeks.pending();
    }

    /** The partitions this member reads now. Any thread. */
    Set<Integer> assignedPartitions() {
        return assigned;
    }

    void wakeup() {
        consumer.wakeup();
    }

    @Override
    public void run() {
        owner = Thread.currentThread();
        Thread.currentThread().setName(container.memberName());
        Throwable died = null;
        try {
            awaitFirstPoll();
            if (seeks != null) {
                seeks.register();
            }
            events.started();
            try {
                assignByHand();
            } finally {
                startedByHand = true;
            }
            while (!container.stopRequested()) {
                commits.drainForeign();
                makeSeeks();
                if (container.pauseRequested()) {
                    commits.commitPending();
                    if (leftWhilePaused()) {
                        continue; // its pattern's topic was deleted: the member ends
                    }
                    container.markPaused(true);
                    events.paused(true);
                    container.awaitSignal(events.waitMillis(properties.pollTimeout().toMillis()));
                    events.nothingReceived();
                    events.partitionsPolled(List.of());
                    continue;
                }
                container.markPaused(false);
                events.paused(false);
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
                    deliver(records);
                }
                commits.drainForeign();
                commits.commitIfDue();
            }
        } catch (KafkoClosedException e) {
            if (container.stopRequested()) {
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
                    if (container.assignment() != null && !detached && lost == null) {
                        onPartitionsRevoked(assigned); // as a group member's close revokes what it reads
                    }
                } finally {
                    consumer.close();
                }
            } catch (RuntimeException e) {
                LOG.warn("Closing the consumer of {} failed", container.memberName(), e);
            }
            if (seeks != null) {
                seeks.unregister();
            }
            assigned = Set.of();
            owner = null;
            Throwable cause = died;
            container.exited(died, () -> events.stopped(cause));
        }
    }

    /**
     * A paused member of a pattern's topic polls nothing, so no poll finds the topic deleted: it looks at each pause
     * wait, and ends as a polling member does when the topic is gone ({@link #leaveDeletedTopic}), rather than keep a
     * thread per topic deleted while the container is paused. True when it was asked to stop so.
     */
    private boolean leftWhilePaused() {
        if (container.createsTopic()) {
            return false;
        }
        Object now = backend.topicId(container.topic());
        // null: no topic has the name now, also when none had it either as the consumer was made (deleted in between)
        if (!detached && lost == null && now != null && now.equals(topicId)) {
            return false;
        }
        if (!detached) {
            leaveDeletedTopic(lost != null ? lost : new UnknownTopicException("topic '" + container.topic()
                    + "' was deleted while " + container.memberName() + " was paused"));
        }
        return detached && container.retireIfTopicGone();
    }

    private List<KafkoRecord> poll() throws InterruptedException {
        if (lost != null) {
            leaveDeletedTopic(lost);
        }
        long pollMillis = events.waitMillis(properties.pollTimeout().toMillis());
        if (detached && !rejoin()) {
            if (!container.retireIfTopicGone()) {
                container.awaitSignal(pollMillis);
            }
            return List.of(); // a retired member's loop ends: it was asked to stop
        }
        try {
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
            leaveDeletedTopic(e);
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
            long now = System.nanoTime();
            if (!others || now - pollFailureLoggedNanos >= TimeUnit.MILLISECONDS.toNanos(pollMillis)) {
                pollFailureLoggedNanos = now;
                log.pollFailed(e, others ? 0 : pollMillis);
            }
            if (!others) {
                container.awaitSignal(pollMillis);
            }
            return List.of();
        }
    }

    /**
     * The topic was deleted under this member: what it had not committed went with it, and so did the
     * records it still held. The member closes its consumer and joins its group on the topic again as
     * soon as the topic exists, which is at once where topics are created on use; until then it looks again every
     * poll timeout. A member of a listener that follows a topic pattern, which never creates the topics it reads, ends
     * instead when the topic does not exist at its next poll.
     */
    private void leaveDeletedTopic(UnknownTopicException e) {
        LOG.warn("Listener '{}' lost topic '{}' ({}){}; {} {}", container.getListenerId(), container.topic(),
                e.getMessage(), dropped > 0 ? "; " + dropped + " record(s) of it in hand were not delivered" : "",
                container.memberName(), container.createsTopic() ? "reads it again as soon as it exists"
                        : "ends unless it exists again at its next poll");
        forgetDeletedTopic(e);
        lost = null;
        dropped = 0;
        if (seeks != null) {
            seeks.drop("its topic was deleted");
        }
        try {
            consumer.close();
        } catch (RuntimeException closing) {
            LOG.debug("Closing the consumer of {} on a deleted topic failed", container.memberName(), closing);
        }
        assigned = Set.of();
        events.revokedAll();
        detached = true;
        rejoin();
    }

    /** A commit or a seek found the topic deleted: nothing of it is committed or delivered any more. */
    void forgetDeletedTopic(UnknownTopicException e) {
        if (lost == null) {
            lost = e;
        }
        offsets.dropPending();
    }

    /** Makes a consumer of the topic again, if it exists (or is created on use); true when it did. */
    private boolean rejoin() {
        try {
            consumer = openConsumer();
        } catch (UnknownTopicException e) {
            return false;
        } catch (KafkoClosedException e) {
            throw e;
        } catch (KafkoException e) {
            // the topic is being deleted and created again under the member (a test resetting its topics), or
            // something lasting (a storage error): it looks again at the next poll timeout, as for a topic that
            // does not exist yet
            log.rejoinFailed(e);
            return false;
        }
        topicId = backend.topicId(container.topic());
        detached = false;
        offsets.reset();
        positions.rejoined();
        container.instrumentation().listenerStarting(container.getListenerId(), container.getGroupId(),
                container.topic());
        LOG.info("Listener '{}' reads topic '{}' again ({})", container.getListenerId(), container.topic(),
                container.memberName());
        assignByHand();
        return true;
    }

    private void deliver(List<KafkoRecord> records) {
        if (listener.isBatch()) {
            deliverBatch(records);
            return;
        }
        Set<Integer> redeliver = null;
        for (int i = 0; i < records.size(); i++) {
            KafkoRecord record = records.get(i);
            if (container.stopRequested()) {
                return; // not delivered, not committed: the group delivers them again
            }
            if (lost != null) {
                dropped += records.size() - i; // a topic that no longer exists: nobody reads them again
                return;
            }
            if (redeliver != null && redeliver.contains(record.partition())) {
                continue;
            }
            if (seeks != null && seeks.pending()) {
                // the seeks come first: what is left is read again, from where it is or from where it is sought
                Set<Integer> sought = redeliver;
                seekBack(records.subList(i, records.size()).stream()
                        .filter(r -> sought == null || !sought.contains(r.partition())).toList());
                return;
            }
            if (!handle(record)) {
                seek(record.partition(), record.offset());
                if (redeliver == null) {
                    redeliver = new HashSet<>();
                }
                redeliver.add(record.partition());
            }
            if (nackSleep != null) {
                Set<Integer> skip = redeliver;
                redeliverAfterNack(records.subList(i, records.size()).stream()
                        .filter(r -> skip == null || !skip.contains(r.partition())).toList());
                return;
            }
        }
    }

    /** A nack: {@code records} come again, after its pause (which a stop or a pause ends). */
    private void redeliverAfterNack(List<KafkoRecord> records) {
        long millis = nackSleep.toMillis();
        nackSleep = null;
        seekBack(records);
        try {
            container.awaitStopOrPause(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Delivers a batch. When the listener names the record that failed ({@link BatchListenerFailedException}),
     * the records before it are finished, the failed one goes to the error handler alone, and the records
     * after it are delivered again by the next poll; any other failure is the whole batch's.
     */
    private void deliverBatch(List<KafkoRecord> records) {
        Acknowledgment ack = ack(records);
        try {
            invoke(records, ack, 1);
        } catch (Exception failure) {
            BatchListenerFailedException named = BatchListenerFailedException.findIn(failure);
            if (named == null || named.getIndex() >= records.size()) {
                if (named != null) {
                    LOG.warn("Listener '{}' named record {} of a batch of {} as failed; failing the whole batch",
                            container.getListenerId(), named.getIndex(), records.size());
                }
                if (!recover(records, failure, ack)) {
                    seekBack(records);
                } else if (nackSleep != null) {
                    batchNacked(records, ack); // a retry nacked the batch and returned
                }
                return;
            }
            int i = named.getIndex();
            if (i > 0) {
                done(records.subList(0, i), true, ack);
            }
            List<KafkoRecord> failed = List.of(records.get(i));
            Exception cause = named.getCause() instanceof Exception e ? e : named;
            Acknowledgment failedAck = ack(failed);
            if (!recover(failed, cause, failedAck)) {
                seekBack(records.subList(i, records.size()));
            } else if (nackSleep != null) {
                // a retry nacked the failed record (the batch of it alone, index 0): it comes again with those after it
                batchNacked(records.subList(i, records.size()), failedAck);
            } else if (i + 1 < records.size()) {
                seekBack(records.subList(i + 1, records.size()));
            }
            return;
        }
        if (nackSleep != null) {
            batchNacked(records, ack);
            return;
        }
        done(records, false, ack);
    }

    /**
     * The listener nacked {@code records} from {@link #nackIndex} on and returned (on their delivery or on a retry):
     * the records before the index are acknowledged by the nack, the others come again after its pause.
     */
    private void batchNacked(List<KafkoRecord> records, Acknowledgment ack) {
        Duration sleep = nackSleep;
        nackSleep = null;
        done(records.subList(0, nackIndex), true, ack); // acknowledged by the nack
        nackSleep = sleep;
        redeliverAfterNack(records.subList(nackIndex, records.size()));
    }

    private void seekBack(List<KafkoRecord> records) {
        Map<Integer, Long> first = new HashMap<>();
        for (KafkoRecord r : records) {
            first.merge(r.partition(), r.offset(), Math::min);
        }
        first.forEach(this::seek);
    }

    /** Seeks to deliver records again; on a deleted topic there is nothing to deliver again. */
    private void seek(int partition, long offset) {
        if (lost != null) {
            return;
        }
        try {
            consumer.seek(partition, offset);
        } catch (UnknownTopicException e) {
            forgetDeletedTopic(e);
        }
    }

    /**
     * Delivers a record to a record listener, inside its observation when there is one (the attempts and
     * the recovery: their logs and what they send belong to the record's trace); true when it is done
     * (processed or recovered), false to deliver it again.
     */
    private boolean handle(KafkoRecord record) {
        List<KafkoRecord> records = List.of(record);
        Acknowledgment ack = ack(records);
        Observation observation = observations.start(container.getListenerId(), container.getGroupId(), record);
        try (Observation.Scope ignored = observation == null ? null : observation.openScope()) {
            try {
                invoke(records, ack, 1);
            } catch (Exception failure) {
                if (observation != null) {
                    observation.error(failure);
                }
                return recover(records, failure, ack);
            }
            done(records, false, ack);
            return true;
        } finally {
            if (observation != null) {
                observation.stop();
            }
        }
    }

    /**
     * Lets the error handler deal with a failed delivery; true when it did, false to deliver again. Records a retry
     * processed are finished as at their delivery (under a manual ack mode once acknowledged); those it recovered
     * (dead-lettered, logged) count as acknowledged.
     */
    private boolean recover(List<KafkoRecord> records, Exception failure, Acknowledgment ack) {
        ListenerInvocation invocation = new ListenerInvocation(container, records, ack, this::invoke);
        try {
            container.errorHandler().handle(records, failure, invocation);
        } catch (Exception unhandled) {
            nackSleep = null; // a retry's nack the handler overrode: the records are delivered again as it throws
            if (container.stopRequested()) {
                // the error handler gave up because of the stop (its back-off ended early): not a failure
                LOG.info("Listener '{}' stopped while retrying {} record(s) from {}; they are not committed and"
                        + " will be delivered again when the group next reads them ({})", container.getListenerId(),
                        records.size(), container.topic(), unhandled.getMessage());
                return false;
            }
            if (container.pauseRequested()) {
                LOG.info("Listener '{}' paused while retrying {} record(s) from {}; they are not committed and will"
                        + " be delivered again after the resume ({})", container.getListenerId(), records.size(),
                        container.topic(), unhandled.getMessage());
                return false;
            }
            log.notFinished(records, unhandled, REDELIVERY_PAUSE_MILLIS); // again each second while it lasts
            // whatever failed (a dead-letter topic that refuses writes, say) needs time: no hot loop
            pauseBeforeRedelivery();
            return false;
        }
        done(records, !invocation.retried(), ack);
        return true;
    }

    private void pauseBeforeRedelivery() {
        try {
            container.awaitStopOrPause(REDELIVERY_PAUSE_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void invoke(List<KafkoRecord> records, Acknowledgment ack, int attempt) throws Exception {
        if (attempt > 1 && ack instanceof DeliveryAcknowledgment delivery) {
            delivery.newAttempt();
        }
        long start = timed ? System.nanoTime() : 0L;
        boolean success = false;
        boolean fatal = false;
        log.delivering(records);
        try {
            listener.onMessage(records, ack, attempt);
            success = true;
        } catch (VirtualMachineError e) {
            if (!(e instanceof StackOverflowError)) {
                fatal = true; // the records stay named in hand: the member's death names them
                throw e; // the JVM's trouble (out of memory, a fault on a mapped file): the member dies
            }
            // a record that recurses too deep fails as any other failure: retries, then recovery
            throw new ListenerExecutionFailedException("Listener '" + container.getListenerId() + "' threw " + e, e);
        } catch (Error e) {
            throw new ListenerExecutionFailedException("Listener '" + container.getListenerId() + "' threw " + e, e);
        } finally {
            if (!success) {
                // a listener that throws after a nack fails as it would without it, at a retry as at the delivery:
                // only a nack of the attempt that returned counts
                nackSleep = null;
            }
            if (!fatal) {
                log.delivered();
            }
            if (timed) {
                container.instrumentation().listenerInvoked(container.getListenerId(), container.topic(),
                        System.nanoTime() - start, success);
            }
        }
    }

    /** Records the records as finished; {@code recovered} ones count as acknowledged in manual modes. */
    private void done(List<KafkoRecord> records, boolean recovered, Acknowledgment ack) {
        if (nackSleep != null) {
            return; // nacked: delivered again, nothing of it counts as processed
        }
        AckMode mode = properties.ackMode();
        if (mode.isManual() && !recovered) {
            if (!(ack instanceof DeliveryAcknowledgment a && a.acknowledgedByOwner())) {
                commits.advance(CommitOffsets.nextOffsets(records)); // processed; committed once the listener acknowledges
            } // acknowledged: finished once its commit (at the end of the poll under MANUAL) advances it
            return;
        }
        commits.processed(records);
    }

    /**
     * Makes the seeks the listener asked for, once what the member processed is committed, and commits the
     * positions sought: a restart, or a member the partition moves to, goes on from there. A partition sought
     * counts as assigned again, so an acknowledgment made before is stale.
     */
    private void makeSeeks() {
        if (seeks == null || !seeks.pending() || lost != null || detached) {
            return;
        }
        commits.commitPending();
        try {
            Set<Integer> sought = seeks.makeQueued(consumer);
            if (sought.isEmpty()) {
                return;
            }
            offsets.assigned(sought);
            Map<Integer, Long> positions = new HashMap<>();
            for (int p : sought) {
                positions.put(p, consumer.position(p));
            }
            positions.forEach(offsets::add);
            commits.commitPending();
            positions.forEach((p, o) -> container.processed().rewind(container.topic(), topicId, p, o));
        } catch (UnknownTopicException e) {
            forgetDeletedTopic(e);
        } finally {
            seeks.made();
        }
    }

    @Override
    public void onPartitionsRevoked(Collection<Integer> partitions) {
        commits.drainForeign();
        Map<Integer, Long> handOver = offsets.takeRevoked(partitions);
        if (!handOver.isEmpty()) {
            consumer.commit(handOver);
        }
        if (seeks != null) {
            seeks.revoked(partitions);
        }
        events.revoked(partitions);
        Set<Integer> left = new HashSet<>(assigned);
        left.removeAll(partitions);
        assigned = Set.copyOf(left);
    }

    @Override
    public void onPartitionsAssigned(Collection<Integer> partitions) {
        offsets.assigned(partitions);
        Set<Integer> now = new HashSet<>(assigned);
        now.addAll(partitions);
        assigned = Set.copyOf(now);
        events.assigned(partitions);
        positions.assigned(consumer, partitions, soughtByHand);
        ConsumerSeekAware aware = listener.seekAware();
        if (aware != null && !partitions.isEmpty()) {
            AssignmentSeeks.offer(aware, container, consumer, partitions);
        }
    }

    /** The member went idle: a {@link ConsumerSeekAware} listener may seek, with the member's positions. */
    private void idle() {
        if (seeks == null || lost != null || detached) {
            return;
        }
        Map<Integer, Long> positions = new TreeMap<>();
        try {
            for (int p : assigned) {
                positions.put(p, consumer.position(p));
            }
        } catch (UnknownTopicException e) {
            forgetDeletedTopic(e);
            return;
        }
        seeks.idle(Collections.unmodifiableMap(positions));
    }

    /**
     * A partition went idle: a {@link ConsumerSeekAware} listener may seek it, given its position alone, as
     * spring-kafka calls {@code onIdleContainer} for an idle partition.
     */
    private void idlePartition(int partition) {
        if (seeks == null || lost != null || detached) {
            return;
        }
        long position;
        try {
            position = consumer.position(partition);
        } catch (UnknownTopicException e) {
            forgetDeletedTopic(e);
            return;
        }
        seeks.idle(Map.of(partition, position));
    }

    /** The listener nacked its delivery from {@code index} on, to come again after {@code sleep}. Polling thread. */
    void nacked(int index, Duration sleep) {
        nackIndex = index;
        nackSleep = sleep;
    }

    AckMode ackMode() {
        return properties.ackMode();
    }

    boolean isBatch() {
        return listener.isBatch();
    }

    String listenerId() {
        return container.getListenerId();
    }

    private Acknowledgment ack(List<KafkoRecord> records) {
        return properties.ackMode().isManual() ? new DeliveryAcknowledgment(this, commits, records, offsets.epoch())
                : DeliveryAcknowledgment.NONE;
    }

    /** The member's consumer now (replaced when its topic was deleted and exists again). */
    BackendConsumer consumer() {
        return consumer;
    }

    /** The id of the topic the consumer reads. */
    @Nullable Object topicId() {
        return topicId;
    }
}
