package dev.kafko.internal.broker;

import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.FsyncPolicy;
import dev.kafko.GroupInfo;
import dev.kafko.InvalidConfigException;
import dev.kafko.InvalidTopicLayoutException;
import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoStorageException;
import dev.kafko.Producer;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.TopicExistsException;
import dev.kafko.UnknownTopicException;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.log.PartitionLog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the implementation of {@link Kafko}. Thread-safe: topic creation, deletion and growth are
 * serialised by an admin lock, which close takes only to mark the instance closed ({@link BrokerClose} does
 * the rest); producers and consumers never take it.
 */
public final class Broker implements Kafko {

    private final Path dataDir;
    private final KafkoOptions options;
    private final BrokerContext ctx;
    private final ReentrantLock admin = new ReentrantLock();
    /** A live topic's growth and config changes, under {@link #admin}. */
    private final TopicChanges changes;
    /** Deletions in flight and failed, under {@link #admin}. */
    private final TopicDeletions deletions;
    /** The close once the instance is marked closed, and the wait of a second close for the first. */
    private final BrokerClose closing;
    private final Map<String, TopicImpl> topics = new ConcurrentHashMap<>();
    private final ScheduledFuture<?> retentionTask;
    /** The compactions of compacted topics, in the background and by {@link dev.kafko.Topic#compact()}. */
    final Compactions compactions;
    private volatile boolean closed;
    /** {@link #applyRetention}, as the scheduler's task (a named class: see the package javadoc on lambdas). */
    private final Runnable retention = new Runnable() {
        @Override
        public void run() {
            applyRetention(true);
        }
    };
    /**
     * {@link #applyRetention} at open, without the compactions: those start at the first periodic check, one
     * {@code retentionCheckInterval} later, not beside the work of an application that starts.
     */
    private final Runnable retentionAtOpen = new Runnable() {
        @Override
        public void run() {
            applyRetention(false);
        }
    };
    /** {@link #rescueStranded}, as the scheduler's task. */
    private final Runnable strandedRescue = new Runnable() {
        @Override
        public void run() {
            rescueStranded();
        }
    };
    /** {@link #ensureOpen}, for the waits of {@link TopicDeletions#awaitDeletionOf}. */
    private final Runnable openCheck = new Runnable() {
        @Override
        public void run() {
            ensureOpen();
        }
    };

    private Broker(Path dataDir, KafkoOptions options, FileIo io, DirectoryLock lock) {
        this.dataDir = dataDir;
        this.options = options;
        this.deletions = new TopicDeletions(admin, dataDir);
        this.ctx = new BrokerContext(options, io, new Scheduler(), new Preparer());
        this.changes = new TopicChanges(this, admin, ctx, options);
        this.compactions = new Compactions(ctx, this);
        this.closing = new BrokerClose(dataDir, ctx, lock, deletions, topics, compactions);
        this.retentionTask = ctx.scheduler().every(retention, options.retentionCheckInterval());
        ctx.scheduler().every(strandedRescue, CompletionBarrier.Strandings.RESCUE_PERIOD);
    }

    /** Opens {@code dataDir} on the real file system. */
    public static Kafko open(Path dataDir, KafkoOptions options) {
        return open(dataDir, options, FileIo.SYSTEM);
    }

    /** {@link Names#check}, for {@link Kafko#checkName}: {@code kind} is "topic" or "group". */
    public static void checkName(String kind, String name) {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(name, kind);
        Names.check(kind, name);
    }

    /**
     * Refuses a clock that cannot tell the time in epoch milliseconds (one fixed at {@code Instant.MAX} or
     * {@code Instant.MIN}, beyond what a {@code long} of milliseconds holds), before anything is opened: every
     * append and the recovery of every partition read it, and its raw {@code ArithmeticException} escaped the
     * open, or a {@code createTopic} as a {@link KafkoStorageException} saying "long overflow".
     */
    private static void checkClock(Clock clock) {
        try {
            clock.millis();
        } catch (RuntimeException e) {
            throw new InvalidConfigException("KafkoOptions.clock " + clock
                    + " cannot tell the time in epoch milliseconds: " + e, e);
        }
    }

    /** Opens {@code dataDir} through {@code io} (tests inject faults here). */
    static Broker open(Path dataDir, KafkoOptions options, FileIo io) {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(options, "options");
        checkClock(options.clock());
        Path dir;
        try {
            Files.createDirectories(dataDir);
            dir = dataDir.toRealPath();
        } catch (IOException e) {
            throw new KafkoStorageException("cannot create data directory " + dataDir + ": " + e, e);
        }
        DirectoryLock lock = DirectoryLock.acquire(dir, io);
        Broker b;
        try {
            b = new Broker(dir, options, io, lock);
        } catch (RuntimeException | Error e) {
            lock.release();
            throw e;
        }
        try {
            TopicDirectory.discover(b, dir, b.topics);
        } catch (RuntimeException | Error e) {
            try {
                b.close();
            } catch (RuntimeException | Error closing) {
                // what failed the open is what the caller must see (a full disk fails the close of the topics
                // opened before as well)
                e.addSuppressed(closing);
            }
            throw e;
        }
        // once at open, in the background, then every interval: a process that lives shorter than the
        // interval (a command-line tool, a job, a service that restarts often) still applies retention
        b.ctx.scheduler().schedule(b.retentionAtOpen, Duration.ZERO);
        return b;
    }

    BrokerContext context() {
        return ctx;
    }

    @Override
    public Path dataDir() {
        return dataDir;
    }

    @Override
    public KafkoOptions options() {
        return options;
    }

    @Override
    public Topic createTopic(String name) {
        return createTopic(name, options.topicDefaults());
    }

    @Override
    public Topic createTopic(String name, TopicConfig config) {
        Objects.requireNonNull(name, "name");
        Names.check("topic", name);
        Objects.requireNonNull(config, "config");
        config.compression().requireAvailable();
        TopicImpl t;
        admin.lock();
        try {
            ensureOpen();
            deletions.awaitDeletionOf(name, openCheck); // first: another caller may create it meanwhile
            if (topics.containsKey(name)) {
                throw new TopicExistsException("topic '" + name + "' already exists in " + dataDir);
            }
            Names.checkNoCollision(name, topics.keySet());
            refuseNameFoldedOntoAnother(name);
            t = TopicDirectory.create(this, dataDir.resolve(name), name, config);
            topics.put(name, t);
        } finally {
            admin.unlock();
        }
        ctx.observer().onTopicCreated(name); // outside the lock: an observer may make admin calls
        return t;
    }

    /**
     * Admin lock held. Refuses a topic whose directory the file system would find under another name: where names
     * are not told apart by case (macOS, Windows, a case-folding Linux directory), {@code orders} reaches the
     * directory of topic {@code Orders}, which the create took for a leftover and removed (when the topic held no
     * record yet: its later records were acknowledged and lost at the next open), or two topics shared one log.
     *
     * @throws TopicExistsException when that directory is an open topic's
     * @throws InvalidTopicLayoutException when it is some other entry of the data directory
     */
    private void refuseNameFoldedOntoAnother(String name) {
        String other = TopicDirectory.heldUnderAnotherName(ctx.io(), dataDir, name);
        if (other != null && !topics.containsKey(other)) {
            deletions.awaitDeletionOf(other, openCheck); // a deletion of it in flight: its directory goes
            other = TopicDirectory.heldUnderAnotherName(ctx.io(), dataDir, name);
        }
        if (other == null) {
            return;
        }
        String why = "the file system of " + dataDir + " does not tell names apart by case, so '" + name + "' would be";
        if (topics.containsKey(other)) {
            throw new TopicExistsException("topic '" + name + "' cannot be created: " + why + " the directory of topic '"
                    + other + "'; pick a name that differs from it in more than case");
        }
        throw new InvalidTopicLayoutException(name, why + " " + dataDir.resolve(other) + ", which is no topic of this"
                + " instance; move it away or pick a name that differs from it in more than case");
    }

    @Override
    public Optional<Topic> topic(String name) {
        Objects.requireNonNull(name, "name");
        Names.check("topic", name);
        ensureOpen();
        return Optional.ofNullable(existing(name));
    }

    /** The topic named so, unless it does not exist or is being deleted (its handle is marked deleted first). */
    @Nullable TopicImpl existing(String name) {
        TopicImpl t = topics.get(name);
        return t == null || t.life() == TopicImpl.Life.DELETED ? null : t;
    }

    @Override
    public Set<String> topics() {
        ensureOpen();
        return Collections.unmodifiableSet(new TreeSet<>(topics.keySet()));
    }

    /**
     * Deletes a topic. The admin lock is held only to take the topic out of the instance (its name then
     * refused by {@code createTopic} until the deletion ends) and to end the deletion: its partitions take
     * the deletion, and its files go, outside it, since the partitions complete their sends' futures on the
     * way and a callback of theirs may make an admin call, on this thread or on one the deletion waits for.
     */
    @Override
    public void deleteTopic(String name) {
        Objects.requireNonNull(name, "name");
        Names.check("topic", name);
        TopicImpl t;
        admin.lock();
        try {
            ensureOpen();
            t = topics.get(name);
            if (t == null) {
                throw new UnknownTopicException("topic '" + name + "' does not exist in " + dataDir);
            }
            for (PartitionActor a : t.actors()) {
                a.commands.requireNotOwnedByCaller("deletion"); // before anything changes
            }
            t.end(TopicImpl.Life.DELETED);
            topics.remove(name);
            deletions.begin(name);
        } finally {
            admin.unlock();
        }
        boolean closed = false;
        try {
            deletePartitions(t);
            closed = true;
            TopicDirectory.delete(ctx.io(), t.dir, name);
        } finally {
            try {
                if (closed) {
                    // gone for every handle, also when its files could not all be deleted (the next open finishes);
                    // told before a create of the name may go on, so that no observer hears of the new topic first
                    ctx.observer().onTopicDeleted(name);
                }
            } finally {
                deletions.end(name, closed);
            }
        }
    }

    /** {@link TopicChanges#increasePartitions}. */
    void increasePartitions(TopicImpl t, int newCount) {
        changes.increasePartitions(t, newCount);
    }

    /** {@link TopicChanges#alterConfig}. */
    void alterConfig(TopicImpl t, TopicConfig config) {
        changes.alterConfig(t, config);
    }

    /** A directory that does not outlive its use need not wait at a roll for what nothing forces anyway. */
    boolean forcesSeals(TopicConfig config) {
        return options.fsyncMetadata() || config.fsync() != FsyncPolicy.NEVER;
    }

    PartitionActor openPartition(String topic, Path topicDir, int partition, TopicConfig config) {
        boolean forceSeals = forcesSeals(config);
        PartitionLog log = PartitionLog.open(topic, partition, FileNames.partitionDir(topicDir, partition),
                PartitionCommands.logConfig(config), options.clock(), ctx.io(), ctx.preparer(), forceSeals);
        try {
            return new PartitionActor(topic, partition, log, config, ctx);
        } catch (RuntimeException | Error e) {
            try {
                log.close();
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    @Override
    public Producer producer(String topic) {
        return new ProducerImpl(require(topic));
    }

    @Override
    public Consumer consumer(String topic) {
        return consumer(topic, ConsumerOptions.DEFAULTS);
    }

    @Override
    public Consumer consumer(String topic, ConsumerOptions consumerOptions) {
        Objects.requireNonNull(consumerOptions, "consumerOptions");
        return new ConsumerImpl(require(topic), null, consumerOptions, options.maxPollRecords(), options.offsetReset());
    }

    @Override
    public Consumer groupConsumer(String topic, String group) {
        return groupConsumer(topic, group, ConsumerOptions.DEFAULTS);
    }

    @Override
    public Consumer groupConsumer(String topic, String group, ConsumerOptions consumerOptions) {
        Names.check("group", group);
        Objects.requireNonNull(consumerOptions, "consumerOptions");
        TopicImpl t = require(topic);
        for (;;) {
            try {
                return new ConsumerImpl(t, t.group(group), consumerOptions, options.maxPollRecords(),
                        options.offsetReset());
            } catch (GroupCoordinator.Deleted e) {
                // the group was deleted between the look-up and the join (or the first read of its offsets): the
                // consumer left it, and joins the group's next coordinator, starting by its reset policy
            }
        }
    }

    @Override
    public Set<String> groups(String topic) {
        TopicImpl t = require(topic);
        Set<String> onDisk;
        try {
            onDisk = TopicDirectory.groupsOnDisk(t.dir);
        } catch (KafkoStorageException e) {
            // a delete that took the directory away while it was listed: the topic is gone, not the disk failing
            t.ensureOpen();
            throw e;
        }
        Set<String> out = new TreeSet<>(onDisk);
        t.groups.forEach((name, g) -> {
            if (g.memberCount() > 0) {
                out.add(name);
            }
        });
        return Collections.unmodifiableSet(out);
    }

    @Override
    public GroupInfo groupInfo(String topic, String group) {
        Names.check("group", group);
        TopicImpl t = require(topic);
        for (;;) {
            GroupCoordinator g = t.knownGroup(group);
            try {
                return g != null ? g.info() : GroupCoordinator.infoWithoutCommits(t, group);
            } catch (GroupCoordinator.Deleted e) {
                // deleted while read: asked again of what the topic knows now
            }
        }
    }

    @Override
    public boolean deleteGroup(String topic, String group) {
        Names.check("group", group);
        TopicImpl t = require(topic);
        GroupCoordinator g = t.knownGroup(group);
        // unknown (no member made it, no commits on disk): nothing to delete, and nothing made to find that out
        return g != null && g.delete();
    }

    @Override
    public long groupLag(String topic, String group, int partition) {
        Names.check("group", group);
        TopicImpl t = require(topic);
        for (;;) {
            GroupCoordinator g = t.knownGroup(group);
            try {
                return g != null ? g.lag(partition) : GroupCoordinator.lagWithoutCommit(t, partition);
            } catch (GroupCoordinator.Deleted e) {
                // deleted while read: asked again of what the topic knows now
            }
        }
    }

    private TopicImpl require(String name) {
        Names.check("topic", name);
        ensureOpen();
        TopicImpl t = existing(name);
        if (t == null) {
            throw new UnknownTopicException("topic '" + name + "' does not exist in " + dataDir);
        }
        return t;
    }

    private void ensureOpen() {
        if (closed) {
            throw new KafkoClosedException("kafko instance at " + dataDir + " is closed");
        }
    }

    /**
     * When a thread left rounds stranded (out of stack as it completed them; {@link CompletionBarrier}), completes
     * them on this thread, the scheduler's, whose stack is fresh: the last resort for a thread blocked on a plain
     * future made from kafko's ({@code CompletableFuture.allOf}), which nobody else would wake if nobody came to the
     * partition. The flag is lowered before the partitions are looked at, so a round stranded meanwhile is found
     * now or at the next look.
     */
    private void rescueStranded() {
        CompletionBarrier.Strandings s = ctx.stranded();
        if (!s.raised) {
            return;
        }
        s.raised = false;
        for (TopicImpl t : topics.values()) {
            for (PartitionActor a : t.actors()) {
                a.lookForStranded();
            }
        }
    }

    private void applyRetention(boolean compactions) {
        for (TopicImpl t : topics.values()) {
            TopicConfig c = t.config();
            if (compactions) {
                this.compactions.scheduleDue(t);
            }
            if (!c.cleanupPolicy().deletes() || (c.retention() == null && c.retentionBytes() < 0)) {
                continue;
            }
            for (PartitionActor a : t.actors()) {
                if (closed) {
                    return;
                }
                try {
                    retentionRun(a);
                } catch (KafkoClosedException | UnknownTopicException e) {
                    break; // closed or deleted meanwhile: nothing left to trim there
                }
            }
        }
    }

    /**
     * One retention run of {@code a}; while runs leave segments due, the next one is a scheduler task of its own,
     * behind the work queued meanwhile (interval fsyncs, the ends of lingers, other partitions' retention), so that
     * a partition with many segments to delete, or one a producer keeps rolling, never holds the scheduler.
     */
    private void retentionRun(PartitionActor a) {
        if (closed || !a.isOpen()) {
            return;
        }
        a.commands.runCommand(CommandRequest.Kind.RETENTION);
        if (a.commands.retentionUnfinished() && !closed) {
            ctx.scheduler().schedule(() -> {
                try {
                    retentionRun(a);
                } catch (KafkoClosedException | UnknownTopicException e) {
                    // closed or deleted meanwhile: nothing left to trim there
                }
            }, Duration.ZERO);
        }
    }

    /** Closes every partition of a deleted topic and its group files; the first failure is rethrown. */
    private void deletePartitions(TopicImpl t) {
        RuntimeException first = null;
        for (PartitionActor a : t.actors()) {
            try {
                // not closeLog: a deletion does not wait for the callbacks of the rounds before it, which may
                // wait for the deletion (a close does, being a durability boundary)
                a.commands.runCommand(CommandRequest.Kind.DELETE);
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
            // a compaction in hand stops at its next frame (the partition is closed), deleting its files, before the
            // directory is deleted: no file of it appears in a directory being deleted
            a.compactionLock.lock();
            a.compactionLock.unlock();
        }
        try {
            t.closeGroups(true);
        } catch (RuntimeException e) {
            first = first == null ? e : first;
        }
        if (first != null) {
            throw first;
        }
    }

    /**
     * Closes every partition and stops every thread ({@link BrokerClose}: the marking and the close run on a
     * {@code kafko-close} thread, so that a caller that runs out of stack leaves nothing half done).
     */
    @Override
    public void close() {
        if (closed) {
            closing.awaitClosed();
            return;
        }
        closing.close(this::markClosed);
    }

    /**
     * Marks the instance closed; returns its partitions, or null when another close marked it first. The admin
     * lock is held only while the instance is marked closed: the waits that follow (the scheduler's task in hand,
     * the close helpers) are for threads that run user callbacks, and a callback's admin call must find the
     * instance closed rather than wait for the lock of a close that waits for it.
     */
    private @Nullable List<PartitionActor> markClosed() {
        List<PartitionActor> partitions = new ArrayList<>();
        admin.lock();
        try {
            if (closed) {
                return null;
            }
            closed = true;
            // every handle refuses new work first: senders that loop would otherwise be acknowledged for as
            // long as the scheduler takes to stop (seconds under thousands of senders that contend for its queue)
            for (TopicImpl t : topics.values()) {
                t.end(TopicImpl.Life.CLOSED);
                partitions.addAll(Arrays.asList(t.actors()));
            }
            retentionTask.cancel(false);
        } finally {
            admin.unlock();
        }
        return partitions;
    }

    @Override
    public String toString() {
        return "Kafko[" + dataDir + (closed ? ", closed]" : "]");
    }
}
