package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The offsets one container member has yet to commit, per partition, and the ones it committed, so that
 * a commit never moves back (a late acknowledgment of an earlier record). The partition being advanced
 * record by record is kept aside until another partition or a commit needs it. Polling thread only,
 * except {@link #queueForeign}, for acknowledgments made on other threads.
 */
final class CommitOffsets {

    /** Acknowledgments made on other threads, as {partition, next offset, epoch}; drained by the polling thread. */
    private final ConcurrentLinkedQueue<long[]> foreign = new ConcurrentLinkedQueue<>();
    /**
     * Bumped whenever partitions are assigned or the consumer is replaced; an acknowledgment remembers the
     * epoch of its delivery, so that one made for an earlier ownership of its partition (revoked and
     * assigned again, or of a topic since deleted and created again) is never committed.
     */
    private long epoch;
    /** The epoch at which each partition was last assigned. */
    private final Map<Integer, Long> assignedAt = new HashMap<>();
    /** Acknowledgments of an epoch before this one belong to a consumer that no longer exists. */
    private long resetAt;

    /** Committable offsets not yet committed, per partition. */
    private final Map<Integer, Long> pending = new HashMap<>();
    /** The highest offset this member committed per partition it owns. */
    private final Map<Integer, Long> committed = new HashMap<>();
    /** The partition whose committable offset is being advanced record by record (-1: none). */
    private int openPartition = -1;
    private long openNext;

    /** The next offset of each partition of {@code records}. */
    static Map<Integer, Long> nextOffsets(List<KafkoRecord> records) {
        Map<Integer, Long> next = new HashMap<>();
        for (KafkoRecord r : records) {
            putMax(next, r.partition(), r.offset() + 1);
        }
        return next;
    }

    /** "the records up to t-0@4, t-1@2 (...) were", from the next offsets of a commit. */
    static String describe(String topic, Map<Integer, Long> nextOffsets) {
        String at = new TreeMap<>(nextOffsets).entrySet().stream()
                .map(e -> topic + "-" + e.getKey() + "@" + (e.getValue() - 1))
                .collect(Collectors.joining(", "));
        return "the records up to " + at + " (each one since this member's last commit there) were";
    }

    /** The current epoch, for an acknowledgment handed out now. */
    long epoch() {
        return epoch;
    }

    private boolean current(int partition, long ackEpoch) {
        return ackEpoch >= resetAt && assignedAt.getOrDefault(partition, resetAt) <= ackEpoch;
    }

    /** An acknowledgment on the polling thread, of a delivery made during {@code ackEpoch}; false when stale. */
    boolean acknowledge(int partition, long next, long ackEpoch) {
        if (!current(partition, ackEpoch)) {
            return false;
        }
        add(partition, next);
        return true;
    }

    /** Any thread: an acknowledgment of these next offsets, for the polling thread's next drain. */
    void queueForeign(Map<Integer, Long> next, long ackEpoch) {
        next.forEach((p, o) -> foreign.add(new long[] {p, o, ackEpoch}));
    }

    /**
     * Makes the queued acknowledgments of partitions in {@code owned}, made since the partition was last
     * assigned, committable; the others (their partition moved to another member, or was assigned again
     * since) go to {@code dropped} as (partition, offset of the record).
     */
    void drainForeign(Supplier<Set<Integer>> owned, BiConsumer<Integer, Long> dropped) {
        if (foreign.isEmpty()) {
            return;
        }
        Set<Integer> assignment = owned.get();
        for (long[] ack = foreign.poll(); ack != null; ack = foreign.poll()) {
            int partition = (int) ack[0];
            if (assignment.contains(partition) && current(partition, ack[2])) {
                add(partition, ack[1]);
            } else {
                dropped.accept(partition, ack[1] - 1);
            }
        }
    }

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
            putMax(pending, openPartition, openNext);
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

    /**
     * {@link #take()}, but no partition of {@code firstUnfinished} at or past its offset there: what is pending beyond
     * it (an acknowledgment the listener made for a record it then failed on, or for those after it) stays pending.
     */
    Map<Integer, Long> takeBefore(Map<Integer, Long> firstUnfinished) {
        closeOpenPartition();
        Map<Integer, Long> before = new HashMap<>(pending);
        pending.clear();
        firstUnfinished.forEach((partition, first) -> {
            Long next = before.get(partition);
            if (next != null && next > first) {
                pending.put(partition, next);
                before.put(partition, first);
            }
        });
        return forward(before);
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
        for (Map.Entry<Integer, Long> e : offsets.entrySet()) {
            if (e.getValue() > committed.getOrDefault(e.getKey(), -1L)) {
                ahead.put(e.getKey(), e.getValue());
            }
        }
        return ahead;
    }

    /** {@code offsets} were committed. */
    void committed(Map<Integer, Long> offsets) {
        for (Map.Entry<Integer, Long> e : offsets.entrySet()) {
            putMax(committed, e.getKey(), e.getValue());
        }
    }

    /** Makes {@code offset} the one of {@code partition} in {@code offsets} unless that holds a greater one. */
    private static void putMax(Map<Integer, Long> offsets, int partition, long offset) {
        Long known = offsets.get(partition);
        offsets.put(partition, known == null ? offset : Math.max(known, offset));
    }

    /**
     * {@code partitions} were assigned: the group's commit may have moved while another member owned them,
     * and a seek made now may move it back.
     */
    void assigned(Collection<Integer> partitions) {
        epoch++;
        for (Integer p : partitions) {
            committed.remove(p);
            assignedAt.put(p, epoch);
        }
    }

    /** Nothing pending any more (the topic was deleted), the queued acknowledgments included. */
    void dropPending() {
        pending.clear();
        openPartition = -1;
        foreign.clear();
    }

    /** A new consumer of a topic created again under its name: its offsets start again. */
    void reset() {
        dropPending();
        committed.clear();
        assignedAt.clear();
        resetAt = ++epoch;
    }
}
