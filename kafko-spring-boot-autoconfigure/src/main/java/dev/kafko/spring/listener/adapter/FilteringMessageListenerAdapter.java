package dev.kafko.spring.listener.adapter;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.listener.BatchListenerFailedException;
import dev.kafko.spring.listener.ConsumerSeekAware;
import dev.kafko.spring.listener.KafkoMessageListener;
import dev.kafko.spring.support.Acknowledgment;
import java.time.Duration;
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
        try {
            delegate.onMessage(List.copyOf(kept), new KeptAcknowledgment(acknowledgment, records, kept),
                    deliveryAttempt);
        } catch (Exception e) {
            BatchListenerFailedException named = BatchListenerFailedException.findIn(e);
            if (named == null) {
                throw e;
            }
            throw new BatchListenerFailedException(String.valueOf(named.getMessage()), named.getCause(),
                    indexIn(records, kept, named.getIndex()));
        }
    }

    /**
     * The index in the polled batch of the record the listener named by its index in the filtered one.
     * A record that is not there (an index out of range, or a {@code filterBatch} that returned records
     * of its own) gets an index past the batch, which makes the container fail the whole batch.
     */
    private static int indexIn(List<KafkoRecord> polled, List<KafkoRecord> kept, int index) {
        if (index < kept.size()) {
            KafkoRecord named = kept.get(index);
            for (int i = 0; i < polled.size(); i++) {
                if (polled.get(i) == named) {
                    return i;
                }
            }
        }
        return polled.size() + index;
    }

    /**
     * The acknowledgment of a filtered batch: a {@code nack(index, sleep)} counts {@code index} in the list the
     * listener got, so it is moved to that record's place in the polled batch, where the container counts.
     */
    private record KeptAcknowledgment(Acknowledgment polled, List<KafkoRecord> records, List<KafkoRecord> kept)
            implements Acknowledgment {

        @Override
        public void acknowledge() {
            polled.acknowledge();
        }

        @Override
        public void nack(Duration sleep) {
            polled.nack(sleep);
        }

        @Override
        public void acknowledge(int index) {
            Objects.checkIndex(index, kept.size());
            polled.acknowledge(indexIn(records, kept, index));
        }

        @Override
        public void nack(int index, Duration sleep) {
            Objects.checkIndex(index, kept.size());
            polled.nack(indexIn(records, kept, index), sleep);
        }
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
