package dev.kafko.spring.listener.adapter;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.listener.ConsumerSeekAware;
import dev.kafko.spring.listener.KafkoMessageListener;
import dev.kafko.spring.listener.KeptRecords;
import dev.kafko.spring.support.Acknowledgment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Keeps the records a {@link RecordFilterStrategy} discards from the listener it wraps, as
 * spring-kafka's filtering adapters do. The container is told nothing of them: returning from
 * {@code onMessage} makes every record it was given processed, so it commits past the discarded ones
 * as it commits past the others. A record listener is not invoked for a discarded record; a batch
 * listener gets its batch without them and is not invoked when all are discarded (under the manual
 * ack modes too, where spring-kafka hands it an empty list to acknowledge). Called only on a container
 * member's polling thread.
 */
public final class FilteringMessageListenerAdapter implements KafkoMessageListener {

    private final KafkoMessageListener delegate;
    private final RecordFilterStrategy filter;

    public FilteringMessageListenerAdapter(KafkoMessageListener delegate, RecordFilterStrategy filter) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.filter = Objects.requireNonNull(filter, "filter");
    }

    @Override
    public void onMessage(List<KafkoRecord> records, Acknowledgment acknowledgment) throws Exception {
        onMessage(records, acknowledgment, 1);
    }

    @Override
    public void onMessage(List<KafkoRecord> records, Acknowledgment acknowledgment, int deliveryAttempt)
            throws Exception {
        if (!delegate.isBatch()) {
            // a record listener gets one record a call
            if (!filter.filter(records.get(0))) {
                delegate.onMessage(records, acknowledgment, deliveryAttempt);
            }
            return;
        }
        List<KafkoRecord> kept = filter.filterBatch(new ArrayList<>(records));
        if (kept == null) {
            throw new IllegalStateException(filter.getClass().getName() + ".filterBatch returned null; return an"
                    + " empty list to discard every record");
        }
        if (kept.isEmpty()) {
            return;
        }
        KeptRecords.deliver(delegate, records, List.copyOf(kept), acknowledgment, deliveryAttempt);
    }

    @Override
    public @Nullable ConsumerSeekAware seekAware() {
        return delegate.seekAware();
    }

    @Override
    public boolean isBatch() {
        return delegate.isBatch();
    }
}
