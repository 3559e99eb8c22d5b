package dev.kafko.internal.broker;

import dev.kafko.CommitFailedException;
import dev.kafko.OffsetOutOfRangeException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the commits of one {@link ConsumerImpl} to its group's offsets, and what it reads back of them. An
 * anonymous consumer commits nothing; one with fixed partitions commits only while the group has no live member.
 * Called by the consumer's one thread, inside its {@link ConsumerThreadGuard}.
 */
final class ConsumerCommits {

    private final ConsumerImpl consumer;
    private final TopicImpl topic;
    /**
     * The group's coordinator; a fixed-assignment consumer's moves to the group's next one once its own was deleted
     * ({@code Kafko.deleteGroup}, which a member's membership refuses): its next commit makes the group anew, as a
     * standalone consumer's commit does in Kafka. Its thread only.
     */
    private @Nullable GroupCoordinator group;
    private final PartitionPositions positions;
    /** Whether the consumer's partitions were given: it is no member of its group. */
    private final boolean fixed;

    ConsumerCommits(ConsumerImpl consumer, TopicImpl topic, @Nullable GroupCoordinator group,
                    PartitionPositions positions, boolean fixed) {
        this.consumer = consumer;
        this.topic = topic;
        this.group = group;
        this.positions = positions;
        this.fixed = fixed;
    }

    /** {@link ConsumerImpl#commit()}: the position of every owned partition. */
    void commit() {
        consumer.ensureOpen();
        int[] owned = consumer.owned();
        if (group == null || owned.length == 0) {
            return;
        }
        Map<Integer, Long> offsets = owned.length == 1 ? Map.of(owned[0], positions.get(owned[0])) : new HashMap<>();
        if (owned.length > 1) {
            for (int p : owned) {
                offsets.put(p, positions.get(p));
            }
        }
        commitToGroup(offsets);
    }

    /** {@link ConsumerImpl#commit(Map)}: {@code offsets} of owned partitions. */
    void commit(Map<Integer, Long> offsets) {
        Objects.requireNonNull(offsets, "offsets");
        // the arguments' own errors first, before the close, as every argument is checked
        for (Map.Entry<Integer, Long> e : offsets.entrySet()) {
            // a null is a NullPointerException naming the element, as every null argument is
            if (e.getKey() == null) {
                throw new NullPointerException("offsets: a null partition (offset " + e.getValue() + ") of topic '"
                        + topic.name + "'");
            }
            if (e.getValue() == null) {
                throw new NullPointerException("offsets: a null offset for partition " + e.getKey() + " of topic '"
                        + topic.name + "'");
            }
            if (e.getValue() < 0) {
                throw new OffsetOutOfRangeException("cannot commit offset " + e.getValue() + " for partition "
                        + e.getKey() + " of topic '" + topic.name + "'", e.getKey(), e.getValue());
            }
        }
        consumer.ensureOpen();
        if (group == null) {
            return;
        }
        for (Integer p : offsets.keySet()) {
            consumer.requireOwned(p);
        }
        if (!offsets.isEmpty()) { // as Kafka's consumer: nothing to commit is no commit (no onCommit either)
            commitToGroup(Map.copyOf(offsets));
        }
    }

    /**
     * Writes the group's offsets. A fixed-assignment consumer is no member of its group: while the group has live
     * members, it may not write their offsets (Kafka answers such a commit with {@code UNKNOWN_MEMBER_ID}); the
     * group counts them under the lock of the write, so that a member joining meanwhile is not overwritten.
     */
    private void commitToGroup(Map<Integer, Long> offsets) {
        if (!fixed) {
            group.commit(offsets); // a live member: its group cannot be deleted
            return;
        }
        for (;;) {
            GroupCoordinator g = group;
            try {
                g.commit(offsets, members -> new CommitFailedException("cannot commit for group '" + g.group
                        + "' of topic '" + topic.name + "' from a consumer with fixed partitions " + consumer.ownedSet()
                        + ": the group has " + members + " live member(s), and only its members commit while it has"
                        + " any (nothing was committed)"));
                return;
            } catch (GroupCoordinator.Deleted e) {
                GroupCoordinator next = topic.group(g.group); // waits for the deletion to end; a fresh coordinator
                next.consumerResetUnlessSet(positions.reset());
                group = next;
            }
        }
    }

    /** {@link ConsumerImpl#committed}: the group's committed offset of {@code partition}, if any. */
    OptionalLong committed(int partition) {
        consumer.ensureOpen();
        topic.actor(partition); // range check, an anonymous consumer's too
        if (group == null) {
            return OptionalLong.empty();
        }
        long c;
        for (;;) {
            GroupCoordinator g = group;
            try {
                c = g.committed(partition);
                break;
            } catch (GroupCoordinator.Deleted e) {
                // a fixed-assignment consumer's group deleted: what the group of its name has now, making none
                GroupCoordinator next = topic.knownGroup(g.group);
                if (next == null) {
                    return OptionalLong.empty();
                }
                next.consumerResetUnlessSet(positions.reset());
                group = next;
            }
        }
        return c < 0 ? OptionalLong.empty() : OptionalLong.of(c);
    }
}
