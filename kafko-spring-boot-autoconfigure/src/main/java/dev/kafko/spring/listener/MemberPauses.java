package dev.kafko.spring.listener;

import dev.kafko.spring.core.BackendConsumer;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * The partitions one member keeps paused because its container was asked to ({@link PartitionPauses}): taken into
 * effect on its consumer before each poll, and as partitions are assigned to it, before the poll that assigned
 * them reads them. Polling thread, but for {@link #paused()} (any thread).
 */
final class MemberPauses {

    private final PartitionPauses requests;
    private final String topic;
    private final MemberEvents events;
    /** The {@link PartitionPauses#version()} last taken into effect. */
    private int applied;
    /** The partitions paused on the consumer now (any thread may read it; the polling thread replaces it). */
    private volatile Set<Integer> paused = Set.of();

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
        if (!resume.isEmpty()) {
            consumer.resume(resume);
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

    /** Partitions were assigned (inside a poll, before it reads): those asked to be paused are paused now. */
    void assigned(BackendConsumer consumer, Collection<Integer> partitions) {
        Set<Integer> pause = new TreeSet<>();
        for (int p : partitions) {
            if (requests.isRequested(topic, p) && !paused.contains(p)) {
                pause.add(p);
            }
        }
        if (pause.isEmpty()) {
            return;
        }
        consumer.pause(pause);
        Set<Integer> now = new HashSet<>(paused);
        now.addAll(pause);
        paused = Set.copyOf(now);
        events.partitionsPaused(pause, true);
    }

    /** Partitions were revoked: the consumer no longer pauses them (another member may). */
    void revoked(Collection<Integer> partitions) {
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
    }
}
