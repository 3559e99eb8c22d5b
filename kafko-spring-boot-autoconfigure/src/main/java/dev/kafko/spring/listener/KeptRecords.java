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
     * The index in the polled batch of the record the listener named as failed by its index in the kept one: the
     * container finishes the polled records before it and delivers those after it again. A record that is not there
     * (an index out of range, or a record not polled), or one that a record the listener did not get to (one after it
     * in the kept list: a batch an interceptor reordered) precedes in the polled batch, gets an index past the batch,
     * which makes the container fail the whole batch: the records before it are not finished unprocessed.
     */
    private static int indexIn(List<KafkoRecord> polled, List<KafkoRecord> kept, int index) {
        if (index < kept.size()) {
            int position = positionIn(polled, kept.get(index));
            // a later copy of the named record (the same place) is not one it finishes
            if (position >= 0 && firstPositionFrom(polled, kept, index + 1) >= position) {
                return position;
            }
        }
        return polled.size() + index;
    }

    /** The position of {@code record} itself in {@code polled}, or -1. */
    private static int positionIn(List<KafkoRecord> polled, KafkoRecord record) {
        for (int i = 0; i < polled.size(); i++) {
            if (polled.get(i) == record) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The place in {@code polled} of a record the listener got: that of the record itself, or of the polled record
     * whose topic, partition and offset it names (a replacement stands for it); -1 when neither.
     */
    private static int placeIn(List<KafkoRecord> polled, KafkoRecord record) {
        int position = positionIn(polled, record);
        if (position >= 0) {
            return position;
        }
        for (int i = 0; i < polled.size(); i++) {
            KafkoRecord p = polled.get(i);
            if (p.offset() == record.offset() && p.partition() == record.partition()
                    && p.topic().equals(record.topic())) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The lowest place in {@code polled} of the kept records from {@code from} on ({@code polled.size()} when there
     * are none); 0 when one of them neither was polled nor names a polled record, whose place is unknown.
     */
    private static int firstPositionFrom(List<KafkoRecord> polled, List<KafkoRecord> kept, int from) {
        int first = polled.size();
        for (int k = from; k < kept.size(); k++) {
            int position = placeIn(polled, kept.get(k));
            if (position < 0) {
                return 0;
            }
            first = Math.min(first, position);
        }
        return first;
    }

    /** The highest place in {@code polled} of the kept records up to {@code to} included, or -1. */
    private static int lastPositionTo(List<KafkoRecord> polled, List<KafkoRecord> kept, int to) {
        int last = -1;
        for (int k = 0; k <= to; k++) {
            last = Math.max(last, placeIn(polled, kept.get(k)));
        }
        return last;
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

        /**
         * Acknowledges the polled records up to the last of those the listener got to (up to {@code index} in the kept
         * list, which a reordered list may place before it), but not from the first the listener has not got to (one
         * after {@code index} in the kept list that comes before it in the polled batch: nothing, when that is the
         * first polled record).
         */
        @Override
        public void acknowledge(int index) {
            Objects.checkIndex(index, kept.size());
            int position = positionIn(records, kept.get(index));
            if (position < 0) {
                polled.acknowledge(records.size() + index); // not a polled record: refused as out of range
                return;
            }
            int upTo = Math.min(lastPositionTo(records, kept, index), firstPositionFrom(records, kept, index + 1) - 1);
            if (upTo >= 0) {
                polled.acknowledge(upTo);
            }
        }

        /**
         * Nacks from the polled record of {@code index}, or from the first polled record of those the listener has not
         * got to where that one comes before it (a batch an interceptor reordered): none of them is acknowledged.
         */
        @Override
        public void nack(int index, Duration sleep) {
            Objects.checkIndex(index, kept.size());
            int position = positionIn(records, kept.get(index));
            polled.nack(position < 0 ? records.size() + index
                    : Math.min(position, firstPositionFrom(records, kept, index + 1)), sleep);
        }
    }
}
