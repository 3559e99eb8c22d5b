package dev.kafko.spring.listener;

import dev.kafko.UnknownTopicException;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.TopicPartitionOffset;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * How far a listener's container is from the ends of its topics, and the wait until it has caught up with them
 * ({@link ConcurrentMessageListenerContainer#awaitCaughtUp}): a partition is caught up when the container processed
 * (or recovered) every record below its target, or its group committed past it, and no member has an interceptor
 * still to tell of records it holds. Any thread.
 */
final class CatchUp {

    private final ConcurrentMessageListenerContainer container;
    private final LogBackend backend;
    private final ProcessedOffsets processed;
    /** The partitions read by hand per topic; null for a container of its group (every partition). */
    private final @Nullable Map<String, List<TopicPartitionOffset>> assigned;

    CatchUp(ConcurrentMessageListenerContainer container, LogBackend backend, ProcessedOffsets processed,
            @Nullable Map<String, List<TopicPartitionOffset>> assigned) {
        this.container = container;
        this.backend = backend;
        this.processed = processed;
        this.assigned = assigned;
    }

    /** The end offsets of {@code topics} now, per topic and partition read; a pattern's deleted topic has none. */
    Map<String, Map<Integer, Long>> endOffsets(List<String> topics) {
        Map<String, Map<Integer, Long>> targets = new HashMap<>();
        for (String topic : topics) {
            try {
                Map<Integer, Long> ends = new HashMap<>(backend.endOffsets(topic));
                if (assigned != null) { // only the partitions read
                    ends.keySet().removeIf(p -> assigned.get(topic).stream().noneMatch(o -> o.partition() == p));
                }
                targets.put(topic, ends);
            } catch (UnknownTopicException e) {
                if (container.getTopicPattern() == null) {
                    throw e;
                }
                // a pattern's topic that was deleted: not matched any more, nothing of it to wait for
            }
        }
        return targets;
    }

    /**
     * Waits until every partition of {@code targets} is caught up, {@code timeout} passed or a member died.
     *
     * @return the partitions still behind, and the members with seeks still to make; empty when caught up
     */
    List<String> await(Map<String, Map<Integer, Long>> targets, Duration timeout,
                       List<KafkoMessageListenerContainer> members) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<String> behind = behind(targets, members);
            long left = deadline - System.nanoTime();
            if (behind.isEmpty() || left <= 0 || container.hasDeadMember()) {
                return behind;
            }
            processed.awaitChange(Math.min(Duration.ofNanos(left).toMillis(), 100));
        }
    }

    private List<String> behind(Map<String, Map<Integer, Long>> targets, List<KafkoMessageListenerContainer> members) {
        List<String> behind = new ArrayList<>();
        for (KafkoMessageListenerContainer member : members) {
            if (member.hasPendingSeeks()) {
                behind.add(member.memberName() + " has seeks to make");
            }
        }
        targets.forEach((topic, ends) -> {
            Object topicId = backend.topicId(topic);
            Map<Integer, Long> done = processed.snapshot(topic, topicId);
            Set<Integer> replaying = processed.replaying(topic, topicId);
            Map<Integer, Long> committed;
            try {
                committed = backend.committedOffsets(topic, container.getGroupId());
            } catch (UnknownTopicException e) {
                if (container.getTopicPattern() == null) {
                    throw e;
                }
                return; // a pattern's topic deleted during the wait: nothing of it is waited for any more
            }
            ends.forEach((partition, end) -> {
                // a seek made is committed at once, and its progress set back (a seek not yet made is pending); one
                // made as the partition was assigned is not committed: its replay counts by what is finished alone
                long reached = replaying.contains(partition) ? done.getOrDefault(partition, 0L)
                        : Math.max(done.getOrDefault(partition, 0L), committed.getOrDefault(partition, 0L));
                if (reached < end) {
                    behind.add(topic + "-" + partition + " at " + reached + " of " + end);
                }
            });
        });
        // after the offsets: a member says it has its interceptor to tell before it finishes a record, and stops
        // once it told it; looked at first, a record taken, committed and being told of between the two looks counts
        // as finished (under the record and manual-immediate ack modes the commit comes before afterRecord)
        for (KafkoMessageListenerContainer member : members) {
            if (member.hasInterceptorToTell()) {
                behind.add(member.memberName() + " has its interceptor still to tell how its records went");
            }
        }
        return behind;
    }
}
