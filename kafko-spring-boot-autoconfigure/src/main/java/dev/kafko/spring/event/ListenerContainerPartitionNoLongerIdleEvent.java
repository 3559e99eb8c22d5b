package dev.kafko.spring.event;

import java.io.Serial;
import java.util.List;

/**
 * A partition that was idle ({@link ListenerContainerPartitionIdleEvent}) received records again.
 */
public class ListenerContainerPartitionNoLongerIdleEvent extends PartitionsEvent {

    @Serial
    private static final long serialVersionUID = 1L;

    private final int partition;
    private final long idleTime;

    public ListenerContainerPartitionNoLongerIdleEvent(Object source, Object container, String listenerId, String topic,
            int partition, long idleTime) {
        super(source, container, listenerId, topic, List.of(partition));
        this.partition = partition;
        this.idleTime = idleTime;
    }

    /** The partition of {@link #getTopic()}. */
    public int getPartition() {
        return partition;
    }

    /** Milliseconds the partition had gone without records. */
    public long getIdleTime() {
        return idleTime;
    }

    @Override
    public String toString() {
        return "ListenerContainerPartitionNoLongerIdleEvent [idleTime=" + idleTime / 1000.0 + "s, listenerId="
                + getListenerId() + ", topic=" + getTopic() + ", partition=" + partition + "]";
    }
}
