package dev.kafko.internal.broker;

import dev.kafko.CommitFailedException;
import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.ConsumerRebalanceListener;
import dev.kafko.InterruptException;
import dev.kafko.InvalidPartitionException;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoRecord;
import dev.kafko.OffsetOutOfRangeException;
import dev.kafko.OffsetResetPolicy;
import dev.kafko.internal.log.PartitionLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.ToLongFunction;
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
 */
final class ConsumerImpl implements Consumer {

    final Waiter waiter = new Waiter();
    private final TopicImpl topic;
    private final @Nullable GroupCoordinator group;
    private final ConsumerRebalanceListener listener;
    private final int maxPollRecords;
    private final OffsetResetPolicy reset;
    private final AtomicBoolean wakeup = new AtomicBoolean();
    private final PartitionPositions positions;
    private final PollFetch fetch;
    /** Whether the partitions were given ({@link ConsumerOptions#partitions()}): no group membership, no growth. */
    private final boolean fixed;
    private int[] owned = new int[0];
    private int seenVersion = -1;
    private @Nullable List<Integer> unannounced;
    /** The partitions the revoke callback running now is told of: a close from it does not revoke them again. */
    private @Nullable List<Integer> revoking;
    private volatile boolean closed;
    private final ConsumerThreadGuard guard;

    ConsumerImpl(TopicImpl topic, @Nullable GroupCoordinator group, ConsumerOptions options, int defaultMaxPoll,
                 OffsetResetPolicy defaultReset) {
        this.topic = topic;
        this.guard = new ConsumerThreadGuard(topic.name);
        this.group = group;
        this.listener = options.rebalanceListener();
        this.maxPollRecords = options.maxPollRecords() > 0 ? options.maxPollRecords() : defaultMaxPoll;
        this.reset = options.offsetReset() != null ? options.offsetReset() : defaultReset;
        this.positions = new PartitionPositions(topic.name, group == null ? null : group.group, reset);
        this.fetch = new PollFetch(topic, positions, maxPollRecords);
        Set<Integer> given = options.partitions();
        this.fixed = given != null;
        if (given != null) {
            requireExisting(given);
        }
        topic.consumers.add(this);
        try {
            if (given != null) {
                assignFixed(given);
            } else if (group == null) {
                growAnonymous();
            } else {
                group.join(this);
                syncGroup(false);
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
        owned = partitions.stream().mapToInt(Integer::intValue).toArray();
        for (int p : owned) {
            if (group != null) {
                positions.set(p, startPosition(p, actors[p]));
            } // anonymous: offset 0, as documented (below a log start retention moved, the reset policy decides)
            actors[p].addWaiter(waiter);
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
            List<KafkoRecord> out = fetch.fetch(owned);
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
        if (!fixed && (group != null ? group.version() != seenVersion : topic.partitionCount() != positionsKnown())) {
            return true;
        }
        PartitionActor[] actors = topic.actors();
        for (int p : owned) {
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
        if (group != null) {
            if (group.version() != seenVersion || unannounced != null) {
                syncGroup(true);
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
        owned = new int[actors.length];
        for (int p = 0; p < actors.length; p++) {
            owned[p] = p;
            if (p >= old) {
                // offset 0, as documented (grow): below a log start that retention moved, the reset policy decides
                actors[p].addWaiter(waiter);
            }
        }
    }

    /** Gives up revoked partitions and takes free ones; callbacks only when {@code announce}. */
    private void syncGroup(boolean announce) {
        GroupCoordinator g = group;
        seenVersion = g.version();
        Set<Integer> mine = ownedSet();
        List<Integer> revoked = g.revocations(this, mine);
        if (!revoked.isEmpty()) {
            try {
                List<Integer> announced = announced(revoked);
                if (!announced.isEmpty()) {
                    revoking = announced;
                    listener.onPartitionsRevoked(Collections.unmodifiableList(announced));
                }
            } finally {
                revoking = null;
                if (!closed) { // a close from the callback gave up every partition and left the group already
                    PartitionActor[] actors = topic.actors();
                    for (int p : revoked) {
                        actors[p].removeWaiter(waiter);
                        mine.remove(p);
                    }
                    setOwned(mine);
                    g.release(this, revoked);
                }
            }
            // closed by its callback: the poll reads nothing more, from partitions other members now read
            ensureOpen();
        }
        List<Integer> gained = g.acquire(this);
        if (!gained.isEmpty()) {
            PartitionActor[] actors = topic.actors();
            positions.grow(actors.length);
            long[] starts = new long[gained.size()];
            try {
                for (int i = 0; i < starts.length; i++) {
                    starts[i] = startPosition(gained.get(i), actors[gained.get(i)]);
                }
            } catch (RuntimeException | Error e) {
                // the commits could not be read: given back, or the group would count them as this member's
                // while the member does not know it holds them, and nobody would ever read them
                g.release(this, gained);
                throw e;
            }
            for (int i = 0; i < starts.length; i++) {
                int p = gained.get(i);
                positions.set(p, starts[i]);
                actors[p].addWaiter(waiter);
                mine.add(p);
            }
            setOwned(mine);
            if (unannounced == null) {
                unannounced = new ArrayList<>();
            }
            unannounced.addAll(gained);
        }
        if (announce && unannounced != null) {
            List<Integer> a = unannounced;
            unannounced = null;
            listener.onPartitionsAssigned(Collections.unmodifiableList(a));
        }
    }

    /**
     * Those of {@code partitions} the listener was told it was assigned; the others are forgotten as
     * never announced: taken and given up again between two polls, they were never read either.
     */
    private List<Integer> announced(List<Integer> partitions) {
        List<Integer> pending = unannounced;
        if (pending == null) {
            return partitions;
        }
        List<Integer> announced = new ArrayList<>(partitions);
        announced.removeAll(pending);
        pending.removeAll(partitions);
        if (pending.isEmpty()) {
            unannounced = null;
        }
        return announced;
    }

    private long startPosition(int partition, PartitionActor actor) {
        long c = group == null ? -1 : group.committed(partition);
        if (c >= 0) {
            return positions.settled(c, actor); // below the log start: checked against the log before each read
        }
        // the readable end: under EVERY_BATCH, records appended and not yet fsynced are read, not skipped
        return reset == OffsetResetPolicy.LATEST ? actor.readableEnd() : actor.log().logStartOffset();
    }

    private Set<Integer> ownedSet() {
        Set<Integer> s = new TreeSet<>();
        for (int p : owned) {
            s.add(p);
        }
        return s;
    }

    private void setOwned(Set<Integer> s) {
        owned = s.stream().mapToInt(Integer::intValue).toArray();
    }

    @Override
    public void seek(int partition, long offset) {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            doSeek(partition, offset);
        }
    }

    private void doSeek(int partition, long offset) {
        // an argument error first, before the close, as every argument is checked (the class comment of Consumer)
        if (offset < 0) {
            throw new OffsetOutOfRangeException("cannot seek partition " + partition + " of topic '" + topic.name
                    + "' to negative offset " + offset, partition, offset);
        }
        ensureOpen();
        requireOwned(partition);
        positions.settle(partition, offset, topic.actors()[partition]);
    }

    @Override
    public void seekAll(long offset) {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            doSeekAll(offset);
        }
    }

    private void doSeekAll(long offset) {
        // refused whatever the assignment, also an empty one or after the close, as seek refuses it
        if (offset < 0) {
            throw new OffsetOutOfRangeException("cannot seek the partitions of topic '" + topic.name
                    + "' to negative offset " + offset);
        }
        ensureOpen();
        for (int p : owned) {
            seek(p, offset);
        }
    }

    @Override
    public void seekToBeginning() {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            doSeekToBeginning();
        }
    }

    private void doSeekToBeginning() {
        ensureOpen();
        PartitionActor[] actors = topic.actors();
        for (int p : owned) {
            positions.set(p, actors[p].log().logStartOffset());
        }
    }

    @Override
    public void seekToBeginning(int partition) {
        seekOne(partition, actor -> actor.log().logStartOffset());
    }

    @Override
    public void seekToEnd(int partition) {
        seekOne(partition, PartitionActor::readableEnd); // what is not yet readable is read, not skipped
    }

    /** Moves one owned partition to the offset {@code where} picks from its actor. */
    private void seekOne(int partition, ToLongFunction<PartitionActor> where) {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            ensureOpen();
            requireOwned(partition);
            positions.set(partition, where.applyAsLong(topic.actors()[partition]));
        }
    }

    @Override
    public void seekToEnd() {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            doSeekToEnd();
        }
    }

    private void doSeekToEnd() {
        ensureOpen();
        PartitionActor[] actors = topic.actors();
        for (int p : owned) {
            positions.set(p, actors[p].readableEnd()); // what is appended and not yet readable is read, not skipped
        }
    }

    @Override
    public void seekToTimestamp(long epochMillis) {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            seekToTimestamp(owned, epochMillis);
        }
    }

    @Override
    public void seekToTimestamp(int partition, long epochMillis) {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            // the argument's own error first, before the close and the assignment, as seek(partition, -1) does
            requireTimestamp(epochMillis);
            ensureOpen();
            requireOwned(partition);
            seekToTimestamp(new int[] {partition}, epochMillis);
        }
    }

    private static void requireTimestamp(long epochMillis) {
        if (epochMillis < 0) {
            throw new IllegalArgumentException("cannot seek to negative timestamp " + epochMillis);
        }
    }

    private void seekToTimestamp(int[] partitions, long epochMillis) {
        requireTimestamp(epochMillis);
        ensureOpen();
        for (int p : partitions) {
            PartitionActor actor = topic.actors()[p];
            long found;
            try {
                found = actor.log().offsetForTimestamp(epochMillis);
            } catch (KafkoClosedException | OffsetOutOfRangeException e) {
                // a log closed, or a segment released under the search, by a deleteTopic or a close that raced it is
                // the topic's end (as a poll reports it), not kafko's close nor a position out of range
                topic.ensureOpen();
                throw e;
            }
            // none readable at or after it: the readable end, as a seek to the end
            positions.set(p, Math.min(found, actor.readableEnd()));
        }
    }

    @Override
    public long position(int partition) {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            return doPosition(partition);
        }
    }

    private long doPosition(int partition) {
        ensureOpen();
        requireOwned(partition);
        return positions.get(partition);
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
            doCommit();
        }
    }

    private void doCommit() {
        ensureOpen();
        if (group == null || owned.length == 0) {
            return;
        }
        Map<Integer, Long> offsets = owned.length == 1 ? Map.of(owned[0], positions.get(owned[0])) : new HashMap<>();
        if (owned.length > 1) {
            for (int p : owned) {
                offsets.put(p, positions.get(p));
            }
        }
        commitToGroup(offsets);
    }

    @Override
    public void commit(Map<Integer, Long> offsets) {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            doCommit(offsets);
        }
    }

    private void doCommit(Map<Integer, Long> offsets) {
        Objects.requireNonNull(offsets, "offsets");
        // the arguments' own errors first, before the close, as every argument is checked
        for (Map.Entry<Integer, Long> e : offsets.entrySet()) {
            // a null is a NullPointerException naming the element, as every null argument is
            Objects.requireNonNull(e.getKey(), () -> "offsets: a null partition (offset " + e.getValue()
                    + ") of topic '" + topic.name + "'");
            Objects.requireNonNull(e.getValue(), () -> "offsets: a null offset for partition " + e.getKey()
                    + " of topic '" + topic.name + "'");
            if (e.getValue() < 0) {
                throw new OffsetOutOfRangeException("cannot commit offset " + e.getValue() + " for partition "
                        + e.getKey() + " of topic '" + topic.name + "'", e.getKey(), e.getValue());
            }
        }
        ensureOpen();
        if (group == null) {
            return;
        }
        for (Integer p : offsets.keySet()) {
            requireOwned(p);
        }
        if (!offsets.isEmpty()) { // as Kafka's consumer: nothing to commit is no commit (no onCommit either)
            commitToGroup(Map.copyOf(offsets));
        }
    }

    /**
     * Writes the group's offsets. A fixed-assignment consumer is no member of its group: while the group has live
     * members, it may not write their offsets (Kafka answers such a commit with {@code UNKNOWN_MEMBER_ID}); the
     * group counts them under the lock of the write, so that a member joining meanwhile is not overwritten.
     */
    private void commitToGroup(Map<Integer, Long> offsets) {
        GroupCoordinator g = group;
        if (!fixed) {
            g.commit(offsets);
            return;
        }
        g.commit(offsets, members -> new CommitFailedException("cannot commit for group '" + g.group + "' of topic '"
                + topic.name + "' from a consumer with fixed partitions " + ownedSet() + ": the group has " + members
                + " live member(s), and only its members commit while it has any (nothing was committed)"));
    }

    @Override
    public OptionalLong committed(int partition) {
        try (ConsumerThreadGuard.Held held = guard.enter()) {
            return doCommitted(partition);
        }
    }

    private OptionalLong doCommitted(int partition) {
        ensureOpen();
        topic.actor(partition); // range check, an anonymous consumer's too
        if (group == null) {
            return OptionalLong.empty();
        }
        long c = group.committed(partition);
        return c < 0 ? OptionalLong.empty() : OptionalLong.of(c);
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
            if (group != null && !fixed && owned.length > 0 && topic.life() == TopicImpl.Life.OPEN) {
                // still open here, so the callback can commit what it processed
                List<Integer> mine = announced(new ArrayList<>(ownedSet()));
                if (revoking != null) {
                    mine.removeAll(revoking); // closed from the callback that is being told of these
                }
                if (!mine.isEmpty()) {
                    listener.onPartitionsRevoked(Collections.unmodifiableList(mine));
                }
            }
        } finally {
            leave();
        }
    }

    /** Marks the consumer closed and lets go of its partitions, its waits and its group. */
    private void leave() {
        closed = true;
        PartitionActor[] actors = topic.actors();
        for (int p : owned) {
            if (p < actors.length) {
                actors[p].removeWaiter(waiter);
            }
        }
        owned = new int[0];
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

    private void requireOwned(int partition) {
        if (owns(partition)) {
            return;
        }
        throw new InvalidPartitionException("partition " + partition + " of topic '" + topic.name
                + "' is not assigned to this consumer (assignment " + ownedSet() + ")");
    }

    private void ensureOpen() {
        if (closed) {
            throw new KafkoClosedException("consumer of topic '" + topic.name + "' is closed");
        }
        topic.ensureOpen();
    }
}
