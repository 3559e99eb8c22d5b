package dev.kafko.spring.event;

import java.io.Serial;
import java.util.Collection;

/**
 * A member of a listener's group received no record for its container's idle event interval
 * ({@code kafko.listener.idle-event-interval}); published again after each further interval without records,
 * paused or not, until a record comes ({@link ListenerContainerNoLongerIdleEvent}).
 */
public class ListenerContainerIdleEvent extends PartitionsEvent {

    @Serial
    private static final long serialVersionUID = 1L;

    private final long idleTime;
    private final boolean paused;

    public ListenerContainerIdleEvent(Object source, Object container, String listenerId, String topic,
                                      Collection<Integer> partitions, long idleTime, boolean paused) {
        super(source, container, listenerId, topic, partitions);
        this.idleTime = idleTime;
        this.paused = paused;
    }

    /** Milliseconds since the member last received records (or started, when it received none). */
    public long getIdleTime() {
        return idleTime;
    }

    /** Whether the member is paused. */
    public boolean isPaused() {
        return paused;
    }

    @Override
    public String toString() {
        return "ListenerContainerIdleEvent [idleTime=" + idleTime / 1000.0 + "s, listenerId=" + getListenerId()
                + ", topic=" + getTopic() + ", partitions=" + getPartitions() + ", paused=" + paused + "]";
    }
}
