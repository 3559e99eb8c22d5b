package dev.kafko.spring.event;

import java.io.Serial;
import java.util.Collection;

/**
 * A member that published a {@link ListenerContainerIdleEvent} received records again; published before they
 * are delivered.
 */
public class ListenerContainerNoLongerIdleEvent extends PartitionsEvent {

    @Serial
    private static final long serialVersionUID = 1L;

    private final long idleTime;

    public ListenerContainerNoLongerIdleEvent(Object source, Object container, String listenerId, String topic,
                                              Collection<Integer> partitions, long idleTime) {
        super(source, container, listenerId, topic, partitions);
        this.idleTime = idleTime;
    }

    /** Milliseconds the member had gone without records. */
    public long getIdleTime() {
        return idleTime;
    }

    @Override
    public String toString() {
        return "ListenerContainerNoLongerIdleEvent [idleTime=" + idleTime / 1000.0 + "s, listenerId="
                + getListenerId() + ", topic=" + getTopic() + ", partitions=" + getPartitions() + "]";
    }
}
