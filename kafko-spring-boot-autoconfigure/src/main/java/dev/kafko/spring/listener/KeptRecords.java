package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.support.Acknowledgment;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Delivers to a batch listener other records than those polled (fewer, after a {@code RecordFilterStrategy}; or what
 * a {@link BatchInterceptor} returned), so that what the listener says by index counts where the container counts,
 * in the polled batch: the index of a {@link BatchListenerFailedException}, and those of
 * {@link Acknowledgment#acknowledge(int)} and {@link Acknowledgment#nack(int, Duration)}. Used by the filtering adapter
 * and the container on a member's polling thread; not for applications.
 */
public final class KeptRecords {

    private KeptRecords() {
    }

    /**
     * Calls {@code listener} with {@code kept} instead of {@code polled}.
     *
     * @param kept the records to deliver, not empty
     */
    public static void deliver(KafkoMessageListener listener, List<KafkoRecord> polled, List<KafkoRecord> kept,
                               Acknowledgment acknowledgment, int deliveryAttempt) throws Exception {
        try {
            listener.onMessage(kept, new KeptAcknowledgment(acknowledgment, polled, kept), deliveryAttempt);
        } catch (Exception e) {
            BatchListenerFailedException named = BatchListenerFailedException.findIn(e);
            if (named == null) {
                throw e;
            }
            throw new BatchListenerFailedException(String.valueOf(named.getMessage()), named.getCause(),
                    indexIn(polled, kept, named.getIndex()));
        }
    }

    /**
     * The index in the polled batch of the record the listener named by its index in the kept one. A record that is
     * not there (an index out of range, or a record not polled) gets an index past the batch, which makes the
     * container fail the whole batch.
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
     * The acknowledgment of a kept batch: a {@code nack(index, sleep)} counts {@code index} in the list the listener
     * got, so it is moved to that record's place in the polled batch, where the container counts.
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
}
