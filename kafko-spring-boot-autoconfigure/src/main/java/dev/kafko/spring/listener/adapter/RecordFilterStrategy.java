package dev.kafko.spring.listener.adapter;

import dev.kafko.KafkoRecord;
import java.util.List;

/**
 * Picks the records a listener never sees, as spring-kafka's interface of the same name does (there
 * {@code filter} takes a {@code ConsumerRecord}; here the stored {@link KafkoRecord}, before any
 * conversion). A discarded record counts as processed: the container commits past it as if the
 * method had returned (under the manual ack modes, with the listener's next acknowledgment on its
 * partition), so it is not delivered again. Named on a listener with
 * {@code @KafkoListener(filter = "<bean name>")}, or set for every listener of a factory with
 * {@link dev.kafko.spring.config.KafkoListenerContainerFactory#setRecordFilterStrategy}. Called on the
 * container members' polling threads, once per delivery attempt, so it may be called by several at once.
 */
@FunctionalInterface
public interface RecordFilterStrategy {

    /** Whether to discard {@code record}: {@code true} keeps it from the listener. */
    boolean filter(KafkoRecord record);

    /**
     * The records of a batch to deliver to a batch listener, in the order it gets them; by default
     * those {@link #filter} keeps. The listener is not invoked when the list is empty.
     *
     * @param records a modifiable copy of the batch, which may be changed and returned
     * @return the records to deliver, never {@code null} (an empty list discards them all)
     */
    default List<KafkoRecord> filterBatch(List<KafkoRecord> records) {
        records.removeIf(this::filter);
        return records;
    }
}
