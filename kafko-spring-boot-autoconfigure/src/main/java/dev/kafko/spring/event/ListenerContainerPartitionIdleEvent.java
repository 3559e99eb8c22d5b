package dev.kafko.spring.event;

import java.io.Serial;
import java.util.List;

/**
 * A partition that a member of a listener's group reads received no record for its container's partition idle
 * event interval ({@code kafko.listener.idle-partition-event-interval}), counted from its last record or from its
 * assignment; published again after each further interval without records of it, paused or not, until one comes
 * ({@link ListenerContainerPartitionNoLongerIdleEvent}).
 */
public class ListenerContainerPartitionIdleEvent extends PartitionsEvent {

    @Serial
    private static final long serialVersionUID = 1L;

    private final int partition;
    private final long idleTime;
    private final boolean paused;

    public ListenerContainerPartitionIdleEvent(Object source, Object container, String listenerId, String topic,
            int partition, long idleTime, boolean paused) {
        super(source, container, listenerId, topic, List.of(partition));
        this.partition = partition;
        this.idleTime = idleTime;
        this.paused = paused;
    }

    /** The partition of {@link #getTopic()}. */
    public int getPartition() {
        return partition;
    }

    /** Milliseconds since the partition's last record (or its assignment, when none came since). */
    public long getIdleTime() {
        return idleTime;
    }

    /**
     * Whether the member is paused, or the partition's pause was asked for ({@code pausePartition}), as
     * spring-kafka's event tells.
     */
    public boolean isPaused() {
        return paused;
    }

    @Override
    public String toString() {
        return "ListenerContainerPartitionIdleEvent [idleTime=" + idleTime / 1000.0 + "s, listenerId=" + getListenerId()
                + ", topic=" + getTopic() + ", partition=" + partition + ", paused=" + paused + "]";
    }
}
