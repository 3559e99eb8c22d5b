package dev.kafko;

import java.util.Collection;

/**
 * Told when a group member's partitions change. Both methods run on the member's own polling
 * thread, inside {@link Consumer#poll}: revoked partitions first, so the member can commit what it
 * processed before another member takes them over. {@link Consumer#close()} revokes the member's
 * partitions once more, on the closing thread, as Kafka's consumer does. A {@code close()} from
 * {@link #onPartitionsRevoked} revokes only the partitions that call was not told of, and the poll that ran the
 * callback throws {@link KafkoClosedException} instead of reading on.
 */
public interface ConsumerRebalanceListener {

    ConsumerRebalanceListener NOOP = new ConsumerRebalanceListener() { };

    /** These partitions are being taken away; commit now to hand over the exact position. */
    default void onPartitionsRevoked(Collection<Integer> partitions) { }

    /** These partitions are now this member's; it starts at the group's committed offsets. */
    default void onPartitionsAssigned(Collection<Integer> partitions) { }
}
