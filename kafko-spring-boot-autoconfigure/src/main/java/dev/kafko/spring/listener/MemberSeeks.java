package dev.kafko.spring.listener;

import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoRecord;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.core.BackendConsumer;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The callback a {@link ConsumerSeekAware} listener is given for one member's whole run: seeks asked for on any
 * thread are queued, and the member's polling thread makes them ({@link #makeQueued}) before it delivers its next
 * record. Asking wakes a member blocked in its poll, and ends the back-off of a retry of a record of a partition
 * sought ({@link ListenerConsumer#seekRequested}).
 */
final class MemberSeeks extends PartitionSeeks {

    /** Logs as the polling loop it is part of. */
    private static final Logger LOG = LoggerFactory.getLogger(ListenerConsumer.class);

    private record Queued(Collection<Integer> partitions, String what, Seek seek) {
    }

    private final ConsumerSeekAware aware;
    private final ConcurrentLinkedQueue<Queued> queued = new ConcurrentLinkedQueue<>();
    /** Makes the member's blocked poll return (any thread). */
    private final Runnable wakeup;
    private volatile boolean stopped;
    /** Set while the polling thread makes the queued seeks, until their progress is told: {@link #pending} says so. */
    private volatile boolean making;

    MemberSeeks(KafkoMessageListenerContainer container, ConsumerSeekAware aware, Runnable wakeup) {
        super(container);
        this.aware = aware;
        this.wakeup = wakeup;
    }

    /** The member starts: hands the listener this callback. Polling thread. */
    void register() {
        try {
            aware.registerSeekCallback(this);
        } catch (RuntimeException e) {
            LOG.error("Listener '{}' failed in registerSeekCallback", container.getListenerId(), e);
        }
    }

    /** The member's first poll of this run completed: tells the listener. Polling thread. */
    void firstPollDone() {
        try {
            aware.onFirstPoll();
        } catch (RuntimeException e) {
            LOG.error("Listener '{}' failed in onFirstPoll", container.getListenerId(), e);
        }
    }

    /** The member went idle: tells the listener, with this callback. Polling thread. */
    void idle(Map<Integer, Long> assignments) {
        try {
            aware.onIdleContainer(container.topic(), assignments, this);
        } catch (RuntimeException e) {
            LOG.error("Listener '{}' failed in onIdleContainer({}, {})", container.getListenerId(), container.topic(),
                    assignments, e);
        }
    }

    /** The member gave up {@code partitions}, once it committed what it processed of them. Polling thread. */
    void revoked(Collection<Integer> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        try {
            aware.onPartitionsRevoked(container.topic(), partitions);
        } catch (RuntimeException e) {
            LOG.error("Listener '{}' failed in onPartitionsRevoked({}, {})", container.getListenerId(),
                    container.topic(), partitions, e);
        }
    }

    /** The member stopped: later seeks throw, queued ones are dropped, and the listener is told. Polling thread. */
    void unregister() {
        stopped = true;
        drop("the member stopped");
        try {
            aware.unregisterSeekCallback();
        } catch (RuntimeException e) {
            LOG.error("Listener '{}' failed in unregisterSeekCallback", container.getListenerId(), e);
        }
    }

    @Override
    void submit(Collection<Integer> partitions, String what, Seek seek) {
        if (stopped) {
            throw new IllegalStateException("Listener '" + container.getListenerId() + "': the member this callback"
                    + " seeks for has stopped");
        }
        queued.add(new Queued(partitions, what, seek));
        wakeup.run();
    }

    /** Whether seeks wait to be made, or are being made (any thread; volatile reads). */
    boolean pending() {
        return !queued.isEmpty() || making;
    }

    /** Whether a seek waits to be made (any thread). */
    boolean queued() {
        return !queued.isEmpty();
    }

    /** Whether a seek of the partition of one of {@code records} waits to be made (any thread). */
    boolean queuedFor(List<KafkoRecord> records) {
        if (records.isEmpty()) {
            return false;
        }
        for (Queued q : queued) {
            for (KafkoRecord record : records) {
                if (q.partitions().contains(record.partition())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The seeks {@link #makeQueued} made are committed and their progress told. Polling thread. */
    void made() {
        making = false;
    }

    /**
     * Makes the queued seeks, in the order they were asked for; a seek of a partition {@code consumer} does not
     * read, or one that fails, is logged and skipped. Polling thread only.
     *
     * @return the partitions sought
     * @throws UnknownTopicException when the topic was deleted
     */
    Set<Integer> makeQueued(BackendConsumer consumer) {
        making = true;
        Set<Integer> sought = new HashSet<>();
        Set<Integer> assignment = consumer.assignment();
        for (Queued q = queued.poll(); q != null; q = queued.poll()) {
            for (int p : q.partitions()) {
                if (!assignment.contains(p)) {
                    LOG.warn("Listener '{}': {} does not read {}-{} (it reads {}); its seek {} is ignored",
                            container.getListenerId(), container.memberName(), container.topic(), p, assignment,
                            q.what());
                    continue;
                }
                try {
                    seekOrStay(q.seek(), consumer, p);
                    sought.add(p);
                } catch (UnknownTopicException | KafkoClosedException e) {
                    throw e;
                } catch (RuntimeException e) {
                    LOG.error("Listener '{}' could not seek {}-{} {}; it reads on from offset {}",
                            container.getListenerId(), container.topic(), p, q.what(), consumer.position(p), e);
                }
            }
        }
        return sought;
    }

    /** Drops the queued seeks, logging that they were not made and {@code why}. Polling thread only. */
    void drop(String why) {
        int n = 0;
        while (queued.poll() != null) {
            n++;
        }
        if (n > 0) {
            LOG.warn("Listener '{}': {} seek(s) of {} asked for by the listener were not made: {}",
                    container.getListenerId(), n, container.topic(), why);
        }
    }
}
