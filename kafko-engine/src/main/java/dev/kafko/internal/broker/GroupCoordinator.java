package dev.kafko.internal.broker;

import dev.kafko.FsyncPolicy;
import dev.kafko.GroupInfo;
import dev.kafko.GroupNotEmptyException;
import dev.kafko.KafkoStorageException;
import dev.kafko.OffsetResetPolicy;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.log.PartitionLog;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * Internal: one consumer group on one topic in this instance: its live members, who owns which
 * partition, and its committed offsets. Thread-safe: members call it from their own polling
 * threads; membership and ownership change under {@code membership}, commits under {@code commits}.
 *
 * <p><b>Assignment.</b> Range assignment over the live members in join order: with {@code P}
 * partitions and {@code k} members, member {@code i} gets a contiguous range of {@code P / k}
 * partitions, the first {@code P % k} members one more. Members beyond {@code P} get nothing.
 *
 * <p><b>Hand-over.</b> Every join, leave, release or partition increase bumps {@link #version()}
 * and wakes every member. A member notices in its next {@code poll}: it first gives up the
 * partitions no longer in its range (after its {@code onPartitionsRevoked} callback, where it may
 * commit), then takes those of its range that nobody owns, starting each at the last committed
 * offset. A partition is therefore owned by at most one member at any time, and a new owner starts
 * where the old one committed. A member that stops polling keeps what it owns until it polls or
 * closes; the partitions it should give up stay unread meanwhile, and the others keep reading
 * theirs.
 *
 * <p><b>Deletion.</b> {@link #delete()} (Kafka's {@code deleteConsumerGroups}) takes {@code commits}, then
 * {@code membership} (the order a commit with a refusal takes them), refuses a group with live members, and marks
 * the coordinator deleted under both; it then lets the offsets file go and unlinks it (and one of the older layout)
 * still under {@code commits}, tells the observer, and only then takes the coordinator out of its topic's map. The
 * mark is read under {@code membership} where a member joins ({@link #join}) and under {@code commits} where an
 * offset is read or written ({@link #offsetsFile}): a member that joined before the mark is counted, and the
 * deletion refused; one that comes after it, and every read or commit, is refused with {@link Deleted}, which
 * never leaves the engine: the caller waits for the deletion to end ({@link #awaitDeletion}, the {@code commits}
 * lock) and asks its topic for the group's coordinator again, a fresh one (a new member then starts by its reset
 * policy, a commit writes a new file). So no member, commit or read is ever bound to a coordinator whose file is
 * gone or going, nor opens that file again; and a topic's map never holds a deleted coordinator once its deletion
 * released {@code commits}. A deletion that fails before its file is unlinked clears the mark again and changes
 * nothing. A delete or close of the topic marks the topic first; {@link #delete()} checks that under
 * {@code commits}, the lock their {@link #close} takes, so the two never overlap.
 */
final class GroupCoordinator {

    private static final System.Logger LOG = System.getLogger(GroupCoordinator.class.getName());

    final TopicImpl topic;
    final String group;
    private final ReentrantLock membership = new ReentrantLock();
    private final ReentrantLock commits = new ReentrantLock();
    private final List<Object> members = new ArrayList<>();
    private @Nullable Object[] owners = new Object[0];
    private volatile int version;
    private @Nullable GroupOffsetsFile offsets;
    private boolean forceScheduled;
    /**
     * The period of the force scheduled last, under {@link #commits}: a shorter one (the topic's config changed)
     * schedules its own.
     */
    private @Nullable Duration forcePeriod;
    /**
     * The offset reset policy the group's consumer made last starts by (its own {@code ConsumerOptions.offsetReset},
     * else the instance's), which says where a member without a commit starts, and so the lag without a commit; null
     * before any: the instance's.
     */
    private volatile @Nullable OffsetResetPolicy consumersReset;
    /**
     * Set by {@link #delete()} under both locks (see the class comment); cleared only by a deletion that failed before
     * its commit point, under {@code commits}.
     */
    private volatile boolean deleted;
    /** {@link #forceNow}, as the scheduler's task. */
    private final Runnable forceLater = new Runnable() {
        @Override
        public void run() {
            forceNow();
        }
    };

    GroupCoordinator(TopicImpl topic, String group) {
        this.topic = topic;
        this.group = group;
    }

    /**
     * Moves every committed offset of {@code topic}'s groups that lies past its partition's end to that
     * end, durably and with a warning. Called once as the instance opens, before anything can read: the
     * log was cut back by recovery, emptied, or restored from a copy taken while it was written, and a
     * member that took the partition only after new appends had passed the stale commit would skip the
     * new records below it. Moved now, every record appended from here on is read.
     */
    static void moveCommitsPastTheEnd(TopicImpl topic) {
        FileIo io = topic.broker.context().io();
        boolean sync = topic.broker.context().options().fsyncMetadata();
        PartitionActor[] actors = topic.actors();
        for (String group : TopicDirectory.groupsOnDisk(topic.dir)) {
            Path file = FileNames.groupOffsetsFile(topic.dir, group);
            GroupOffsetsFile.adoptLegacy(io, FileNames.legacyGroupOffsetsFile(topic.dir, group), file, sync, true);
            String what = "group '" + group + "' of topic '" + topic.name + "'";
            try (GroupOffsetsFile offsets = GroupOffsetsFile.open(io, file, what, sync)) {
                Map<Integer, Long> moved = new TreeMap<>();
                for (int p = 0; p < actors.length; p++) {
                    long committed = offsets.committed(p);
                    long end = actors[p].log().endOffset();
                    if (committed > end) {
                        moved.put(p, end);
                        LOG.log(System.Logger.Level.WARNING, what + " partition " + p + ": committed offset "
                                + committed + " is past the log's end " + end + " (records were lost, or the"
                                + " directory was restored from an earlier copy); moved to " + end
                                + ", so that the records appended from now on are all read");
                    }
                }
                if (!moved.isEmpty()) {
                    offsets.commit(moved, true);
                }
            }
        }
    }

    /** A consumer of the group was made that starts by {@code reset} (its own policy, or the instance's). */
    void consumerReset(OffsetResetPolicy reset) {
        consumersReset = reset;
    }

    /**
     * {@link #consumerReset}, unless a consumer made for this coordinator set one: a fixed-assignment consumer made
     * before a deletion of the group moves to the group's next coordinator, whose lag without a commit then follows
     * its policy, as the deleted one's did, not the instance's.
     */
    void consumerResetUnlessSet(OffsetResetPolicy reset) {
        if (consumersReset == null) {
            consumersReset = reset;
        }
    }

    /**
     * Thrown, never outside the engine, by a join, read or commit that met a deleted coordinator: the caller waits for
     * the deletion ({@link #awaitDeletion}) and asks its topic for the group's coordinator again. Shared and without
     * a stack trace: it carries nothing but the fact.
     */
    static final class Deleted extends RuntimeException {
        private static final long serialVersionUID = 1L;
        static final Deleted INSTANCE = new Deleted();

        private Deleted() {
            super("the group's coordinator was deleted; its topic makes a new one", null, false, false);
        }
    }

    /** Whether {@link #delete()} marked this coordinator (a volatile read). */
    boolean isDeleted() {
        return deleted;
    }

    /**
     * Whether this thread is deleting this coordinator: an observer told of the deletion ({@code onGroupDeleted}) that
     * calls back into kafko must not wait for its own deletion; to it the group is gone already.
     */
    boolean deletedByThisThread() {
        return deleted && commits.isHeldByCurrentThread();
    }

    /** Waits until a deletion of this coordinator in flight ended (it holds {@code commits} until then). */
    void awaitDeletion() {
        commits.lock();
        commits.unlock();
    }

    /** Bumped on every change a member must react to. */
    int version() {
        return version;
    }

    /** @throws Deleted when the group was deleted before the member joined (it then joins none) */
    void join(Object member) {
        membership.lock();
        try {
            if (deleted) {
                throw Deleted.INSTANCE;
            }
            members.add(member);
            changed();
        } finally {
            membership.unlock();
        }
    }

    /** Removes the member and frees every partition it owns. */
    void leave(Object member) {
        membership.lock();
        try {
            members.remove(member);
            Object[] o = owners;
            for (int p = 0; p < o.length; p++) {
                if (o[p] == member) {
                    o[p] = null;
                }
            }
            changed();
        } finally {
            membership.unlock();
        }
    }

    void partitionsChanged() {
        membership.lock();
        try {
            changed();
        } finally {
            membership.unlock();
        }
    }

    /** The owned partitions that are no longer in the member's range. */
    List<Integer> revocations(Object member, Set<Integer> owned) {
        membership.lock();
        try {
            int[] range = range(member);
            List<Integer> out = new ArrayList<>();
            for (int p : owned) {
                if (p < range[0] || p >= range[1]) {
                    out.add(p);
                }
            }
            return out;
        } finally {
            membership.unlock();
        }
    }

    /** Gives up partitions; the members waiting for them are woken. */
    void release(Object member, List<Integer> partitions) {
        membership.lock();
        try {
            Object[] o = owners;
            for (int p : partitions) {
                if (p < o.length && o[p] == member) {
                    o[p] = null;
                }
            }
            changed();
        } finally {
            membership.unlock();
        }
    }

    /** Takes every partition of the member's range that nobody owns; returns them. */
    List<Integer> acquire(Object member) {
        membership.lock();
        try {
            int[] range = range(member);
            Object[] o = owners;
            List<Integer> out = new ArrayList<>();
            for (int p = range[0]; p < range[1]; p++) {
                if (o[p] == null) {
                    o[p] = member;
                    out.add(p);
                }
            }
            return out;
        } finally {
            membership.unlock();
        }
    }

    int memberCount() {
        membership.lock();
        try {
            return members.size();
        } finally {
            membership.unlock();
        }
    }

    /** Lock held: [first, end) of the member's range. */
    private int[] range(Object member) {
        int partitions = topic.partitionCount();
        if (owners.length < partitions) {
            owners = Arrays.copyOf(owners, partitions);
        }
        int i = members.indexOf(member);
        int k = members.size();
        if (i < 0 || i >= partitions) {
            return new int[] {0, 0};
        }
        int per = partitions / k;
        int extra = partitions % k;
        int first = i * per + Math.min(i, extra);
        return new int[] {first, first + per + (i < extra ? 1 : 0)};
    }

    private void changed() {
        version++;
        for (ConsumerImpl c : topic.consumers) {
            if (c.coordinator() == this) {
                c.waiter.wakeAlways();
            }
        }
    }

    /**
     * Durably records these offsets (already checked by the member), and tells the observer while the
     * lock is held: a delete of the topic closes the group under this lock, so its {@code onTopicDeleted}
     * comes after every {@code onCommit} of a commit that got in before it.
     *
     * @throws dev.kafko.UnknownTopicException when the topic's delete began after the member's check
     * @throws dev.kafko.KafkoClosedException when the instance's close began after the member's check
     */
    void commit(Map<Integer, Long> toCommit) {
        commit(toCommit, null);
    }

    /**
     * As {@link #commit(Map)}; with {@code refusal}, for a consumer that is no member (a fixed assignment), refused
     * with what {@code refusal} makes of the live member count while the group has live members. The members are
     * counted under the lock the write takes, and a member that joins reads the group's offsets under it too: one
     * that joins after the count starts at these offsets, and none commits between the count and the write.
     */
    void commit(Map<Integer, Long> toCommit, @Nullable IntFunction<? extends RuntimeException> refusal) {
        FsyncPolicy fsync = topic.config().fsync();
        commits.lock();
        try {
            if (refusal != null) {
                int live = memberCount(); // commits, then membership: the order an observer's groupInfo takes
                if (live > 0) {
                    throw refusal.apply(live);
                }
            }
            offsetsFile().commit(toCommit, fsync == FsyncPolicy.EVERY_BATCH);
            if (fsync instanceof FsyncPolicy.Interval interval
                    && (!forceScheduled || forcePeriod == null || interval.period().compareTo(forcePeriod) < 0)) {
                // marked once scheduled: a schedule that fails (out of heap) leaves it to the next commit
                topic.broker.context().scheduler().schedule(forceLater, interval.period());
                forceScheduled = true;
                forcePeriod = interval.period();
            }
            if (topic.broker.context().observing()) {
                topic.broker.context().observer().onCommit(topic.name, group);
            }
        } finally {
            commits.unlock();
        }
    }

    private void forceNow() {
        commits.lock();
        try {
            forceScheduled = false;
            if (offsets != null && topic.life() == TopicImpl.Life.OPEN) {
                offsets.force();
            }
        } finally {
            commits.unlock();
        }
    }

    /** The committed offset, or -1. */
    long committed(int partition) {
        commits.lock();
        try {
            return offsetsFile().committed(partition);
        } finally {
            commits.unlock();
        }
    }

    /**
     * Lock {@code commits} held. The topic's life is checked here, under the lock {@link #close()} takes:
     * a delete or close marks the topic before it closes its groups, so a caller that passed its own check
     * before that and gets here after the close is refused, instead of opening the file again in a
     * directory being deleted (and making the directory again when the delete was done).
     */
    private GroupOffsetsFile offsetsFile() {
        topic.ensureOpen();
        if (deleted) {
            // its file is gone, or going: opened again it would bring the group back with whatever was written
            throw Deleted.INSTANCE;
        }
        GroupOffsetsFile f = offsets;
        if (f == null) {
            FileIo io = topic.broker.context().io();
            Path file = FileNames.groupOffsetsFile(topic.dir, group);
            boolean sync = topic.broker.context().options().fsyncMetadata();
            // the open warned of a file in both layouts
            GroupOffsetsFile.adoptLegacy(io, FileNames.legacyGroupOffsetsFile(topic.dir, group), file, sync, false);
            f = GroupOffsetsFile.open(io, file, "group '" + group + "' of topic '" + topic.name + "'", sync);
            offsets = f;
        }
        return f;
    }

    GroupInfo info() {
        Map<Integer, Long> committed = new TreeMap<>();
        Map<Integer, Long> lag = new LinkedHashMap<>();
        PartitionActor[] actors = topic.actors();
        boolean latest = latest();
        for (int p = 0; p < actors.length; p++) {
            long c = committed(p);
            if (c >= 0) {
                committed.put(p, c);
            }
            lag.put(p, lag(actors[p], c, latest));
        }
        return new GroupInfo(topic.name, group, Map.copyOf(committed), Map.copyOf(lag), memberCount());
    }

    /**
     * {@link #info()} of a group {@code topic} does not know (no member, no commit on disk), made without a
     * coordinator: a question about a name never used leaves nothing behind.
     */
    static GroupInfo infoWithoutCommits(TopicImpl topic, String group) {
        Map<Integer, Long> lag = new LinkedHashMap<>();
        PartitionActor[] actors = topic.actors();
        boolean latest = latest(topic);
        for (int p = 0; p < actors.length; p++) {
            lag.put(p, lag(actors[p], -1, latest));
        }
        return new GroupInfo(topic.name, group, Map.of(), Map.copyOf(lag), 0);
    }

    /** {@link #lag(int)} of a group {@code topic} does not know. @throws InvalidPartitionException out of range */
    static long lagWithoutCommit(TopicImpl topic, int partition) {
        return lag(topic.actor(partition), -1, latest(topic));
    }

    /** {@code info().lag().get(partition)}, of that partition alone. @throws InvalidPartitionException out of range */
    long lag(int partition) {
        return lag(topic.actor(partition), committed(partition), latest());
    }

    /** Whether a member without a commit starts at the end: the policy of the group's consumers, else the instance's. */
    private boolean latest() {
        OffsetResetPolicy reset = consumersReset;
        return reset != null ? reset == OffsetResetPolicy.LATEST : latest(topic);
    }

    private static boolean latest(TopicImpl topic) {
        return topic.broker.context().options().offsetReset() == OffsetResetPolicy.LATEST;
    }

    /**
     * What the group has yet to read of {@code actor}'s partition past its commit {@code c} (negative: none): without
     * a commit, a member starts at the log start, or at the end under LATEST ({@code latest}), nothing to read.
     */
    private static long lag(PartitionActor actor, long c, boolean latest) {
        PartitionLog log = actor.log();
        // what the group can read: under EVERY_BATCH the records not yet fsynced are not lag yet (Kafka's lag counts
        // up to the high watermark)
        long end = actor.isOpen() ? actor.readableEnd() : actor.info().endOffset();
        long start = actor.isOpen() ? log.logStartOffset() : actor.info().logStartOffset();
        return Math.max(0, end - (c >= 0 ? Math.max(c, start) : latest ? end : start));
    }

    /**
     * Deletes the group's committed offsets, durably when {@code KafkoOptions.fsyncMetadata}, tells the observer
     * ({@code onGroupDeleted}) and takes the coordinator out of its topic (see the class comment for the locking).
     *
     * @return false when another deletion of this coordinator came first (nothing done)
     * @throws GroupNotEmptyException when the group has live members (nothing changes)
     * @throws dev.kafko.UnknownTopicException when the topic's delete began
     * @throws dev.kafko.KafkoClosedException when the instance's close began
     * @throws KafkoStorageException when a file could not be deleted (nothing changes), or, the offsets deleted, the
     *     deletion could not be made durable (the group is deleted in this instance; a crash may bring it back)
     */
    boolean delete() {
        BrokerContext ctx = topic.broker.context();
        commits.lock();
        try {
            topic.ensureOpen();
            if (deleted) {
                return false;
            }
            membership.lock();
            try {
                if (!members.isEmpty()) {
                    throw new GroupNotEmptyException(topic.name, group, members.size());
                }
                deleted = true; // from here no member joins and no offset is read or written
            } finally {
                membership.unlock();
            }
            KafkoStorageException late;
            boolean done = false;
            try {
                GroupOffsetsFile f = offsets;
                offsets = null;
                if (f != null) {
                    f.discard(); // its commits are all written: what the deletion removes needs no fsync
                }
                late = GroupOffsetsFile.delete(ctx.io(), FileNames.groupOffsetsFile(topic.dir, group),
                        FileNames.legacyGroupOffsetsFile(topic.dir, group), "group '" + group + "' of topic '"
                        + topic.name + "'", ctx.options().fsyncMetadata());
                done = true;
            } finally {
                if (!done) {
                    deleted = false; // the files are as they were: the group goes on (its file is opened again)
                }
            }
            try {
                if (ctx.observing()) {
                    // under the lock: after every onCommit of this coordinator, before any of the group's next one
                    ctx.observer().onGroupDeleted(topic.name, group);
                }
            } finally {
                topic.forget(this);
            }
            if (late != null) {
                throw late;
            }
            return true;
        } finally {
            commits.unlock();
        }
    }

    /**
     * Closes the offsets file (flushing it) when the topic closes; when it is deleted ({@code deleting}) or its
     * directory will be ({@code KafkoOptions.durableClose} false) only lets it go: such offsets need no fsync, nor a
     * rewrite that a full disk could refuse.
     */
    void close(boolean deleting) {
        commits.lock();
        try {
            if (offsets != null) {
                if (deleting || !topic.broker.context().options().durableClose()) {
                    offsets.discard();
                } else {
                    offsets.close();
                }
                offsets = null;
            }
        } finally {
            commits.unlock();
        }
    }
}
