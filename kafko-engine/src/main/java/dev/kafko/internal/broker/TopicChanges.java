package dev.kafko.internal.broker;

import dev.kafko.InvalidPartitionException;
import dev.kafko.InvalidTopicLayoutException;
import dev.kafko.KafkoOptions;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.Failures;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.io.StorageErrors;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the changes of a live topic, {@link dev.kafko.Topic#increasePartitions} and
 * {@link dev.kafko.Topic#alterConfig}, each stored in the topic's config file (its commit point) under the
 * {@link Broker}'s admin lock. Thread-safe.
 */
final class TopicChanges {

    private final Broker broker;
    private final ReentrantLock admin;
    private final BrokerContext ctx;
    private final KafkoOptions options;

    TopicChanges(Broker broker, ReentrantLock admin, BrokerContext ctx, KafkoOptions options) {
        this.broker = broker;
        this.admin = admin;
        this.ctx = ctx;
        this.options = options;
    }

    /** Grows a topic: new logs first, then the config (the commit point), then the new array. */
    void increasePartitions(TopicImpl t, int newCount) {
        admin.lock();
        try {
            t.ensureOpen();
            PartitionActor[] old = t.actors();
            if (newCount < old.length) {
                throw new InvalidPartitionException("topic '" + t.name + "' has " + old.length
                        + " partitions; partitions can be added, never removed (asked for " + newCount + ")");
            }
            if (newCount > TopicConfig.MAX_PARTITIONS) {
                throw new InvalidPartitionException("topic '" + t.name + "' cannot have " + newCount
                        + " partitions: a topic has at most " + TopicConfig.MAX_PARTITIONS);
            }
            if (newCount == old.length) {
                return;
            }
            TopicConfig grown = t.config().toBuilder().partitions(newCount).build();
            PartitionActor[] actors = Arrays.copyOf(old, newCount);
            PartitionActor[] added = new PartitionActor[newCount - old.length];
            try {
                for (int p = old.length; p < newCount; p++) {
                    actors[p] = broker.openPartition(t.name, t.dir, p, grown);
                    added[p - old.length] = actors[p];
                    long end = actors[p].log().endOffset();
                    if (end > 0) {
                        // a grow that crashed before its config leaves empty partitions; records are someone else's
                        throw new InvalidTopicLayoutException(t.name, FileNames.partitionDir(t.dir, p)
                                + " already holds records (up to offset " + end + ") that the topic never wrote (its"
                                + " config names " + old.length + " partitions): move that directory away before"
                                + " adding partitions");
                    }
                }
                TopicConfigFile.write(ctx.io(), t.dir, grown, options.fsyncMetadata());
            } catch (RuntimeException e) {
                TopicDirectory.closeAll(added);
                throw StorageErrors.typed("add partitions to topic '" + t.name + "'", t.dir, e);
            } catch (Error e) {
                TopicDirectory.closeAll(added);
                throw e;
            }
            t.grow(grown, actors);
        } finally {
            admin.unlock();
        }
    }

    /**
     * Changes a topic's config: checked, then stored (the commit point: a reopen writes by it), then published
     * for callers, then each partition's owner writes by it. Every partition is told even when one fails (its
     * flush under the new policy); the first failure is thrown with the others suppressed. The admin lock is held
     * to store and publish, not while the partitions are told: their owners run observers, which may make admin
     * calls; the topic's own lock keeps two changes of it from reaching its partitions out of order.
     */
    void alterConfig(TopicImpl t, TopicConfig config) {
        Objects.requireNonNull(config, "config");
        config.compression().requireAvailable();
        for (PartitionActor a : t.actors()) {
            // before anything changes: from a partition's own observer, the change would wait for itself
            a.commands.requireNotOwnedByCaller("config change");
        }
        t.reconfiguring.lock();
        try {
            PartitionActor[] actors = storeConfig(t, config);
            @Nullable Throwable first = null;
            for (PartitionActor a : actors) {
                try {
                    a.commands.reconfigure(config, broker.forcesSeals(config));
                } catch (RuntimeException | Error e) {
                    first = Failures.suppress(first, e);
                }
            }
            Failures.rethrow(first);
        } finally {
            t.reconfiguring.unlock();
        }
    }

    /** {@link #alterConfig}'s store and publish, under the admin lock; returns the partitions to tell (none: equal). */
    private PartitionActor[] storeConfig(TopicImpl t, TopicConfig config) {
        admin.lock();
        try {
            t.ensureOpen();
            int count = t.actors().length;
            if (config.partitions() != count) {
                throw new InvalidPartitionException("topic '" + t.name + "' has " + count + " partitions; a config"
                        + " change keeps the count (the config asks for " + config.partitions() + "): add partitions"
                        + " with increasePartitions, which never removes any");
            }
            if (config.equals(t.config())) {
                return new PartitionActor[0];
            }
            try {
                TopicConfigFile.write(ctx.io(), t.dir, config, options.fsyncMetadata());
            } catch (RuntimeException e) {
                throw StorageErrors.typed("change the config of topic '" + t.name + "'", t.dir, e);
            }
            t.reconfigured(config);
            return t.actors();
        } finally {
            admin.unlock();
        }
    }
}
