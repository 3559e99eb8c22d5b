package dev.kafko.spring.event;

import java.io.Serial;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/** An event about the partitions of one topic that one member reads. */
public abstract class PartitionsEvent extends KafkoEvent {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String topic;
    private final List<Integer> partitions;

    protected PartitionsEvent(Object source, Object container, String listenerId, String topic,
                    Collection<Integer> partitions) {
        super(source, container, listenerId);
        this.topic = Objects.requireNonNull(topic, "topic");
        this.partitions = partitions.stream().sorted().toList();
    }

    /** The topic the member reads. */
    public String getTopic() {
        return topic;
    }

    /** The partitions of {@link #getTopic()} the member reads, in ascending order (none: empty). */
    public List<Integer> getPartitions() {
        return partitions;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + " [source=" + getSource() + ", topic=" + topic + ", partitions="
                + partitions + "]";
    }
}
