package dev.kafko.internal.broker;

import dev.kafko.InvalidNameException;
import dev.kafko.InvalidPartitionException;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoStorageException;
import dev.kafko.PartitionInfo;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.UnknownTopicException;
import dev.kafko.internal.io.Failures;
import dev.kafko.internal.io.FileNames;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Internal: one open topic: its config, its partition actors, its live consumers and its groups.
 * Thread-safe: the partition array is replaced (never mutated) under the broker's admin lock and
 * read without a lock by producers and consumers.
 */
final class TopicImpl implements Topic {

    /** The life of a topic handle. */
    enum Life { OPEN, DELETED, CLOSED }

    final String name;
    final Path dir;
    final Broker broker;
    private volatile TopicConfig config;
    private volatile PartitionActor[] actors;
    private volatile Life life = Life.OPEN;
    final Set<ConsumerImpl> consumers = ConcurrentHashMap.newKeySet();
    final ConcurrentHashMap<String, GroupCoordinator> groups = new ConcurrentHashMap<>();
    /**
     * Under the lock of {@link #groups}: each known group's name in lower case to the first known name that folds to
     * it, so that a new group's case twin is found without a pass over every known group (B135's check did one, with
     * a sorted copy, per new group: 5,000 groups took 7 s to make instead of 0.4).
     */
    private final Map<String, String> foldedGroups = new HashMap<>();
    /**
     * The round-robin counter of keyless records, shared by every producer of the topic: a producer per
     * send (they hold nothing) still spreads them. Starts at 0, so runs are deterministic.
     */
    final AtomicInteger keyless = new AtomicInteger();
    /**
     * Held by a config change from its store until its last partition writes by it ({@link TopicChanges#alterConfig}), so
     * that two changes reach the partitions in the order they were stored.
     */
    final ReentrantLock reconfiguring = new ReentrantLock();

    TopicImpl(String name, Path dir, Broker broker, TopicConfig config, PartitionActor[] actors) {
        this.name = name;
        this.dir = dir;
        this.broker = broker;
        this.config = config;
        this.actors = actors;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public TopicConfig config() {
        return config;
    }

    @Override
    public int partitionCount() {
        return actors.length;
    }

    @Override
    public void increasePartitions(int newCount) {
        broker.increasePartitions(this, newCount);
    }

    @Override
    public void alterConfig(TopicConfig config) {
        broker.alterConfig(this, config);
    }

    @Override
    public long compact() {
        ensureOpen();
        TopicConfig c = config;
        if (!c.cleanupPolicy().compacts()) {
            throw new IllegalStateException("topic '" + name + "' is not compacted (its cleanup policy is "
                    + c.cleanupPolicy() + "): create or alter it with cleanupPolicy COMPACT or COMPACT_DELETE");
        }
        PartitionActor[] as = actors;
        for (PartitionActor a : as) {
            a.commands.requireNotOwnedByCaller("compaction"); // before any partition is compacted
        }
        long removed = 0;
        for (PartitionActor a : as) {
            try {
                removed += broker.compactions.compact(c, a, true);
            } catch (KafkoClosedException e) {
                // a deletion or a close shut the partition's segments while the compaction read them (before the
                // partition was CLOSED, which the compaction's cancellation looks at): the topic's own state says
                // which, as for any other call (both end it before they close a partition)
                ensureOpen();
                throw e;
            }
        }
        return removed;
    }

    @Override
    public List<PartitionInfo> partitions() {
        PartitionActor[] as = actors;
        List<PartitionInfo> out = new ArrayList<>(as.length);
        for (PartitionActor a : as) {
            out.add(a.info());
        }
        return Collections.unmodifiableList(out);
    }

    @Override
    public PartitionInfo partition(int partition) {
        return actor(partition).info();
    }

    /** The actors; the array is never mutated. */
    PartitionActor[] actors() {
        return actors;
    }

    /** @throws InvalidPartitionException when {@code partition} is out of range */
    PartitionActor actor(int partition) {
        PartitionActor[] as = actors;
        return as[checkPartition(partition, as.length)];
    }

    /**
     * Returns {@code partition} when it is one of {@code count} partitions.
     *
     * @throws InvalidPartitionException when it is out of range
     */
    int checkPartition(int partition, int count) {
        if (partition < 0 || partition >= count) {
            throw new InvalidPartitionException("topic '" + name + "' has partitions 0.." + (count - 1)
                    + "; partition " + partition + " does not exist");
        }
        return partition;
    }

    /** Publishes a grown partition array and config. Admin lock held. */
    void grow(TopicConfig newConfig, PartitionActor[] newActors) {
        config = newConfig;
        actors = newActors;
        for (GroupCoordinator g : groups.values()) {
            g.partitionsChanged();
        }
        wakeConsumers();
    }

    /** Publishes a changed config (the partition count unchanged). Admin lock held. */
    void reconfigured(TopicConfig newConfig) {
        config = newConfig;
    }

    Life life() {
        return life;
    }

    /** Marks the handle deleted or closed and wakes its consumers so they notice. Admin lock held. */
    void end(Life end) {
        life = end;
        wakeConsumers();
    }

    void wakeConsumers() {
        for (ConsumerImpl c : consumers) {
            c.waiter.wakeAlways();
        }
    }

    /** @throws UnknownTopicException after delete, {@link KafkoClosedException} after close */
    void ensureOpen() {
        Life l = life;
        if (l != Life.OPEN) {
            throw l == Life.DELETED ? new UnknownTopicException("topic '" + name + "' was deleted")
                    : new KafkoClosedException("kafko instance at " + broker.dataDir() + " is closed");
        }
    }

    /**
     * Closes the topic's group coordinators ({@code deleting}: the topic is being deleted); the first failure is
     * rethrown, having tried every group.
     */
    void closeGroups(boolean deleting) {
        Throwable first = null;
        for (GroupCoordinator g : groups.values()) {
            try {
                g.close(deleting);
            } catch (RuntimeException | Error e) {
                first = first == null ? e : first;
            }
        }
        Failures.rethrow(first);
    }

    /**
     * The coordinator of {@code group} when this topic knows it (a member made it, or it has commits on disk), else
     * {@code null}, making none: {@code groupInfo} and {@code groupLag} of any name must not keep one for each.
     */
    @Nullable GroupCoordinator knownGroup(String group) {
        GroupCoordinator known = live(group);
        if (known != null) {
            return known;
        }
        boolean onDisk = Files.exists(FileNames.groupOffsetsFile(dir, group), LinkOption.NOFOLLOW_LINKS)
                || Files.exists(FileNames.legacyGroupOffsetsFile(dir, group), LinkOption.NOFOLLOW_LINKS);
        return onDisk ? group(group) : null;
    }

    /**
     * The group coordinator of {@code group}, created on first use, and again after a deletion of the group (one in
     * flight is waited for: a coordinator marked deleted is never returned).
     */
    GroupCoordinator group(String group) {
        for (;;) {
            GroupCoordinator known = live(group);
            if (known != null) {
                return known;
            }
            synchronized (groups) {
                GroupCoordinator g = groups.get(group);
                if (g != null && !g.deletedByThisThread()) {
                    if (!g.isDeleted()) {
                        return g;
                    }
                    continue; // a deletion began since live(): waited for outside this lock
                }
                refuseCaseTwin(group);
                // none, or the one this thread is deleting (an observer told of it makes the group anew)
                g = new GroupCoordinator(this, group);
                groups.put(group, g);
                foldedGroups.putIfAbsent(group.toLowerCase(Locale.ROOT), group);
                return g;
            }
        }
    }

    /**
     * The coordinator {@link #groups} holds for {@code group}, or null; never one marked deleted: a deletion in
     * flight on another thread is waited for (it takes the coordinator out of the map before it ends), and one on
     * this thread (an observer told of it) counts as done.
     */
    private @Nullable GroupCoordinator live(String group) {
        for (;;) {
            GroupCoordinator g = groups.get(group);
            if (g == null || !g.isDeleted()) {
                return g;
            }
            if (g.deletedByThisThread()) {
                return null;
            }
            g.awaitDeletion();
            if (groups.get(group) == g && g.isDeleted()) {
                forget(g); // its deletion ended without taking it out (an Error on the way): it is deleted all the same
            }
        }
    }

    /**
     * Takes a deleted coordinator out of {@link #groups} (unless an observer of its deletion made the group anew), and
     * its name out of {@link #foldedGroups} unless another known group folds to the same name.
     */
    void forget(GroupCoordinator g) {
        synchronized (groups) {
            if (!groups.remove(g.group, g)) {
                return;
            }
            String folded = g.group.toLowerCase(Locale.ROOT);
            if (g.group.equals(foldedGroups.get(folded))) {
                foldedGroups.remove(folded);
                for (String other : groups.keySet()) {
                    if (other.toLowerCase(Locale.ROOT).equals(folded)) {
                        foldedGroups.put(folded, other);
                        break;
                    }
                }
            }
        }
    }

    /**
     * Refuses a group whose name equals a known group's (live, or with commits on disk) but for case, where the
     * file system does not tell names apart by case: both would use one offsets file, a new group starting at the
     * other's commits (skipping records it never read) and each commit overwriting the other's.
     *
     * @throws InvalidNameException naming both groups
     * @throws UnknownTopicException when a deletion of the topic removed what the check lists
     */
    private void refuseCaseTwin(String group) {
        if (groups.containsKey(group)) {
            return;
        }
        try {
            refuseKnownTwin(group);
        } catch (KafkoStorageException e) {
            if (life == Life.DELETED) {
                // a deletion that began after this topic was looked up removed its directory under the listing:
                // the topic is gone, as every other call on it says, not the disk failing
                throw new UnknownTopicException("topic '" + name + "' was deleted", e);
            }
            throw e;
        }
    }

    private void refuseKnownTwin(String group) {
        // names are ASCII ([A-Za-z0-9._-]): lower case in the root locale is equalsIgnoreCase
        String other = foldedGroups.get(group.toLowerCase(Locale.ROOT));
        if (other != null) {
            refuseIfFolded(group, other);
        }
        String onDisk = TopicDirectory.heldUnderAnotherName(broker.context().io(), dir.resolve(FileNames.GROUPS_DIR), group);
        if (onDisk != null) {
            refuseIfFolded(group, onDisk);
        }
    }

    private void refuseIfFolded(String group, String other) {
        if (TopicDirectory.foldsCase(broker.context().io(), dir)) {
            throw new InvalidNameException("group '" + group + "' cannot be used on topic '" + name + "': the file"
                    + " system of " + dir + " does not tell names apart by case, so it would share the committed"
                    + " offsets of group '" + other + "'; pick a name that differs from it in more than case");
        }
    }

    @Override
    public String toString() {
        return "Topic[" + name + ", " + actors.length + " partitions]";
    }
}
