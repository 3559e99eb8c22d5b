package dev.kafko.spring.listener;

import dev.kafko.spring.event.ConsumerPartitionPausedEvent;
import dev.kafko.spring.event.ConsumerPartitionResumedEvent;
import dev.kafko.spring.event.ConsumerPausedEvent;
import dev.kafko.spring.event.ConsumerResumedEvent;
import dev.kafko.spring.event.ConsumerStartedEvent;
import dev.kafko.spring.event.ConsumerStartingEvent;
import dev.kafko.spring.event.ConsumerStoppedEvent;
import dev.kafko.spring.event.ContainerStoppedEvent;
import dev.kafko.spring.event.ListenerContainerIdleEvent;
import dev.kafko.spring.event.ListenerContainerNoLongerIdleEvent;
import dev.kafko.spring.event.ListenerContainerPartitionIdleEvent;
import dev.kafko.spring.event.ListenerContainerPartitionNoLongerIdleEvent;
import dev.kafko.KafkoRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * The events one member publishes ({@link dev.kafko.spring.event}), and when it goes idle: no record for the
 * container's idle event interval, counted from the last records received (or the start), an idle event after
 * each interval without records; the same for each partition it reads with the partition idle event interval,
 * counted from the partition's last record (or its assignment). Polling thread only.
 */
final class MemberEvents {

    private final KafkoMessageListenerContainer container;
    /** The idle event interval in nanoseconds; 0: no idle events. */
    private final long idleNanos;
    /**
     * The member: the partitions it reads now, and told when an idle event was published and of each partition a
     * partition idle event was published for (a {@link ConsumerSeekAware} listener's turn).
     */
    private final ListenerConsumer listenerConsumer;
    private long lastReceived;
    private long lastIdleEvent;
    private boolean idle;
    private boolean paused;
    /** The partition idle event interval in nanoseconds; 0: no partition idle events. */
    private final long partitionIdleNanos;
    /** The partitions the member reads, with partition idle events on. */
    private final Map<Integer, PartitionIdleness> partitions = new HashMap<>();

    /** One partition's last record (or assignment), its last idle event (or that), and whether it is idle. */
    private static final class PartitionIdleness {
        long lastReceived;
        long lastIdleEvent;
        boolean idle;

        PartitionIdleness(long now) {
            lastReceived = now;
            lastIdleEvent = now;
        }
    }

    MemberEvents(KafkoMessageListenerContainer container, ListenerConsumer listenerConsumer) {
        this.container = container;
        Duration interval = container.properties().idleEventInterval();
        this.idleNanos = interval == null ? 0 : interval.toNanos();
        Duration partitionInterval = container.properties().idlePartitionEventInterval();
        this.partitionIdleNanos = partitionInterval == null ? 0 : partitionInterval.toNanos();
        this.listenerConsumer = listenerConsumer;
    }

    /** The member's thread began: the first thing it does. */
    void starting() {
        container.publish(StartEvent.STARTING);
    }

    /** The member joined its group and is about to poll: idle time counts from now. */
    void started() {
        lastReceived = System.nanoTime();
        lastIdleEvent = lastReceived;
        container.publish(StartEvent.STARTED);
    }

    /** Makes a member's {@link ConsumerStartingEvent} or {@link ConsumerStartedEvent}; a class, not lambdas. */
    private static final class StartEvent
            implements BiFunction<KafkoMessageListenerContainer, ConcurrentMessageListenerContainer, Object> {

        static final StartEvent STARTING = new StartEvent(true);
        static final StartEvent STARTED = new StartEvent(false);

        private final boolean starting;

        private StartEvent(boolean starting) {
            this.starting = starting;
        }

        @Override
        public Object apply(KafkoMessageListenerContainer member, ConcurrentMessageListenerContainer parent) {
            return starting ? new ConsumerStartingEvent(member, parent, member.getListenerId())
                    : new ConsumerStartedEvent(member, parent, member.getListenerId());
        }
    }

    /** The member left its group and its thread ends; {@code died}: what ended it, or null for a stop. */
    void stopped(@Nullable Throwable died) {
        ConsumerStoppedEvent.Reason reason = reason(died);
        container.publish((member, parent) -> new ConsumerStoppedEvent(member, parent, member.getListenerId(), reason));
        container.publish((member, parent) -> new ContainerStoppedEvent(member, parent, member.getListenerId()));
    }

    /** Why a member stopped: {@code died} is what ended its thread, or null for a stop asked for. */
    static ConsumerStoppedEvent.Reason reason(@Nullable Throwable died) {
        return died == null ? ConsumerStoppedEvent.Reason.NORMAL
                : died instanceof Error ? ConsumerStoppedEvent.Reason.ERROR : ConsumerStoppedEvent.Reason.ABNORMAL;
    }

    /** Whether the member is paused now: an event when that changed. */
    void paused(boolean now) {
        if (now == paused) {
            return;
        }
        paused = now;
        Set<Integer> partitions = listenerConsumer.assignedPartitions();
        // two returns, not a conditional: see KafkoMessageListenerContainer.publish
        container.publish((member, parent) -> {
            if (now) {
                return new ConsumerPausedEvent(member, parent, member.getListenerId(), container.topic(), partitions);
            }
            return new ConsumerResumedEvent(member, parent, member.getListenerId(), container.topic(), partitions);
        });
    }

    /** The member paused ({@code paused}) or resumed these partitions of its topic: an event for each. */
    void partitionsPaused(Collection<Integer> partitions, boolean paused) {
        for (int partition : partitions) {
            container.publish((member, parent) -> {
                if (paused) {
                    return new ConsumerPartitionPausedEvent(member, parent, member.getListenerId(), container.topic(),
                            partition);
                }
                return new ConsumerPartitionResumedEvent(member, parent, member.getListenerId(), container.topic(),
                        partition);
            });
        }
    }

    /**
     * How long the member's next poll (or paused wait) may last, at most {@code millis}: no longer than until
     * its next idle event is due, so that it is not late by up to a poll timeout; with partition idle events, no
     * longer than their interval either: a partition assigned during the poll is due one interval after.
     */
    long waitMillis(long millis) {
        if (idleNanos == 0 && partitionIdleNanos == 0) {
            return millis;
        }
        long now = System.nanoTime();
        long due = idleNanos == 0 ? Long.MAX_VALUE : lastIdleEvent + idleNanos - now;
        if (partitionIdleNanos > 0) {
            due = Math.min(due, partitionIdleNanos);
        }
        for (PartitionIdleness p : partitions.values()) {
            due = Math.min(due, p.lastIdleEvent + partitionIdleNanos - now);
        }
        return Math.max(1, Math.min(millis, TimeUnit.NANOSECONDS.toMillis(Math.min(due, Long.MAX_VALUE - 999_999)
                + 999_999)));
    }

    /** The member was assigned {@code assigned}: their idle time counts from now. */
    void assigned(Collection<Integer> assigned) {
        if (partitionIdleNanos == 0) {
            return;
        }
        long now = System.nanoTime();
        for (int p : assigned) {
            partitions.putIfAbsent(p, new PartitionIdleness(now));
        }
    }

    /** The member no longer reads {@code revoked}. */
    void revoked(Collection<Integer> revoked) {
        partitions.keySet().removeAll(revoked);
    }

    /** The member reads no partition any more (its topic was deleted). */
    void revokedAll() {
        partitions.clear();
    }

    /**
     * A poll returned {@code records} (perhaps none), or a paused wait ended (none): an event for each partition
     * of them that was idle, and one for each partition idle for another interval.
     */
    void partitionsPolled(List<KafkoRecord> records) {
        if (partitions.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        int last = -1;
        for (KafkoRecord r : records) {
            int p = r.partition();
            PartitionIdleness state = p == last ? null : partitions.get(p);
            last = p;
            if (state == null) {
                continue;
            }
            if (state.idle) {
                state.idle = false;
                long idleMillis = TimeUnit.NANOSECONDS.toMillis(now - state.lastReceived);
                container.publish((member, parent) -> new ListenerContainerPartitionNoLongerIdleEvent(member, parent,
                        member.childId(), container.topic(), p, idleMillis));
            }
            state.lastReceived = now;
            state.lastIdleEvent = now;
        }
        boolean pausedNow = paused;
        List<Integer> idleNow = null;
        for (Map.Entry<Integer, PartitionIdleness> e : partitions.entrySet()) {
            PartitionIdleness state = e.getValue();
            if (now - state.lastIdleEvent < partitionIdleNanos) {
                continue;
            }
            state.lastIdleEvent = now;
            state.idle = true;
            int p = e.getKey();
            long idleMillis = TimeUnit.NANOSECONDS.toMillis(now - state.lastReceived);
            // paused: the member, or the partition alone (its pause asked for), as spring-kafka tells it
            boolean partitionPaused = pausedNow || container.isPartitionPauseRequested(container.topic(), p);
            container.publish((member, parent) -> new ListenerContainerPartitionIdleEvent(member, parent,
                    member.childId(), container.topic(), p, idleMillis, partitionPaused));
            if (idleNow == null) {
                idleNow = new ArrayList<>();
            }
            idleNow.add(p);
        }
        if (idleNow != null) {
            for (int p : idleNow) { // after the loop: what it calls may change the partitions
                listenerConsumer.idlePartition(p);
            }
        }
    }

    /** A poll returned records: no longer idle (an event, when it was). */
    void received() {
        long now = System.nanoTime();
        if (idle) {
            long idleMillis = TimeUnit.NANOSECONDS.toMillis(now - lastReceived);
            Set<Integer> partitions = listenerConsumer.assignedPartitions();
            container.publish((member, parent) -> new ListenerContainerNoLongerIdleEvent(member, parent,
                    member.childId(), container.topic(), partitions, idleMillis));
            idle = false;
        }
        lastReceived = now;
        lastIdleEvent = now;
    }

    /** A poll (or a paused wait) returned no records: an idle event when one is due. */
    void nothingReceived() {
        if (idleNanos == 0) {
            return;
        }
        long now = System.nanoTime();
        if (now - lastIdleEvent < idleNanos) {
            return;
        }
        lastIdleEvent = now;
        idle = true;
        long idleMillis = TimeUnit.NANOSECONDS.toMillis(now - lastReceived);
        Set<Integer> partitions = listenerConsumer.assignedPartitions();
        boolean pausedNow = paused;
        container.publish((member, parent) -> new ListenerContainerIdleEvent(member, parent, member.childId(),
                container.topic(), partitions, idleMillis, pausedNow));
        listenerConsumer.idle();
    }
}
