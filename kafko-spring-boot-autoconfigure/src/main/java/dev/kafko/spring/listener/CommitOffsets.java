package dev.kafko.spring.listener;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * The offsets one container member has yet to commit, per partition, and the ones it committed, so that
 * a commit never moves back (a late acknowledgment of an earlier record). The partition being advanced
 * record by record is kept aside until another partition or a commit needs it. Polling thread only.
 */
final class CommitOffsets {

    /** Committable offsets not yet committed, per partition. */
    private final Map<Integer, Long> pending = new HashMap<>();
    /** The highest offset this member committed per partition it owns. */
    private final Map<Integer, Long> committed = new HashMap<>();
    /** The partition whose committable offset is being advanced record by record (-1: none). */
    private int openPartition = -1;
    private long openNext;

    /** Makes {@code next} the committable offset of {@code partition} unless a later one is known. */
    void add(int partition, long next) {
        if (partition == openPartition) {
            openNext = Math.max(openNext, next);
            return;
        }
        closeOpenPartition();
        openPartition = partition;
        openNext = next;
    }

    private void closeOpenPartition() {
        if (openPartition >= 0) {
            pending.merge(openPartition, openNext, Math::max);
            openPartition = -1;
        }
    }

    /** The offsets to commit now, each ahead of this member's last commit of its partition; then none pending. */
    Map<Integer, Long> take() {
        closeOpenPartition();
        Map<Integer, Long> offsets = forward(pending);
        pending.clear();
        return offsets;
    }

    /** {@link #take()} for {@code partitions} only (they are being revoked); their last commits are forgotten. */
    Map<Integer, Long> takeRevoked(Collection<Integer> partitions) {
        closeOpenPartition();
        Map<Integer, Long> handOver = new HashMap<>();
        for (Integer p : partitions) {
            Long offset = pending.remove(p);
            if (offset != null) {
                handOver.put(p, offset);
            }
        }
        Map<Integer, Long> offsets = forward(handOver);
        partitions.forEach(committed::remove);
        return offsets;
    }

    private Map<Integer, Long> forward(Map<Integer, Long> offsets) {
        Map<Integer, Long> ahead = new HashMap<>(offsets.size());
        offsets.forEach((p, o) -> {
            if (o > committed.getOrDefault(p, -1L)) {
                ahead.put(p, o);
            }
        });
        return ahead;
    }

    /** {@code offsets} were committed. */
    void committed(Map<Integer, Long> offsets) {
        offsets.forEach((p, o) -> committed.merge(p, o, Math::max));
    }

    /**
     * {@code partitions} were assigned: the group's commit may have moved while another member owned them,
     * and a seek made now may move it back.
     */
    void assigned(Collection<Integer> partitions) {
        partitions.forEach(committed::remove);
    }

    /** Nothing pending any more (the topic was deleted). */
    void dropPending() {
        pending.clear();
        openPartition = -1;
    }

    /** A new consumer of a topic created again under its name: its offsets start again. */
    void reset() {
        dropPending();
        committed.clear();
    }
}
