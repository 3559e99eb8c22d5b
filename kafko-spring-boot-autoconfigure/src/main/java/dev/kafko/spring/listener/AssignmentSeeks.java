package dev.kafko.spring.listener;

import dev.kafko.spring.core.BackendConsumer;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets a {@link ConsumerSeekAware} listener choose where the partitions just assigned to a member
 * start. Runs on the member's polling thread, inside its poll, and seeks at once; the callback refuses seeks
 * made on any other thread, after {@link ConsumerSeekAware#onPartitionsAssigned} returned, or of partitions
 * not just assigned.
 */
final class AssignmentSeeks extends PartitionSeeks {

    /** Logs as the polling loop it is part of. */
    private static final Logger LOG = LoggerFactory.getLogger(ListenerConsumer.class);

    private final BackendConsumer consumer;
    private final Collection<Integer> assigned;
    private final Thread owner = Thread.currentThread();
    private boolean active = true;

    private AssignmentSeeks(KafkoMessageListenerContainer container, BackendConsumer consumer,
                            Collection<Integer> assigned) {
        super(container);
        this.consumer = consumer;
        this.assigned = assigned;
    }

    /** Tells {@code aware} the partitions {@code consumer} was just assigned, with a callback to seek them. */
    static void offer(ConsumerSeekAware aware, KafkoMessageListenerContainer container, BackendConsumer consumer,
                      Collection<Integer> partitions, @Nullable Object topicId) {
        Map<Integer, Long> assignments = new LinkedHashMap<>();
        for (int p : partitions) {
            assignments.put(p, consumer.position(p));
        }
        AssignmentSeeks callback = new AssignmentSeeks(container, consumer, partitions);
        try {
            aware.onPartitionsAssigned(container.topic(), Collections.unmodifiableMap(assignments), callback);
        } catch (RuntimeException e) {
            // the seeks it made before it threw are undone: the member reads on from the offsets it had
            restore(consumer, assignments, e);
            LOG.error("Listener '{}' failed to choose start offsets on partitions {} of {}; reading on from {}",
                    container.getListenerId(), partitions, container.topic(), assignments, e);
            return;
        } finally {
            callback.active = false;
        }
        for (Map.Entry<Integer, Long> a : assignments.entrySet()) {
            long now = consumer.position(a.getKey());
            if (now < a.getValue()) {
                // a replay: waited for by what the members finish, since the group's commit stays where it was
                container.processed().replay(container.topic(), topicId, a.getKey(), now);
            }
        }
    }

    /** Moves each partition back to the offset it had when it was assigned; a failure is added to {@code failure}. */
    private static void restore(BackendConsumer consumer, Map<Integer, Long> assignments, RuntimeException failure) {
        for (Map.Entry<Integer, Long> a : assignments.entrySet()) {
            try {
                if (consumer.position(a.getKey()) != a.getValue()) {
                    consumer.seek(a.getKey(), a.getValue());
                }
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            }
        }
    }

    @Override
    void submit(Collection<Integer> partitions, String what, Seek seek) {
        if (!active || Thread.currentThread() != owner) {
            throw new IllegalStateException("Listener '" + container.getListenerId()
                    + "' may seek through this callback only on its polling thread, during onPartitionsAssigned");
        }
        if (!assigned.containsAll(partitions)) {
            throw new IllegalArgumentException("Listener '" + container.getListenerId() + "' was assigned "
                    + assigned + " of " + container.topic() + ", not all of " + partitions);
        }
        for (int p : partitions) {
            seekOrStay(seek, consumer, p);
        }
    }
}
