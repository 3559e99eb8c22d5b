package dev.kafko.spring.listener;

import dev.kafko.spring.core.LogBackend;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The offset after the last record each partition's listener finished (returned or recovered),
 * per topic, shared by the members of one container. Members call {@link #advance} on their
 * polling threads; any thread may {@link #snapshot} or {@link #awaitChange}. A waiting thread parks
 * on a lock's condition, never in a monitor (which would pin a virtual thread on Java 21 to 23); nobody spins.
 *
 * <p>Offsets belong to one topic, not to its name: each is kept with the id of the topic its records
 * came from ({@link dev.kafko.spring.core.LogBackend#topicId}), and a topic deleted and created again
 * under its name starts from nothing. A member may go on finishing records of the deleted topic for a
 * while (it learns of the delete at its next commit or poll): those never count for the new one.
 */
final class ProcessedOffsets {

    /** Tells the id of the topic that has a name now ({@link LogBackend#topicId}). */
    private final LogBackend backend;
    private final Map<String, Progress> offsets = new HashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();

    ProcessedOffsets(LogBackend backend) {
        this.backend = Objects.requireNonNull(backend);
    }

    /**
     * The offsets finished on one topic, the one that had the id, and the partitions a listener sent back to replay
     * as they were assigned (whose group commit, still where it was, says nothing of the replay).
     */
    private record Progress(Object topicId, Map<Integer, Long> next, Set<Integer> replaying) {
    }

    /**
     * Records that the records of {@code partition} before {@code nextOffset} are finished, in the
     * topic that had {@code topicId} when the member's consumer was made. Those of a topic deleted
     * since are dropped: what a topic of that name holds now starts from nothing.
     */
    void advance(String topic, @Nullable Object topicId, int partition, long nextOffset) {
        lock.lock(); // on a polling thread, once a record: no lambda
        try {
            Progress progress = progress(topic, topicId);
            if (progress != null) {
                Long known = progress.next().get(partition);
                progress.next().put(partition, known == null ? nextOffset : Math.max(known, nextOffset));
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * A listener sought {@code partition} to {@code nextOffset} (and committed it): what it finished there is that
     * much now, back as well as forward.
     */
    void rewind(String topic, @Nullable Object topicId, int partition, long nextOffset) {
        lock.lock();
        try {
            Progress progress = progress(topic, topicId);
            if (progress != null) {
                progress.next().put(partition, nextOffset);
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * A listener sought {@code partition} back to {@code nextOffset} as it was assigned, which commits nothing: what it
     * finished there is that much now, and until the container starts again the partition is caught up by what its
     * members finish alone, not by the group's commit, which still stands where it stood before the replay.
     */
    void replay(String topic, @Nullable Object topicId, int partition, long nextOffset) {
        lock.lock();
        try {
            Progress progress = progress(topic, topicId);
            if (progress != null) {
                progress.next().put(partition, nextOffset);
                progress.replaying().add(partition);
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    private <T> T locked(Supplier<T> action) {
        lock.lock();
        try {
            return action.get();
        } finally {
            lock.unlock();
        }
    }

    private @Nullable Progress progress(String topic, @Nullable Object topicId) {
        Progress progress = offsets.get(topic);
        if (progress == null || !progress.topicId().equals(topicId)) {
            // the first offset of another topic under the name: the live one replaces what was kept
            if (topicId == null || !topicId.equals(live(topic))) {
                return null;
            }
            progress = new Progress(topicId, new HashMap<>(), new HashSet<>());
            offsets.put(topic, progress);
        }
        return progress;
    }

    private @Nullable Object live(String topic) {
        try {
            return backend.topicId(topic);
        } catch (RuntimeException e) {
            return null; // the log closed under a member that overran its stop: nothing counts any more
        }
    }

    /**
     * Forgets the offsets of a topic no longer read (a pattern's deleted topic): a listener over short-lived topics
     * keeps no entry, nor the deleted topic's id, per topic it ever read.
     */
    void forget(String topic) {
        locked(() -> offsets.remove(topic));
    }

    /** Forgets every offset: the container starts a new run. */
    void clear() {
        lock.lock();
        try {
            offsets.clear();
        } finally {
            lock.unlock();
        }
    }

    /** The offsets finished on the topic that has {@code topicId} (none when that is not the one kept). */
    Map<Integer, Long> snapshot(String topic, @Nullable Object topicId) {
        return locked(() -> {
            Progress progress = offsets.get(topic);
            return progress == null || !Objects.equals(progress.topicId(), topicId) ? Map.<Integer, Long>of()
                    : Map.copyOf(progress.next());
        });
    }

    /** The partitions of the topic that has {@code topicId} that are replayed from an assignment's seek. */
    Set<Integer> replaying(String topic, @Nullable Object topicId) {
        return locked(() -> {
            Progress progress = offsets.get(topic);
            return progress == null || !Objects.equals(progress.topicId(), topicId) ? Set.<Integer>of()
                    : Set.copyOf(progress.replaying());
        });
    }

    /** Wakes the waits: something they look at besides the offsets changed (a member told its interceptor). */
    void signalChange() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits until a member advances or {@code millis} pass. */
    void awaitChange(long millis) throws InterruptedException {
        lock.lock();
        try {
            changed.await(Math.max(1, millis), TimeUnit.MILLISECONDS);
        } finally {
            lock.unlock();
        }
    }
}
