package dev.kafko.spring.listener;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps the registered {@link ConsumerSeekAware.ConsumerSeekCallback}s of a listener's members, and which
 * partitions each one reads, so that a listener bean that extends it can seek all its partitions from any thread:
 * {@link #seekToBeginning()} replays what the log keeps, as spring-kafka's class of the same name. A subclass that
 * overrides {@link #registerSeekCallback}, {@link #onPartitionsAssigned(String, Map, ConsumerSeekCallback)},
 * {@link #onPartitionsRevoked} or {@link #unregisterSeekCallback} calls the method it overrides: without the
 * callback it registers, a member's partitions are not kept, and the seeks of this class skip them.
 */
public abstract class AbstractConsumerSeekAware implements ConsumerSeekAware {

    /** A partition of a topic as one group reads it: a bean's listeners of several groups each have one. */
    private record GroupPartition(String group, String topic, int partition) {
    }

    /** Each running member's callback, by its polling thread. */
    private final Map<Thread, ConsumerSeekCallback> callbackForThread = new ConcurrentHashMap<>();
    /** The callback of the member reading each partition, per group. */
    private final Map<GroupPartition, ConsumerSeekCallback> callbacks = new ConcurrentHashMap<>();

    @Override
    public void registerSeekCallback(ConsumerSeekCallback callback) {
        callbackForThread.put(Thread.currentThread(), callback);
    }

    @Override
    public void onPartitionsAssigned(String topic, Map<Integer, Long> assignments, ConsumerSeekCallback callback) {
        ConsumerSeekCallback registered = callbackForThread.get(Thread.currentThread());
        if (registered != null) {
            for (Integer p : assignments.keySet()) {
                callbacks.put(new GroupPartition(registered.getGroupId(), topic, p), registered);
            }
        }
        ConsumerSeekAware.super.onPartitionsAssigned(topic, assignments, callback);
    }

    @Override
    public void onPartitionsRevoked(String topic, Collection<Integer> partitions) {
        ConsumerSeekCallback registered = callbackForThread.get(Thread.currentThread());
        if (registered != null) {
            for (Integer p : partitions) {
                callbacks.remove(new GroupPartition(registered.getGroupId(), topic, p), registered);
            }
        }
    }

    @Override
    public void unregisterSeekCallback() {
        ConsumerSeekCallback registered = callbackForThread.remove(Thread.currentThread());
        if (registered != null) {
            callbacks.values().removeIf(c -> c == registered);
        }
    }

    /**
     * The callbacks of the members that read {@code partition} of {@code topic} now, one per group (a bean's
     * listeners of different groups each read it); empty when none does.
     */
    protected List<ConsumerSeekCallback> getSeekCallbacksFor(String topic, int partition) {
        List<ConsumerSeekCallback> found = new ArrayList<>();
        callbacks.forEach((gp, callback) -> {
            if (gp.topic().equals(topic) && gp.partition() == partition) {
                found.add(callback);
            }
        });
        return found;
    }

    /**
     * The callbacks of every partition read now, by topic and partition, as spring-kafka's method of the same name:
     * one per group that reads it (a bean's listeners of different groups each read it). A snapshot, sorted by topic
     * and partition; later rebalances do not change it.
     */
    protected Map<String, Map<Integer, List<ConsumerSeekCallback>>> getTopicsAndCallbacks() {
        Map<String, Map<Integer, List<ConsumerSeekCallback>>> byTopic = new TreeMap<>();
        callbacks.forEach((gp, callback) -> byTopic.computeIfAbsent(gp.topic(), t -> new TreeMap<>())
                .computeIfAbsent(gp.partition(), p -> new ArrayList<>()).add(callback));
        return byTopic;
    }

    /** Each running member's callback, with the partitions it reads now, per topic. */
    protected Map<ConsumerSeekCallback, Map<String, List<Integer>>> getCallbacksAndTopics() {
        Map<ConsumerSeekCallback, Map<String, List<Integer>>> byCallback = new LinkedHashMap<>();
        callbacks.forEach((tp, callback) -> byCallback.computeIfAbsent(callback, c -> new LinkedHashMap<>())
                .computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition()));
        return byCallback;
    }

    /** Every partition a member reads now is read again from the oldest record the log keeps. */
    public void seekToBeginning() {
        forEachMember((callback, topic, partitions) -> callback.seekToBeginning(topic, partitions));
    }

    /** Every partition a member reads now skips what is in the log: only records sent from now on are read. */
    public void seekToEnd() {
        forEachMember((callback, topic, partitions) -> callback.seekToEnd(topic, partitions));
    }

    /** Every partition a member reads now is read again from its first record at or after {@code epochMillis}. */
    public void seekToTimestamp(long epochMillis) {
        if (epochMillis < 0) {
            throw new IllegalArgumentException("cannot seek to negative timestamp " + epochMillis);
        }
        forEachMember((callback, topic, partitions) -> callback.seekToTimestamp(topic, partitions, epochMillis));
    }

    private interface MemberSeek {
        void seek(ConsumerSeekCallback callback, String topic, List<Integer> partitions);
    }

    private void forEachMember(MemberSeek seek) {
        getCallbacksAndTopics().forEach((callback, topics) -> topics.forEach((topic, partitions) -> {
            try {
                seek.seek(callback, topic, partitions);
            } catch (IllegalStateException stopped) {
                // the member stopped meanwhile: its partitions are read by whoever reads them next, from the commit
            }
        }));
    }
}
