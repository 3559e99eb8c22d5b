package dev.kafko.internal.broker;

import dev.kafko.CommitFailedException;
import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.InterruptException;
import dev.kafko.InvalidPartitionException;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoRecord;
import dev.kafko.OffsetOutOfRangeException;
import dev.kafko.OffsetResetPolicy;
import dev.kafko.internal.log.PartitionLog;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Internal: a {@link Consumer}, used by one thread at a time; only {@link #wakeup()} may be called
 * from another thread.
 *
 * <p>An anonymous consumer is assigned every partition (also those added later) and starts at
 * offset 0 (below the log start, its reset policy applies at the first read). A group member shares the partitions with the live members of its group as
 * {@link GroupCoordinator} describes; rebalance callbacks run inside {@link #poll}. Its start
 * position on a partition is the group's committed offset, or, without one, the log start
 * ({@code EARLIEST} and {@code FAIL}) or the log end ({@code LATEST}).
 *
 * <p><b>Fixed assignment.</b> A consumer made with {@link ConsumerOptions#partitions()} reads those partitions
 * and no others, for its whole life: an anonymous one from offset 0, one of a group from the group's committed
 * offset (else as the reset policy says). It never joins the group: no member's range changes, no callback
 * runs, and its commits are refused while the group has live members ({@link CommitFailedException}).
 *
 * <p><b>Positions outside the log.</b> A position above the end (a seek past it, or an offset committed
 * past it; one found past the end at open was already moved there by
 * {@link GroupCoordinator#moveCommitsPastTheEnd}) is moved to the end when it is set, under
 * {@code EARLIEST} and {@code LATEST}: records appended after that are read, none is skipped. Before
 * each read a position is checked against the log: one below the log start (retention deleted those
 * records) or still above the end is reset by the consumer's {@link OffsetResetPolicy}:
 * {@code EARLIEST} moves to the log start (below) or the end (above), {@code LATEST} to the end, and
 * {@code FAIL} throws {@link OffsetOutOfRangeException} from {@code poll}.
 *
 * <p><b>Waiting.</b> {@code poll} parks (no spinning) until a partition owner unparks it after an
 * append, a rebalance or close wakes it, {@link #wakeup()} is called, or the timeout passes.
 *
 * <p>Off the poll path: {@link ConsumerSeeks} (seeks, position), {@link ConsumerCommits} (commits) and, for a
 * group member, {@link ConsumerRebalance} (its rebalances and their callbacks).
 */
final class ConsumerImpl implements Consumer {

    final Waiter waiter = new Waiter();
    private final TopicImpl topic;
    private final @Nullable GroupCoordinator group;
    private final int maxPollRecords;
    private final AtomicBoolean wakeup = new AtomicBoolean();
    private final PartitionPositions positions;
    private final PollFetch fetch;
    private final ConsumerSeeks seeks;
    private final ConsumerCommits commits;
    /** Whether the partitions were given ({@link ConsumerOptions#partitions()}): no group membership, no growth. */
    private final boolean fixed;
    /** A group member's rebalances; null for an anonymous consumer and one with fixed partitions. */
    private final @Nullable ConsumerRebalance rebalance;
    private int[] owned = new int[0];
    /** The owned partitions {@link #pause}d; a poll reads {@link #polled}. Its thread only. */
    private final Set<Integer> paused = new TreeSet<>();
    /** The owned partitions not paused, in {@link #owned}'s order: {@code owned} itself while none is paused. */
    private int[] polled = owned;
    private volatile boolean closed;
    private final ConsumerThreadGuard guard;

    ConsumerImpl(TopicImpl topic, @Nullable GroupCoordinator group, ConsumerOptions options, int defaultMaxPoll,
                 OffsetResetPolicy defaultReset) {
        this.topic = topic;
        this.guard = new ConsumerThreadGuard(topic.name);
        this.group = group;
        this.maxPollRecords = options.maxPollRecords() > 0 ? options.maxPollRecords() : defaultMaxPoll;
        OffsetResetPolicy reset = options.offsetReset() != null ? options.offsetReset() : defaultReset;
        this.positions = new PartitionPositions(topic.name, group == null ? null : group.group, reset);
        this.fetch = new PollFetch(topic, positions, maxPollRecords);
        Set<Integer> given = options.partitions();
        this.fixed = given != null;
        this.seeks = new ConsumerSeeks(this, topic, positions);
        this.commits = new ConsumerCommits(this, topic, group, positions, fixed);
        this.rebalance = group == null || fixed ? null
                : new ConsumerRebalance(this, topic, group, options.rebalanceListener(), positions);
        if (given != null) {
            requireExisting(given);
        }
        if (group != null) {
            // the policy this member starts by, its own or the instance's: the group's lag without a commit follows
            // the last one made (not one refused above, which made nothing)
            group.consumerReset(reset);
        }
        topic.consumers.add(this);
        try {
            if (given != null) {
                assignFixed(given);
            } else if (group == null) {
                growAnonymous();
            } else {
                group.join(this);
                rebalance.sync(false);
            }
        } catch (RuntimeException | Error e) {
            // its group's offsets could not be read: the caller gets no consumer to close, so it leaves now
            // instead of staying a member that holds its range and the partitions it took, unread for good
            leave();
            throw e;
        }
    }

    /** The topic must have every one of {@code partitions} (checked before the consumer is registered). */
    private void requireExisting(Set<Integer> partitions) {
        int count = topic.partitionCount();
        for (int p : partitions) {
            if (p >= count) {
                throw new InvalidPartitionException("partition " + p + " of topic '" + topic.name + "' does not exist:"
                        + " the topic has " + count + " partition(s), 0 to " + (count - 1));
            }
        }
    }

    /** A fixed assignment: those partitions, from offset 0 (anonymous) or where the group starts them. */
    private void assignFixed(Set<Integer> partitions) {
        PartitionActor[] actors = topic.actors();
        positions.grow(actors.length);
        setPolled(toArray(partitions));
        for (int p : owned) {
            if (group != null) {
                positions.set(p, positions.start(group.committed(p), actors[p]));
            } // anonymous: offset 0, as documented (below a log start retention moved, the reset policy decides)
            actors[p].waiters.add(waiter);
        }
    }

    @Nullable GroupCoordinator coordinator() {
        return group;
    }

    @Override
    public String topic() {
        return topic.name;
    }

    @Override
    public Optional<String> group() {
        return group == null ? Optional.empty() : Optional.of(group.group);
    }

    @Override
    public List<KafkoRecord> poll(Duration timeout) {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            return doPoll(timeout);
        }
    }

    private List<KafkoRecord> doPoll(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("poll timeout must not be negative: " + timeout);
        }
        ensureOpen();
        long timeoutNanos = Durations.saturatedNanos(timeout);
        long deadline = System.nanoTime() + timeoutNanos;
        waiter.thread = Thread.currentThread();
        for (;;) {
            if (wakeup.getAndSet(false)) {
                return List.of();
            }
            refreshAssignment();
            List<KafkoRecord> out = fetch.fetch(polled);
            if (!out.isEmpty()) {
                return out;
            }
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return List.of();
            }
            if (Thread.currentThread().isInterrupted()) {
                // a park would return at once, for ever: the poll would spin out its timeout
                throw new InterruptException("interrupted while polling " + topic.name() + " with nothing to return");
            }
            waiter.parking();
            try {
                // re-check after announcing the park: an append that missed the flag is seen here
                if (!wakeup.get() && !anyWork()) {
                    LockSupport.parkNanos(this, remaining);
                }
            } finally {
                waiter.running();
            }
            ensureOpen();
        }
    }

    /**
     * Whether a poll would find something: records, a reset, a rebalance, a closed partition. Called
     * with its waiter's state set to parked: sends lingering in an owned partition are written first (by this
     * thread, when the partition is idle), and none starts to linger while the flag is up.
     */
    private boolean anyWork() {
        if (!fixed && (rebalance != null ? rebalance.changed() : topic.partitionCount() != positionsKnown())) {
            return true;
        }
        PartitionActor[] actors = topic.actors();
        for (int p : polled) {
            PartitionActor a = actors[p];
            if (!a.isOpen()) {
                return true;
            }
            a.readerWaiting();
            PartitionLog log = a.log();
            long pos = positions.get(p);
            if (pos < a.readableEnd() || pos > log.endOffset() || log.logStartOffset() > pos) {
                return true;
            }
        }
        return topic.life() != TopicImpl.Life.OPEN;
    }

    private int positionsKnown() {
        return owned.length;
    }

    private void refreshAssignment() {
        if (fixed) {
            return;
        }
        if (rebalance != null) {
            if (rebalance.due()) {
                rebalance.sync(true);
            }
        } else if (topic.partitionCount() != owned.length) {
            growAnonymous();
        }
    }

    /** Anonymous: every partition, new ones from offset 0. */
    private void growAnonymous() {
        PartitionActor[] actors = topic.actors();
        int old = owned.length;
        if (actors.length == old) {
            return;
        }
        positions.grow(actors.length);
        int[] all = new int[actors.length];
        for (int p = 0; p < actors.length; p++) {
            all[p] = p;
            if (p >= old) {
                // offset 0, as documented (grow): below a log start that retention moved, the reset policy decides
                actors[p].waiters.add(waiter);
            }
        }
        setPolled(all);
    }

    /**
     * Makes {@code partitions} the owned ones: a paused one given up is no longer paused (as in Kafka), and the
     * partitions a poll reads are the rest of the owned ones.
     */
    private void setPolled(int[] partitions) {
        owned = partitions;
        if (paused.isEmpty()) {
            polled = partitions;
            return;
        }
        paused.retainAll(ownedSet());
        int[] unpaused = new int[partitions.length - paused.size()];
        int i = 0;
        for (int p : partitions) {
            if (!paused.contains(p)) {
                unpaused[i++] = p;
            }
        }
        polled = unpaused;
    }

    /** The partitions this consumer reads now. Its thread only. */
    int[] owned() {
        return owned;
    }

    Set<Integer> ownedSet() {
        Set<Integer> s = new TreeSet<>();
        for (int p : owned) {
            s.add(p);
        }
        return s;
    }

    /** Replaces the partitions this consumer reads ({@link ConsumerRebalance}). Its thread only. */
    void setOwned(Set<Integer> s) {
        setPolled(toArray(s));
    }

    /** The partitions in iteration order; a loop, not an IntStream: a first assignment need not load its classes. */
    private static int[] toArray(Set<Integer> partitions) {
        int[] result = new int[partitions.size()];
        int i = 0;
        for (int p : partitions) {
            result[i++] = p;
        }
        return result;
    }

    @Override
    public void seek(int partition, long offset) {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            seeks.seek(partition, offset);
        }
    }

    @Override
    public void seekAll(long offset) {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            seeks.seekAll(offset);
        }
    }

    @Override
    public void seekToBeginning() {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            seeks.toBeginning();
        }
    }

    @Override
    public void seekToBeginning(int partition) {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            seeks.toBeginning(partition);
        }
    }

    @Override
    public void seekToEnd(int partition) {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            seeks.toEnd(partition);
        }
    }

    @Override
    public void seekToEnd() {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            seeks.toEnd();
        }
    }

    @Override
    public void seekToTimestamp(long epochMillis) {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            seeks.toTimestamp(owned, epochMillis);
        }
    }

    @Override
    public void seekToTimestamp(int partition, long epochMillis) {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            seeks.toTimestamp(partition, epochMillis);
        }
    }

    @Override
    public long position(int partition) {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            return seeks.position(partition);
        }
    }

    @Override
    public Set<Integer> assignment() {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            return doAssignment();
        }
    }

    private Set<Integer> doAssignment() {
        ensureOpen();
        return Collections.unmodifiableSet(ownedSet());
    }

    @Override
    public void commit() {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            commits.commit();
        }
    }

    @Override
    public void commit(Map<Integer, Long> offsets) {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            commits.commit(offsets);
        }
    }

    @Override
    public OptionalLong committed(int partition) {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            return commits.committed(partition);
        }
    }

    @Override
    public void pause(Collection<Integer> partitions) {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            requireNoNull(partitions);
            ensureOpen();
            for (int p : partitions) {
                requireOwned(p);
            }
            if (paused.addAll(partitions)) {
                setPolled(owned);
            }
        }
    }

    @Override
    public void resume(Collection<Integer> partitions) {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            requireNoNull(partitions);
            ensureOpen();
            if (paused.removeAll(partitions)) {
                setPolled(owned);
            }
        }
    }

    /** The argument of {@link #pause} or {@link #resume}, checked before anything changes. */
    private static void requireNoNull(Collection<Integer> partitions) {
        Objects.requireNonNull(partitions, "partitions");
        for (Integer p : partitions) {
            Objects.requireNonNull(p, "partitions: a null partition");
        }
    }

    @Override
    public Set<Integer> paused() {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            ensureOpen();
            return Collections.unmodifiableSet(new TreeSet<>(paused));
        }
    }

    @Override
    public void wakeup() {
        wakeup.set(true);
        waiter.wakeAlways();
    }

    @Override
    public void close() {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            doClose();
        }
    }

    private void doClose() {
        if (closed) {
            return;
        }
        try {
            if (rebalance != null && owned.length > 0 && topic.life() == TopicImpl.Life.OPEN) {
                rebalance.revokeAtClose(); // still open here, so the callback can commit what it processed
            }
        } finally {
            leave();
        }
    }

    /** Whether the consumer is closed (a volatile read). */
    boolean isClosed() {
        return closed;
    }

    /** Marks the consumer closed and lets go of its partitions, its waits and its group. */
    private void leave() {
        closed = true;
        PartitionActor[] actors = topic.actors();
        for (int p : owned) {
            if (p < actors.length) {
                actors[p].waiters.remove(waiter);
            }
        }
        owned = new int[0];
        polled = owned;
        paused.clear();
        topic.consumers.remove(this);
        if (group != null && !fixed) {
            group.leave(this);
        }
    }

    private boolean owns(int partition) {
        for (int p : owned) {
            if (p == partition) {
                return true;
            }
        }
        return false;
    }

    void requireOwned(int partition) {
        if (owns(partition)) {
            return;
        }
        throw new InvalidPartitionException("partition " + partition + " of topic '" + topic.name
                + "' is not assigned to this consumer (assignment " + ownedSet() + ")");
    }

    void ensureOpen() {
        if (closed) {
            throw new KafkoClosedException("consumer of topic '" + topic.name + "' is closed");
        }
        topic.ensureOpen();
    }
}
