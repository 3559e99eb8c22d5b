package dev.kafko.spring.listener;

import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoException;
import dev.kafko.KafkoRecord;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.core.BackendConsumer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one container member has yet to commit, and when it commits it: at once under {@code RECORD} and for an
 * acknowledgment under {@code MANUAL_IMMEDIATE}, at the end of a poll's records under the other modes (under
 * {@code COUNT} and {@code TIME} once enough records or time came since the last commit) and, as there, before a failed
 * record goes to the error handler. Polling thread only, except {@link #acknowledgedElsewhere}.
 */
final class MemberCommits {

    /** Logs as the polling loop it is part of. */
    private static final Logger LOG = LoggerFactory.getLogger(ListenerConsumer.class);

    private final KafkoMessageListenerContainer container;
    private final ContainerProperties properties;
    private final ListenerConsumer member;
    private final MemberLog log;
    private final CommitOffsets offsets = new CommitOffsets();
    /** Records processed since the last commit, and when that was: the count and time ack modes. */
    private int uncommittedRecords;
    private long lastCommitNanos = System.nanoTime();
    /**
     * Under {@code MANUAL}, how far records the listener left unacknowledged (or that were skipped) finished: told to
     * the test helper with the poll's commit, so that it never counts past an acknowledgment not yet committed.
     */
    private final Map<Integer, Long> finishedUnacknowledged = new HashMap<>();

    MemberCommits(KafkoMessageListenerContainer container, ListenerConsumer member, MemberLog log) {
        this.log = log;
        this.container = container;
        this.properties = container.properties();
        this.member = member;
    }

    CommitOffsets offsets() {
        return offsets;
    }

    /** {@code records} were processed (or recovered) in an ack mode where the container commits them. */
    void processed(List<KafkoRecord> records) {
        if (records.size() == 1) {
            KafkoRecord record = records.get(0);
            offsets.add(record.partition(), record.offset() + 1);
        } else {
            CommitOffsets.nextOffsets(records).forEach(offsets::add);
        }
        AckMode mode = properties.ackMode();
        if (mode == AckMode.RECORD || mode == AckMode.MANUAL_IMMEDIATE) {
            commitPending();
        } else if (mode.counts() || mode.times()) {
            uncommittedRecords += records.size();
            advance(CommitOffsets.nextOffsets(records)); // processed: the test helper need not wait for the commit
        }
    }

    /**
     * Takes the acknowledgments made on other threads. One for a partition this member no longer owns is
     * dropped: its new owner delivers the record again from the group's commit. Those of a topic deleted under the
     * member (its consumer cannot tell what it owns) go with the topic, as a commit that finds it deleted drops what is
     * pending: the member leaves the topic at its next poll, rather than die of it here.
     */
    void drainForeign() {
        try {
            offsets.drainForeign(new Assignment(member.consumer()), new DroppedAcknowledgment());
        } catch (UnknownTopicException e) {
            member.forgetDeletedTopic(e);
        }
    }

    /** The partitions a consumer owns now. */
    private static final class Assignment implements Supplier<Set<Integer>> {

        private final BackendConsumer consumer;

        Assignment(BackendConsumer consumer) {
            this.consumer = Objects.requireNonNull(consumer);
        }

        @Override
        public Set<Integer> get() {
            return consumer.assignment();
        }
    }

    /** Logs an acknowledgment that is not committed: its partition moved or was sought since the delivery. */
    private final class DroppedAcknowledgment implements BiConsumer<Integer, Long> {

        @Override
        public void accept(Integer partition, Long offset) {
            LOG.info("Listener '{}' was acknowledged {}-{}@{} after the partition moved to another member or was"
                    + " sought; not committed: the partition is read from the group's commit or from where it was"
                    + " sought", container.getListenerId(), container.topic(), partition, offset);
        }
    }

    /**
     * Commits at the end of a poll's records: always, except under the count and time ack modes, where the
     * records processed since the last commit must be {@code ackCount} or the time since it {@code ackTime}.
     */
    void commitIfDue() {
        if (due()) {
            commitPending();
        }
    }

    private boolean due() {
        AckMode mode = properties.ackMode();
        return !(mode.counts() || mode.times())
                || mode.counts() && uncommittedRecords >= properties.ackCount()
                || mode.times() && System.nanoTime() - lastCommitNanos >= properties.ackTime().toNanos();
    }

    /**
     * Commits what was processed before {@code unfinished} (a failed record, or a batch's from its failed record on),
     * before the error handler deals with it: as {@link #commitIfDue} would, or whatever the ack mode when
     * {@code always}. No partition of {@code unfinished} is committed at or past its first record there, even where
     * the listener acknowledged that far before it threw: its acknowledgment stays pending until the error handler
     * has dealt with the record (retried it, or published it to a retry or dead-letter topic).
     */
    void commitBefore(List<KafkoRecord> unfinished, boolean always) {
        if (!always && !due()) {
            return;
        }
        Map<Integer, Long> first = new HashMap<>();
        for (KafkoRecord record : unfinished) {
            first.merge(record.partition(), record.offset(), Math::min);
        }
        Map<Integer, Long> next = offsets.takeBefore(first);
        if (!next.isEmpty()) {
            commit(next);
        }
    }

    void commitPending() {
        Map<Integer, Long> next = offsets.take();
        if (!next.isEmpty()) {
            commit(next);
        }
        if (!finishedUnacknowledged.isEmpty()) {
            advance(finishedUnacknowledged);
            finishedUnacknowledged.clear();
        }
    }

    /**
     * {@code records} were finished under a manual ack mode without an acknowledgment: under {@code MANUAL} they
     * count as finished once the poll's acknowledgments before them are committed, at once under the other modes.
     */
    void finishedUnacknowledged(List<KafkoRecord> records) {
        Map<Integer, Long> next = CommitOffsets.nextOffsets(records);
        if (properties.ackMode() == AckMode.MANUAL) {
            next.forEach((partition, offset) -> finishedUnacknowledged.merge(partition, offset, Math::max));
        } else {
            advance(next);
        }
    }

    private void commit(Map<Integer, Long> next) {
        uncommittedRecords = 0;
        lastCommitNanos = System.nanoTime();
        try {
            member.consumer().commit(next);
            offsets.committed(next);
            log.committed();
        } catch (UnknownTopicException e) {
            member.forgetDeletedTopic(e);
            return; // records of a topic that is gone: they count as finished nowhere
        } catch (KafkoClosedException e) {
            if (!container.stopRequested()) {
                throw e;
            }
            if (container.closedByOwnListener()) {
                // its listener closed the application from this thread: kafko closed before the listener returned
                LOG.info("Listener '{}' closed the application from its own thread ({}): {} not committed and will be"
                        + " delivered again at the next start (close from another thread to have it committed)",
                        container.getListenerId(), container.memberName(), CommitOffsets.describe(container.topic(),
                                next));
                advance(next);
                return;
            }
            // a member that overran the shutdown timeout finished after kafko closed: at-least-once redelivers
            LOG.warn("Kafko closed under {} of listener '{}' after its shutdown timeout ({}): {} not committed and"
                    + " will be delivered again", container.memberName(), container.getListenerId(),
                    properties.shutdownTimeout(), CommitOffsets.describe(container.topic(), next));
        } catch (KafkoException e) {
            log.commitFailed(next, e);
        }
        advance(next);
    }

    /** Tells the container's progress tracker (read by the test helper) how far the listener got. */
    void advance(Map<Integer, Long> nextOffsets) {
        Object topicId = member.topicId();
        for (Map.Entry<Integer, Long> next : nextOffsets.entrySet()) {
            container.processed().advance(container.topic(), topicId, next.getKey(), next.getValue());
        }
    }

    /** An acknowledgment on the polling thread of a delivery made during {@code epoch}. */
    void acknowledgedOnOwner(Map<Integer, Long> next, long epoch) {
        next.forEach((p, o) -> offsets.acknowledge(p, o, epoch));
        if (properties.ackMode() == AckMode.MANUAL_IMMEDIATE) {
            commitPending();
        }
    }

    /** An acknowledgment on another thread of a delivery made during {@code epoch}: the polling thread takes it. */
    void acknowledgedElsewhere(Map<Integer, Long> next, long epoch) {
        offsets.queueForeign(next, epoch);
        if (properties.ackMode() == AckMode.MANUAL_IMMEDIATE) {
            member.acknowledgedElsewhere();
        }
    }
}
