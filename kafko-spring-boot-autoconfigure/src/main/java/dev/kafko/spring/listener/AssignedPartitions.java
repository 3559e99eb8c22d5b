package dev.kafko.spring.listener;

import dev.kafko.InvalidPartitionException;
import dev.kafko.OffsetResetPolicy;
import dev.kafko.spring.core.BackendConsumer;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.TopicPartitionOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions of one topic a container member reads by hand ({@code @KafkoListener(topicPartitions = ...)},
 * Kafka's {@code assign}), with their initial offsets: how the container splits a topic's partitions among its
 * members, and what a member does as it starts reading them. Immutable; {@link #start} runs on the member's
 * polling thread.
 */
final class AssignedPartitions {

    /** Logs as the polling loop it is part of. */
    private static final Logger LOG = LoggerFactory.getLogger(ListenerConsumer.class);

    private final String topic;
    private final List<TopicPartitionOffset> partitions;
    private final Set<Integer> numbers;

    AssignedPartitions(String topic, List<TopicPartitionOffset> partitions) {
        this.topic = topic;
        this.partitions = List.copyOf(partitions);
        this.numbers = partitions.stream().map(TopicPartitionOffset::partition)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /**
     * Splits one topic's partitions among {@code concurrency} members as spring-kafka does: in the order given, in
     * contiguous runs of {@code size / concurrency}, the last member taking what is left; one member per partition
     * when there are fewer partitions than {@code concurrency}.
     */
    static List<AssignedPartitions> split(String topic, List<TopicPartitionOffset> ofTopic, int concurrency) {
        int members = Math.min(concurrency, ofTopic.size());
        int each = ofTopic.size() / members;
        List<AssignedPartitions> out = new ArrayList<>(members);
        for (int i = 0; i < members; i++) {
            int end = i == members - 1 ? ofTopic.size() : (i + 1) * each;
            out.add(new AssignedPartitions(topic, ofTopic.subList(i * each, end)));
        }
        return out;
    }

    /** The partitions per topic, in the order given; each partition once. */
    static Map<String, List<TopicPartitionOffset>> byTopic(String listenerId, TopicPartitionOffset[] given) {
        if (given.length == 0) {
            throw new IllegalArgumentException("Listener '" + listenerId + "' names no topic partition");
        }
        Map<String, List<TopicPartitionOffset>> byTopic = new LinkedHashMap<>();
        for (TopicPartitionOffset tpo : given) {
            List<TopicPartitionOffset> ofTopic = byTopic.computeIfAbsent(tpo.topic(), t -> new ArrayList<>());
            if (ofTopic.stream().anyMatch(o -> o.partition() == tpo.partition())) {
                throw new IllegalArgumentException("Listener '" + listenerId + "' names partition " + tpo.partition()
                        + " of topic '" + tpo.topic() + "' twice");
            }
            ofTopic.add(tpo);
        }
        return byTopic;
    }

    /**
     * Refuses a partition the topic does not have, before any member starts.
     *
     * @throws InvalidPartitionException naming the listener, the topic, the partitions and the count
     */
    static void check(String listenerId, String topic, Collection<TopicPartitionOffset> assigned, int partitionCount) {
        Set<Integer> missing = new TreeSet<>();
        for (TopicPartitionOffset tpo : assigned) {
            if (tpo.partition() >= partitionCount) {
                missing.add(tpo.partition());
            }
        }
        if (!missing.isEmpty()) {
            throw new InvalidPartitionException("Listener '" + listenerId + "' cannot start: it is assigned partition(s) "
                    + missing + " of topic '" + topic + "', which has " + partitionCount + " partition(s)");
        }
    }

    /** The partition numbers, in ascending order. */
    Set<Integer> partitions() {
        return numbers;
    }

    List<TopicPartitionOffset> offsets() {
        return partitions;
    }

    /** A consumer of these partitions for the member's group (see {@link LogBackend#assignedConsumer}). */
    BackendConsumer open(LogBackend backend, KafkoMessageListenerContainer member, int maxPollRecords,
                         @Nullable OffsetResetPolicy offsetReset) {
        return offsetReset == null
                ? backend.assignedConsumer(topic, member.getGroupId(), numbers, maxPollRecords, member.createsTopic())
                : backend.assignedConsumer(topic, member.getGroupId(), numbers, maxPollRecords, member.createsTopic(),
                        offsetReset);
    }

    /**
     * The member starts reading its partitions, on its polling thread: the initial offsets are sought (as
     * spring-kafka does each time a manually assigned consumer starts), then {@code assigned} is told of every
     * partition (as a group member is told of the partitions the group gives it: a {@link ConsumerSeekAware}
     * listener may seek them), with the partitions sought (where the member starts them is decided), then
     * {@code commit} is given the positions of the partitions sought, so that the group's offsets and the test
     * helper's progress start there.
     */
    void start(KafkoMessageListenerContainer member, BackendConsumer consumer,
               BiConsumer<Collection<Integer>, Set<Integer>> assigned, Consumer<Map<Integer, Long>> commit) {
        Map<Integer, Long> sought = new LinkedHashMap<>();
        for (TopicPartitionOffset tpo : partitions) {
            Long offset = tpo.offset();
            if (offset == null) {
                continue;
            }
            int p = tpo.partition();
            long current = consumer.position(p);
            consumer.seekToBeginning(List.of(p));
            long start = consumer.position(p);
            consumer.seekToEnd(List.of(p));
            long end = consumer.position(p);
            long target = tpo.relativeToCurrent() ? (offset >= end - current ? end : current + offset) // no overflow
                    : offset < 0 ? end + offset : offset;
            // kept within the log, here: one past the end starts at the end (under offset-reset=fail the consumer
            // would keep it, and every poll would fail until the log reached it), one below the log start (records
            // retention deleted) at the log start (the consumer would reset it to the end under latest, skipping what
            // the log keeps, or fail every poll for good under fail)
            consumer.seek(p, Math.min(Math.max(start, target), end));
            sought.put(p, consumer.position(p));
        }
        if (!sought.isEmpty()) {
            LOG.info("Listener '{}' ({}) starts {} at their initial offsets", member.getListenerId(),
                    member.memberName(), sought.entrySet().stream().map(e -> topic + "-" + e.getKey() + "@"
                            + e.getValue()).collect(Collectors.joining(", ")));
        }
        assigned.accept(numbers, Set.copyOf(sought.keySet()));
        if (!sought.isEmpty()) {
            Map<Integer, Long> now = new LinkedHashMap<>();
            for (int p : sought.keySet()) {
                now.put(p, consumer.position(p)); // where the listener's own assignment seeks left it
            }
            commit.accept(now);
        }
    }

    @Override
    public String toString() {
        return partitions.toString();
    }
}
