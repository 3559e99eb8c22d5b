package dev.kafko.internal.broker;

import dev.kafko.ConsumerRebalanceListener;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Internal: a group member's side of its group's rebalances ({@link GroupCoordinator}). Before a poll reads, it
 * gives up the partitions the group revoked and takes those the group freed for it, telling the consumer's
 * {@link ConsumerRebalanceListener} (revoked, then assigned, inside {@code poll}); at the member's close it tells
 * the listener of the partitions it still holds. Not for an anonymous consumer nor one with fixed partitions.
 * Used by the consumer's one thread.
 */
final class ConsumerRebalance {

    private final ConsumerImpl consumer;
    private final TopicImpl topic;
    private final GroupCoordinator group;
    private final ConsumerRebalanceListener listener;
    private final PartitionPositions positions;
    /** The group's version at the last {@link #sync}. */
    private int seenVersion = -1;
    /** Partitions taken that the listener has not yet been told of. */
    private @Nullable List<Integer> unannounced;
    /** The partitions the revoke callback running now is told of: a close from it does not revoke them again. */
    private @Nullable List<Integer> revoking;

    ConsumerRebalance(ConsumerImpl consumer, TopicImpl topic, GroupCoordinator group,
                      ConsumerRebalanceListener listener, PartitionPositions positions) {
        this.consumer = consumer;
        this.topic = topic;
        this.group = group;
        this.listener = listener;
        this.positions = positions;
    }

    /** Whether the group changed since the last {@link #sync}. */
    boolean changed() {
        return group.version() != seenVersion;
    }

    /** Whether a poll syncs before it reads: the group changed, or partitions taken are not yet announced. */
    boolean due() {
        return group.version() != seenVersion || unannounced != null;
    }

    /** Gives up revoked partitions and takes free ones; callbacks only when {@code announce}. */
    void sync(boolean announce) {
        GroupCoordinator g = group;
        seenVersion = g.version();
        Set<Integer> mine = consumer.ownedSet();
        List<Integer> revoked = g.revocations(consumer, mine);
        if (!revoked.isEmpty()) {
            try {
                List<Integer> announced = announced(revoked);
                if (!announced.isEmpty()) {
                    revoking = announced;
                    listener.onPartitionsRevoked(Collections.unmodifiableList(announced));
                }
            } finally {
                revoking = null;
                if (!consumer.isClosed()) { // a close from the callback gave up every partition and left the group already
                    PartitionActor[] actors = topic.actors();
                    for (int p : revoked) {
                        actors[p].waiters.remove(consumer.waiter);
                        mine.remove(p);
                    }
                    consumer.setOwned(mine);
                    g.release(consumer, revoked);
                }
            }
            // closed by its callback: the poll reads nothing more, from partitions other members now read
            consumer.ensureOpen();
        }
        List<Integer> gained = g.acquire(consumer);
        if (!gained.isEmpty()) {
            PartitionActor[] actors = topic.actors();
            positions.grow(actors.length);
            long[] starts = new long[gained.size()];
            try {
                for (int i = 0; i < starts.length; i++) {
                    starts[i] = positions.start(g.committed(gained.get(i)), actors[gained.get(i)]);
                }
            } catch (RuntimeException | Error e) {
                // the commits could not be read: given back, or the group would count them as this member's
                // while the member does not know it holds them, and nobody would ever read them
                g.release(consumer, gained);
                throw e;
            }
            for (int i = 0; i < starts.length; i++) {
                int p = gained.get(i);
                positions.set(p, starts[i]);
                actors[p].waiters.add(consumer.waiter);
                mine.add(p);
            }
            consumer.setOwned(mine);
            if (unannounced == null) {
                unannounced = new ArrayList<>();
            }
            unannounced.addAll(gained);
        }
        if (announce && unannounced != null) {
            List<Integer> a = unannounced;
            unannounced = null;
            listener.onPartitionsAssigned(Collections.unmodifiableList(a));
        }
    }

    /**
     * Those of {@code partitions} the listener was told it was assigned; the others are forgotten as
     * never announced: taken and given up again between two polls, they were never read either.
     */
    private List<Integer> announced(List<Integer> partitions) {
        List<Integer> pending = unannounced;
        if (pending == null) {
            return partitions;
        }
        List<Integer> announced = new ArrayList<>(partitions);
        announced.removeAll(pending);
        pending.removeAll(partitions);
        if (pending.isEmpty()) {
            unannounced = null;
        }
        return announced;
    }

    /**
     * The member closes while its topic is open: the listener is told of the partitions it holds and was told of,
     * but for those a revoke callback running now is being told of.
     */
    void revokeAtClose() {
        List<Integer> mine = announced(new ArrayList<>(consumer.ownedSet()));
        if (revoking != null) {
            mine.removeAll(revoking); // closed from the callback that is being told of these
        }
        if (!mine.isEmpty()) {
            listener.onPartitionsRevoked(Collections.unmodifiableList(mine));
        }
    }
}
