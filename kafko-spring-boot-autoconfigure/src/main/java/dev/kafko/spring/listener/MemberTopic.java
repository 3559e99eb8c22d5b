package dev.kafko.spring.listener;

import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoException;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.core.BackendConsumer;
import dev.kafko.spring.core.LogBackend;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The topic one member reads, through its consumer: when the topic is deleted under the member, what it held of it
 * is dropped, the consumer closed, and a new one made once the topic exists again (at once where topics are created
 * on use). Polling thread only, but for {@link #wakeup()} and the consumer read by a container's own calls.
 */
final class MemberTopic {

    /** Logs as the polling loop it is part of. */
    private static final Logger LOG = LoggerFactory.getLogger(ListenerConsumer.class);

    private final KafkoMessageListenerContainer container;
    private final LogBackend backend;
    private final MemberAssignment assignment;
    private final MemberPositions positions;
    private final CommitOffsets offsets;
    private final MemberEvents events;
    private final @Nullable MemberSeeks seeks;
    private final MemberLog log;
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
     * delivered, and the next poll leaves the topic.
     */
    private @Nullable UnknownTopicException lost;
    /** How many records in hand were not delivered because the topic was deleted. */
    private int dropped;

    /** Opens the member's consumer; a topic deleted before its id was read closes it again, and throws. */
    MemberTopic(KafkoMessageListenerContainer container, LogBackend backend, MemberAssignment assignment,
                MemberPositions positions, CommitOffsets offsets, MemberEvents events, @Nullable MemberSeeks seeks,
                MemberLog log) {
        this.container = container;
        this.backend = backend;
        this.assignment = assignment;
        this.positions = positions;
        this.offsets = offsets;
        this.events = events;
        this.seeks = seeks;
        this.log = log;
        this.consumer = openConsumer();
        try {
            this.topicId = backend.topicId(container.topic());
        } catch (RuntimeException | Error e) {
            // the topic deleted since the consumer opened: no thread will run it, so it leaves its group here
            closeUnrun();
            throw e;
        }
    }

    /** A member of the group, or a consumer of the partitions assigned by hand ({@link AssignedPartitions}). */
    private BackendConsumer openConsumer() {
        ContainerProperties properties = container.properties();
        AssignedPartitions byHand = container.assignment();
        BackendConsumer opened = byHand != null
                ? byHand.open(backend, container, properties.maxPollRecords(), properties.offsetReset())
                : properties.offsetReset() == null
                        ? backend.groupConsumer(container.topic(), container.getGroupId(), properties.maxPollRecords(),
                                assignment, container.createsTopic())
                        : backend.groupConsumer(container.topic(), container.getGroupId(), properties.maxPollRecords(),
                                assignment, container.createsTopic(), properties.offsetReset());
        if (opened == null) {
            throw new IllegalStateException("The LogBackend " + backend.getClass().getName() + " of listener '"
                    + container.getListenerId() + "' returned no consumer for '" + container.topic()
                    + "' (a mock of the LogBackend bean? the listeners read through it)");
        }
        return opened;
    }

    /** The member's consumer now (replaced when its topic was deleted and exists again). */
    BackendConsumer consumer() {
        return consumer;
    }

    /** The id of the topic the consumer reads. */
    @Nullable Object topicId() {
        return topicId;
    }

    /** Whether the consumer reads the topic: it was not found deleted under it. */
    boolean readable() {
        return !detached && lost == null;
    }

    /** Any thread. */
    void wakeup() {
        consumer.wakeup();
    }

    /** Closes the consumer of a member no thread will run ({@link ListenerConsumer#closeUnrun}). */
    void closeUnrun() {
        try {
            consumer.close();
        } catch (RuntimeException e) {
            LOG.warn("Closing the consumer of {}, whose thread was refused, failed", container.memberName(), e);
        }
    }

    /**
     * Before a poll: leaves the topic a commit found deleted, and makes a consumer of it again if it was left.
     *
     * @return whether the consumer reads the topic, so that the member can poll it
     */
    boolean beforePoll() {
        if (lost != null) {
            leaveDeletedTopic(lost);
        }
        return !detached || rejoin();
    }

    /**
     * A paused member of a pattern's topic polls nothing, so no poll finds the topic deleted: it looks at each pause
     * wait, and ends as a polling member does when the topic is gone ({@link #leaveDeletedTopic}), rather than keep a
     * thread per topic deleted while the container is paused. True when it was asked to stop so.
     */
    boolean leftWhilePaused() {
        if (container.createsTopic()) {
            rejoinWhilePaused();
            return false;
        }
        Object now = backend.topicId(container.topic());
        // null: no topic has the name now, also when none had it either as the consumer was made (deleted in between)
        if (!detached && lost == null && now != null && now.equals(topicId)) {
            return false;
        }
        if (!detached) {
            leaveDeletedTopic(lost != null ? lost : deletedWhilePaused());
        }
        return detached && container.retireIfTopicGone();
    }

    /**
     * A paused group member of a topic it creates on use looks at its topic at each pause wait too: deleted (and maybe
     * created again), the member reads it again at once, as a polling member does, so that it commits where it starts
     * the new topic ({@link #startWhilePaused}): a restart before the resume reads what was sent to it meanwhile, where
     * new groups start at the end, and the group's lag counts it. Partitions assigned by hand are read again at the
     * resume, their initial offsets sought then.
     */
    private void rejoinWhilePaused() {
        if (container.assignment() != null) {
            return;
        }
        if (detached) {
            rejoin();
            return;
        }
        Object now = backend.topicId(container.topic());
        if (lost == null && now != null && now.equals(topicId)) {
            return;
        }
        leaveDeletedTopic(lost != null ? lost : deletedWhilePaused());
    }

    private UnknownTopicException deletedWhilePaused() {
        return new UnknownTopicException("topic '" + container.topic() + "' was deleted while "
                + container.memberName() + " was paused");
    }

    /** A paused member commits where it starts the partitions it took ({@link MemberPositions#whilePaused}). */
    void startWhilePaused() {
        try {
            if (readable()) {
                positions.whilePaused(consumer, assignment.partitions());
            }
        } catch (UnknownTopicException e) {
            forgetDeletedTopic(e); // left as a commit's finding of it is
        }
    }

    /**
     * The topic was deleted under this member: what it had not committed went with it, and so did the
     * records it still held. The member closes its consumer and joins its group on the topic again as
     * soon as the topic exists, which is at once where topics are created on use; until then it looks again every
     * poll timeout. A member of a listener that follows a topic pattern, which never creates the topics it reads, ends
     * instead when the topic does not exist at its next poll.
     */
    void leaveDeletedTopic(UnknownTopicException e) {
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
        assignment.clear();
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

    /** Whether a commit or a seek found the topic deleted: the records still in hand are not delivered. */
    boolean lost() {
        return lost != null;
    }

    /** {@code count} records in hand were not delivered because the topic was deleted. */
    void notDelivered(int count) {
        dropped += count;
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
        assignment.assignByHand();
        return true;
    }
}
