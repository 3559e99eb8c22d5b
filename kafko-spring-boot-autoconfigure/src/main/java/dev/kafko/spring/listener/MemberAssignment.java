package dev.kafko.spring.listener;

import dev.kafko.ConsumerRebalanceListener;
import dev.kafko.UnknownTopicException;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The partitions one member reads, and what it does as they are assigned and revoked: its group's rebalance
 * callbacks, and the partitions assigned by hand, whose initial offsets it seeks and which it announces as a
 * group's are. Polling thread, but for {@link #partitions()} and {@link #startedByHand()} (any thread).
 */
final class MemberAssignment implements ConsumerRebalanceListener {

    private final ListenerConsumer member;
    private final KafkoMessageListenerContainer container;
    private final KafkoMessageListener listener;
    private final MemberCommits commits;
    private final CommitOffsets offsets;
    private final MemberPositions positions;
    private final @Nullable MemberSeeks seeks;
    private final MemberEvents events;
    private final MemberPauses pauses;
    /** The partitions this member reads now (any thread may read it; the polling thread replaces it). */
    private volatile Set<Integer> assigned = Set.of();
    /** False until a member with partitions assigned by hand has sought their initial offsets (or stopped). */
    private volatile boolean startedByHand;
    /** While its partitions assigned by hand are announced: those whose initial offsets were sought. */
    private Set<Integer> soughtByHand = Set.of();

    MemberAssignment(ListenerConsumer member, KafkoMessageListenerContainer container, KafkoMessageListener listener,
                     MemberCommits commits, MemberPositions positions, @Nullable MemberSeeks seeks,
                     MemberEvents events, MemberPauses pauses) {
        this.member = member;
        this.container = container;
        this.listener = listener;
        this.commits = commits;
        this.offsets = commits.offsets();
        this.positions = positions;
        this.seeks = seeks;
        this.events = events;
        this.pauses = pauses;
        this.startedByHand = container.assignment() == null;
    }

    /** The partitions this member reads now. Any thread. */
    Set<Integer> partitions() {
        return assigned;
    }

    /** The member reads nothing any more (its topic was deleted, or it stops). */
    void clear() {
        assigned = Set.of();
        pauses.clear();
    }

    /**
     * Whether the member has sought the initial offsets of its partitions assigned by hand (or stopped trying), or
     * has none. Any thread.
     */
    boolean startedByHand() {
        return startedByHand;
    }

    /** The member starts: its partitions assigned by hand, if any, are sought and announced ({@link #assignByHand}). */
    void start() {
        try {
            assignByHand();
        } finally {
            startedByHand = true;
        }
    }

    /**
     * Partitions assigned by hand: their initial offsets are sought and they are announced as a group's are
     * ({@link #onPartitionsAssigned}), as the member starts and as it reads its topic again after a delete.
     */
    void assignByHand() {
        AssignedPartitions byHand = container.assignment();
        if (byHand == null) {
            return;
        }
        try {
            byHand.start(container, member.consumer(), (partitions, sought) -> {
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
            member.forgetDeletedTopic(e);
        }
    }

    @Override
    public void onPartitionsRevoked(Collection<Integer> partitions) {
        commits.drainForeign();
        Map<Integer, Long> handOver = offsets.takeRevoked(partitions);
        if (!handOver.isEmpty()) {
            member.consumer().commit(handOver);
        }
        if (seeks != null) {
            seeks.revoked(partitions);
        }
        events.revoked(partitions);
        pauses.revoked(partitions);
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
        // before the poll that assigned them reads them
        pauses.assigned(member.consumer(), partitions);
        positions.assigned(member.consumer(), partitions, soughtByHand);
        ConsumerSeekAware aware = listener.seekAware();
        if (aware != null && !partitions.isEmpty()) {
            AssignmentSeeks.offer(aware, container, member.consumer(), partitions, member.topicId());
        }
    }
}
