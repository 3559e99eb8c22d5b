package dev.kafko.internal.broker;

import dev.kafko.InvalidPartitionException;
import dev.kafko.KafkoClosedException;
import dev.kafko.PartitionInfo;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.UnknownTopicException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

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
     * The round-robin counter of keyless records, shared by every producer of the topic: a producer per
     * send (they hold nothing) still spreads them. Starts at 0, so runs are deterministic.
     */
    final AtomicInteger keyless = new AtomicInteger();

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
        if (partition < 0 || partition >= as.length) {
            throw new InvalidPartitionException("topic '" + name + "' has partitions 0.." + (as.length - 1)
                    + "; partition " + partition + " does not exist");
        }
        return as[partition];
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
        if (first instanceof RuntimeException e) {
            throw e;
        }
        if (first instanceof Error e) {
            throw e;
        }
    }

    /** The group coordinator of {@code group}, created on first use. */
    GroupCoordinator group(String group) {
        return groups.computeIfAbsent(group, g -> new GroupCoordinator(this, g));
    }

    @Override
    public String toString() {
        return "Topic[" + name + ", " + actors.length + " partitions]";
    }
}
