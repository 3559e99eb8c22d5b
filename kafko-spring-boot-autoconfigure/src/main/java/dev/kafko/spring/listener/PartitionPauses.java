package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The partitions a container was asked to pause ({@link MessageListenerContainer#pausePartition}), per topic, for
 * its members to take into effect ({@link MemberPauses}). A request outlives the partition's moves between the
 * container's members: whichever member reads the partition keeps it paused. Any thread.
 */
final class PartitionPauses {

    private final Map<String, Set<Integer>> requested = new ConcurrentHashMap<>();
    /** Counts the changes of the requests: a member that saw this count has nothing new to take into effect. */
    private final AtomicInteger version = new AtomicInteger();

    /** Asks for the partition to be paused; {@code false} when it was already. */
    boolean request(String topic, int partition) {
        Objects.requireNonNull(topic, "topic");
        boolean added = requested.computeIfAbsent(topic, t -> ConcurrentHashMap.newKeySet()).add(partition);
        if (added) {
            version.incrementAndGet();
        }
        return added;
    }

    /** Withdraws the request; {@code false} when there was none. */
    boolean release(String topic, int partition) {
        Objects.requireNonNull(topic, "topic");
        Set<Integer> partitions = requested.get(topic);
        boolean removed = partitions != null && partitions.remove(partition);
        if (removed) {
            version.incrementAndGet();
        }
        return removed;
    }

    boolean isRequested(String topic, int partition) {
        Set<Integer> partitions = requested.get(topic);
        return partitions != null && partitions.contains(partition);
    }

    /** Whether a pause of the partition of one of {@code records}, all of {@code topic}, was asked for. */
    boolean anyRequested(String topic, List<KafkoRecord> records) {
        Set<Integer> partitions = requested.get(topic);
        if (partitions != null) {
            for (KafkoRecord record : records) {
                if (partitions.contains(record.partition())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The partitions of the topic asked to be paused now (a copy). */
    Set<Integer> requested(String topic) {
        Set<Integer> partitions = requested.get(topic);
        return partitions == null ? Set.of() : Set.copyOf(partitions);
    }

    /** The count of changes so far. */
    int version() {
        return version.get();
    }
}
