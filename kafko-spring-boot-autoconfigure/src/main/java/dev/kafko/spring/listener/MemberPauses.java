package dev.kafko.spring.listener;

import dev.kafko.spring.core.BackendConsumer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The partitions one member keeps paused because its container was asked to ({@link PartitionPauses}): taken into
 * effect on its consumer before each poll, and as partitions are assigned to it, before the poll that assigned
 * them reads them. While the whole container is paused, every partition the member reads is paused on its consumer
 * ({@link #pauseAll}), also those a rebalance gives it, so that it polls on, taking part in its group's rebalances,
 * and reads nothing until {@link #resumeAll}. And the partitions a retry topic's member holds back until the
 * back-off of the record at their
 * position ends ({@link #hold}): paused on the consumer too, so that its polls read its other partitions as usual,
 * but not a pause of the container (no event, not in {@link #paused()}); a partition paused both ways is resumed
 * once neither holds it, and a seek of a held partition ends its hold. Polling thread, but for {@link #paused()}
 * (any thread).
 */
final class MemberPauses {

    private final PartitionPauses requests;
    private final String topic;
    private final MemberEvents events;
    /** The {@link PartitionPauses#version()} last taken into effect. */
    private int applied;
    /** The partitions paused on the consumer now (any thread may read it; the polling thread replaces it). */
    private volatile Set<Integer> paused = Set.of();
    /** The partitions held back for a back-off, each with the time it ends ({@link #hold}); polling thread. */
    private final Map<Integer, Long> held = new HashMap<>();
    /** Whether every partition is paused on the consumer because the whole container is ({@link #pauseAll}). */
    private boolean all;

    MemberPauses(PartitionPauses requests, String topic, MemberEvents events) {
        this.requests = requests;
        this.topic = topic;
        this.events = events;
        this.applied = requests.version();
    }

    /** The partitions this member has paused now. Any thread. */
    Set<Integer> paused() {
        return paused;
    }

    /** Before a poll: pauses and resumes the assigned partitions as the requests changed since the last one. */
    void apply(BackendConsumer consumer, Set<Integer> assigned) {
        int version = requests.version();
        if (version == applied) {
            return;
        }
        Set<Integer> wanted = new TreeSet<>(requests.requested(topic));
        wanted.retainAll(assigned);
        Set<Integer> now = paused;
        Set<Integer> pause = new TreeSet<>(wanted);
        pause.removeAll(now);
        Set<Integer> resume = new TreeSet<>(now);
        resume.removeAll(wanted);
        Set<Integer> unpause = new TreeSet<>(resume);
        unpause.removeAll(held.keySet()); // still held back for a back-off
        if (!unpause.isEmpty()) {
            consumer.resume(unpause);
        }
        if (!pause.isEmpty()) {
            consumer.pause(pause);
        }
        // only once the consumer took them: a call that failed (its topic deleted) is not counted as done
        applied = version;
        paused = Set.copyOf(wanted);
        events.partitionsPaused(pause, true);
        events.partitionsPaused(resume, false);
    }

    /**
     * The whole container is paused: every partition the consumer reads is paused on it, and so is each one a
     * rebalance gives it until {@link #resumeAll}, so that its polls take part in the group's rebalances and read
     * nothing, as spring-kafka's paused consumer does.
     *
     * @return false when the backend's consumers cannot pause partitions: the member must not poll while paused
     */
    boolean pauseAll(BackendConsumer consumer) {
        if (all) {
            return true;
        }
        try {
            consumer.pause(consumer.assignment());
        } catch (UnsupportedOperationException e) {
            return false;
        }
        all = true;
        return true;
    }

    /**
     * The container was resumed: the partitions {@link #pauseAll} paused are read again, but for those a pause of
     * their own or a back-off holds. Before the first poll after the resume.
     */
    void resumeAll(BackendConsumer consumer) {
        if (!all) {
            return;
        }
        Set<Integer> resume = new TreeSet<>(consumer.assignment());
        resume.removeAll(paused);
        resume.removeAll(held.keySet());
        if (!resume.isEmpty()) {
            consumer.resume(resume);
        }
        all = false;
    }

    /**
     * Partitions were assigned (inside a poll, before it reads): those asked to be paused are paused now, and all of
     * them while the whole container is paused.
     */
    void assigned(BackendConsumer consumer, Collection<Integer> partitions) {
        if (all && !partitions.isEmpty()) {
            consumer.pause(partitions);
        }
        Set<Integer> pause = new TreeSet<>();
        for (int p : partitions) {
            if (requests.isRequested(topic, p) && !paused.contains(p)) {
                pause.add(p);
            }
        }
        if (pause.isEmpty()) {
            return;
        }
        if (!all) {
            consumer.pause(pause);
        }
        Set<Integer> now = new HashSet<>(paused);
        now.addAll(pause);
        paused = Set.copyOf(now);
        events.partitionsPaused(pause, true);
    }

    /**
     * Holds a partition back until {@code untilMillis} (the backend's clock): its record at its position waits for
     * its back-off. Its next poll after that time reads it again ({@link #releaseDue}); a revocation or the loss of
     * the consumer ends the hold (the partition's next reader finds the record waiting, as this member would).
     */
    void hold(BackendConsumer consumer, int partition, long untilMillis) {
        held.put(partition, untilMillis);
        if (!paused.contains(partition)) {
            consumer.pause(Set.of(partition)); // nothing when it is paused already
        }
    }

    /** Before a poll: resumes the partitions whose back-off ended by {@code nowMillis} (unless the container pauses them). */
    void releaseDue(BackendConsumer consumer, long nowMillis) {
        if (held.isEmpty()) {
            return;
        }
        List<Integer> due = new ArrayList<>();
        held.forEach((partition, untilMillis) -> {
            if (untilMillis <= nowMillis) {
                due.add(partition);
            }
        });
        release(consumer, due);
    }

    /**
     * How long a poll may wait, at most {@code millis}: no longer than until the first back-off of the held
     * partitions ends (at least 1 ms; {@link #releaseDue} first).
     */
    long pollMillis(long millis, long nowMillis) {
        long wait = millis;
        for (long until : held.values()) {
            wait = Math.min(wait, Math.max(1, until - nowMillis));
        }
        return wait;
    }

    /**
     * Partitions were sought ({@link ConsumerSeekAware}'s seeks): those held back for a back-off are read again from
     * where they were sought (unless the container pauses them), whose record there is held back anew if it is not
     * due; the record that was held is no longer at their position.
     */
    void sought(BackendConsumer consumer, Collection<Integer> partitions) {
        if (!held.isEmpty()) {
            release(consumer, partitions);
        }
    }

    /**
     * Ends the holds of {@code partitions} (those held): resumed on the consumer unless the container pauses them,
     * the whole container or the partition.
     */
    private void release(BackendConsumer consumer, Collection<Integer> partitions) {
        Set<Integer> resume = null;
        for (int p : partitions) {
            if (held.remove(p) != null && !all && !paused.contains(p)) {
                if (resume == null) {
                    resume = new TreeSet<>();
                }
                resume.add(p);
            }
        }
        if (resume != null) {
            consumer.resume(resume);
        }
    }

    /** Whether a partition is held back for a back-off now. */
    boolean holding() {
        return !held.isEmpty();
    }

    /** Partitions were revoked: the consumer no longer pauses them (another member may). */
    void revoked(Collection<Integer> partitions) {
        held.keySet().removeAll(partitions);
        if (paused.isEmpty()) {
            return;
        }
        Set<Integer> now = new HashSet<>(paused);
        now.removeAll(partitions);
        paused = Set.copyOf(now);
    }

    /** The member lost its consumer (its topic was deleted): its next one pauses what it is assigned anew. */
    void clear() {
        paused = Set.of();
        held.clear();
        all = false;
    }
}
