package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.support.Acknowledgment;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a container delivers records to. Called only on the container member's polling thread.
 * A record listener gets one record per call; a {@linkplain #isBatch() batch} listener gets every
 * record of one poll.
 */
@FunctionalInterface
public interface KafkoMessageListener {

    /**
     * Processes records. Returning means they are processed; throwing hands them to the error handler.
     */
    void onMessage(List<KafkoRecord> records, Acknowledgment acknowledgment) throws Exception;

    /**
     * {@link #onMessage(List, Acknowledgment)} for the {@code deliveryAttempt}-th attempt at these records
     * (1 for their delivery, 2 for the error handler's first retry, ...); what the container calls.
     */
    default void onMessage(List<KafkoRecord> records, Acknowledgment acknowledgment, int deliveryAttempt)
            throws Exception {
        onMessage(records, acknowledgment);
    }

    /** The listener bean when it wants to choose its start offsets; {@code null} otherwise. */
    default @Nullable ConsumerSeekAware seekAware() {
        return null;
    }

    /** Whether this listener takes a whole poll at once. */
    default boolean isBatch() {
        return false;
    }
}
