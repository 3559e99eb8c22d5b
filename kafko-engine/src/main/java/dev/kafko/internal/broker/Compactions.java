package dev.kafko.internal.broker;

import dev.kafko.KafkoClosedException;
import dev.kafko.TopicConfig;
import dev.kafko.UnknownTopicException;
import dev.kafko.internal.log.CompactionPlan;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Internal: the compactions of an instance's compacted topics. The background ones run on one daemon thread,
 * {@code kafko-cleaner}, which exists only while there is work and for a few seconds after; {@link
 * dev.kafko.Topic#compact()} runs on its caller's thread. Either way a compaction of a partition is prepared off
 * its owner (the heavy part: reading the sealed segments, writing and fsyncing the new files) and applied by a
 * {@link CommandRequest.Kind#COMPACT} command that the owner runs between rounds (renames and index files). One
 * compaction at a time per partition ({@link PartitionActor#compactionLock}). {@link #close} cancels the one in
 * hand (its files are deleted) and waits for the thread; it never interrupts it (an interrupt would close a file
 * channel under its write).
 */
final class Compactions implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Compactions.class.getName());

    static final String THREAD_NAME = "kafko-cleaner";

    private final BrokerContext ctx;
    private final Broker broker;
    private final ThreadPoolExecutor executor;
    private final DaemonThreads threads = new DaemonThreads(THREAD_NAME);
    /** The partitions queued for the background thread, so that each is queued once. */
    private final Set<PartitionActor> queued = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    Compactions(BrokerContext ctx, Broker broker) {
        this.ctx = ctx;
        this.broker = broker;
        executor = new ThreadPoolExecutor(1, 1, 5, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threads);
        executor.allowCoreThreadTimeOut(true);
    }

    /** Queues a background compaction of each partition of {@code topic} that is due. The scheduler's thread. */
    void scheduleDue(TopicImpl topic) {
        TopicConfig config = topic.config();
        if (!config.cleanupPolicy().compacts() || closed) {
            return;
        }
        long now = ctx.clock().millis();
        for (PartitionActor a : topic.actors()) {
            if (a.isOpen() && a.log().compaction().due(config, now) && queued.add(a)) {
                executor.execute(new Background(topic, a));
            }
        }
    }

    /** A background compaction of one partition (a named class: see the package javadoc on lambdas). */
    private final class Background implements Runnable {
        private final TopicImpl topic;
        private final PartitionActor actor;

        Background(TopicImpl topic, PartitionActor actor) {
            this.topic = topic;
            this.actor = actor;
        }

        @Override
        public void run() {
            queued.remove(actor);
            try {
                compact(topic.config(), actor, false);
            } catch (CancellationException | KafkoClosedException | UnknownTopicException e) {
                // closed or deleted meanwhile: nothing left to compact there
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "compaction of " + actor.topic + "-" + actor.partition
                        + " failed; it is tried again at the next check: " + e, e);
            }
        }
    }

    /**
     * Compacts {@code actor}'s partition by {@code config} now; with {@code wait}, after the compaction in hand,
     * else not at all while one is; in as many passes as its keys need. Returns the records removed.
     */
    long compact(TopicConfig config, PartitionActor actor, boolean wait) {
        ReentrantLock lock = actor.compactionLock;
        if (wait) {
            lock.lock();
        } else if (!lock.tryLock()) {
            return 0;
        }
        try {
            if (closed) {
                throw new KafkoClosedException("the instance is closed");
            }
            if (!config.cleanupPolicy().compacts()) {
                return 0; // a background compaction queued before the topic was altered to DELETE
            }
            boolean force = broker.forcesSeals(config);
            long removed = 0;
            CompactionPlan plan;
            do {
                // a pass as far as the partition's keys fit in the buffer; the next goes on from its end
                try {
                    plan = actor.log().compaction().prepare(config, ctx.clock().millis(), force,
                            ctx.options().compactionBufferBytes(), () -> closed || !actor.isOpen());
                } catch (CancellationException e) {
                    // the instance closed, or the partition with its topic, under the preparation (its files are
                    // deleted): the caller learns which, typed, as from any other call
                    throw actor.isOpen() ? new KafkoClosedException("the instance is closed")
                            : actor.commands.rejection();
                }
                if (plan.isEmpty()) {
                    if (plan.cleanableEnd() >= 0) {
                        actor.log().compaction().noteCompacted(plan, true);
                    }
                } else {
                    removed += actor.commands.compact(plan, force);
                }
            } while (actor.log().compaction().passesLeft() && !closed);
            return removed;
        } finally {
            lock.unlock();
        }
    }

    /** Cancels the compaction in hand and waits for the background thread to end. */
    @Override
    public void close() {
        closed = true;
        Scheduler.shutdownAndWait(executor, THREAD_NAME, false);
        threads.joinAll();
    }
}
