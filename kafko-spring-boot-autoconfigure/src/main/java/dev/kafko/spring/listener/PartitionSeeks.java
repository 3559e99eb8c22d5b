package dev.kafko.spring.listener;

import dev.kafko.spring.core.BackendConsumer;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * The seeks of a {@link ConsumerSeekAware.ConsumerSeekCallback}, checked when asked for and made on a member's
 * polling thread by a {@link Seek} per partition; its subclasses decide when: at once ({@link AssignmentSeeks}) or
 * before the member's next delivery ({@link MemberSeeks}).
 */
abstract class PartitionSeeks implements ConsumerSeekAware.ConsumerSeekCallback {

    /** One partition's seek, made on the polling thread. */
    @FunctionalInterface
    interface Seek {
        void seek(BackendConsumer consumer, int partition);
    }

    final KafkoMessageListenerContainer container;

    /** Makes {@code seek} on {@code partition}; a seek that fails leaves the position where it was. */
    static void seekOrStay(Seek seek, BackendConsumer consumer, int partition) {
        long before = consumer.position(partition);
        try {
            seek.seek(consumer, partition);
        } catch (RuntimeException e) {
            consumer.seek(partition, before);
            throw e;
        }
    }

    PartitionSeeks(KafkoMessageListenerContainer container) {
        this.container = container;
    }

    /**
     * Has {@code seek} made on each of {@code partitions} of the member's topic, described as {@code what} in logs.
     *
     * @throws IllegalStateException when the callback may no longer be used
     * @throws IllegalArgumentException when the partitions are not ones the callback may seek
     */
    abstract void submit(Collection<Integer> partitions, String what, Seek seek);

    @Override
    public void seek(String topic, int partition, long offset) {
        checkTopic(topic);
        if (offset < 0) {
            throw new IllegalArgumentException("Listener '" + container.getListenerId() + "' cannot seek " + topic
                    + "-" + partition + " to negative offset " + offset);
        }
        submit(partitions(partition), "to offset " + offset, (c, p) -> c.seek(p, offset));
    }

    @Override
    public void seek(String topic, int partition, Function<Long, Long> offsetComputeFunction) {
        checkTopic(topic);
        Objects.requireNonNull(offsetComputeFunction, "offsetComputeFunction");
        submit(partitions(partition), "to a computed offset", (c, p) -> {
            long position = c.position(p);
            Long offset = offsetComputeFunction.apply(position);
            if (offset == null || offset < 0) {
                throw new IllegalArgumentException("the offset function gave " + offset + " for position " + position);
            }
            c.seek(p, offset);
        });
    }

    @Override
    public void seekToBeginning(String topic, Collection<Integer> partitions) {
        checkTopic(topic);
        submit(partitions(partitions), "to the beginning", (c, p) -> c.seekToBeginning(List.of(p)));
    }

    @Override
    public void seekToEnd(String topic, Collection<Integer> partitions) {
        checkTopic(topic);
        submit(partitions(partitions), "to the end", (c, p) -> c.seekToEnd(List.of(p)));
    }

    @Override
    public void seekRelative(String topic, int partition, long offset, boolean toCurrent) {
        checkTopic(topic);
        String from = toCurrent ? "the current position" : offset >= 0 ? "the beginning" : "the end";
        submit(partitions(partition), "by " + offset + " from " + from, (c, p) -> {
            long current = c.position(p);
            List<Integer> one = List.of(p);
            c.seekToBeginning(one);
            long beginning = c.position(p);
            c.seekToEnd(one);
            long end = c.position(p);
            long base = toCurrent ? current : offset >= 0 ? beginning : end;
            c.seek(p, Math.max(beginning, Math.min(end, saturatedAdd(base, offset))));
        });
    }

    @Override
    public void seekToTimestamp(String topic, Collection<Integer> partitions, long epochMillis) {
        checkTopic(topic);
        if (epochMillis < 0) {
            throw new IllegalArgumentException("Listener '" + container.getListenerId() + "' cannot seek " + topic
                    + " to negative timestamp " + epochMillis);
        }
        submit(partitions(partitions), "to timestamp " + epochMillis,
                (c, p) -> c.seekToTimestamp(List.of(p), epochMillis));
    }

    @Override
    public String getGroupId() {
        return container.getGroupId();
    }

    private void checkTopic(String topic) {
        if (!container.topic().equals(topic)) {
            throw new IllegalArgumentException("Listener '" + container.getListenerId() + "' reads "
                    + container.topic() + ", not " + topic);
        }
    }

    private List<Integer> partitions(int partition) {
        return partitions(List.of(partition));
    }

    private List<Integer> partitions(Collection<Integer> partitions) {
        Objects.requireNonNull(partitions, "partitions");
        for (Integer p : partitions) {
            if (p == null) {
                throw new NullPointerException("partitions holds a null partition: " + partitions);
            }
        }
        List<Integer> copy = List.copyOf(partitions);
        int count = copy.isEmpty() ? -1 : partitionCount();
        for (int p : copy) {
            if (p < 0 || (count >= 0 && p >= count)) {
                throw new IllegalArgumentException("Listener '" + container.getListenerId() + "' cannot seek "
                        + container.topic() + "-" + p + ": no such partition"
                        + (count >= 0 ? " (the topic has " + count + ")" : ""));
            }
        }
        return copy;
    }

    /** The partitions of the member's topic now; -1 when that cannot be told (the log closed, the topic deleted). */
    private int partitionCount() {
        try {
            return container.partitionCount();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        if (((a ^ sum) & (b ^ sum)) < 0) {
            return b > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
        return sum;
    }
}
