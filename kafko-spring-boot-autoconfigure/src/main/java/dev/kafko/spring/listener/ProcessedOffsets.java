package dev.kafko.spring.listener;

import java.util.HashMap;
import java.util.Map;

/**
 * The offset after the last record each partition's listener finished (returned or recovered),
 * per topic, shared by the members of one container. Members call {@link #advance} on their
 * polling threads; any thread may {@link #snapshot} or {@link #awaitChange}. Monitor-based: a
 * waiting thread parks, nobody spins.
 */
final class ProcessedOffsets {

    private final Map<String, Map<Integer, Long>> offsets = new HashMap<>();
    private int waiters;

    synchronized void advance(String topic, int partition, long nextOffset) {
        offsets.computeIfAbsent(topic, t -> new HashMap<>()).merge(partition, nextOffset, Math::max);
        if (waiters > 0) {
            notifyAll();
        }
    }

    /** Forgets every offset: the container starts a new run. */
    synchronized void clear() {
        offsets.clear();
    }

    synchronized Map<Integer, Long> snapshot(String topic) {
        return Map.copyOf(offsets.getOrDefault(topic, Map.of()));
    }

    /** Waits until a member advances or {@code millis} pass. */
    synchronized void awaitChange(long millis) throws InterruptedException {
        waiters++;
        try {
            wait(Math.max(1, millis));
        } finally {
            waiters--;
        }
    }
}
