package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.support.Acknowledgment;
import java.time.Duration;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

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
            int index = named.getIndex();
            throw new Named(String.valueOf(named.getMessage()), named.getCause(), indexIn(polled, kept, index),
                    index < kept.size() ? kept.get(index) : null);
        }
    }

    /**
     * A {@link BatchListenerFailedException} moved to the polled batch, which keeps the record the listener named (a
     * kept record: an interceptor's replacement, or one of its copies), the one the error handler recovers.
     */
    static final class Named extends BatchListenerFailedException {
        private static final long serialVersionUID = 1L;

        private final transient @Nullable KafkoRecord record;

        Named(String message, @Nullable Throwable cause, int index, @Nullable KafkoRecord record) {
            super(message, cause, index);
            this.record = record;
        }

        /** The record the listener named, as it got it; null when its index was beyond the list. */
        @Nullable KafkoRecord record() {
            return record;
        }
    }

    /**
     * The index in the polled batch of the record the listener named as failed by its index in the kept one: the
     * container finishes the polled records before it and delivers those after it again. A record that is not there
     * (an index out of range, or a record neither polled nor naming a polled one), or one that a record the listener
     * did not get to (one after it in the kept list: a batch an interceptor reordered) precedes in the polled batch,
     * gets an index past the batch, which makes the container fail the whole batch: the records before it are not
     * finished unprocessed.
     */
    private static int indexIn(List<KafkoRecord> polled, List<KafkoRecord> kept, int index) {
        if (index >= 0 && index < kept.size()) {
            Places places = new Places(polled, kept);
            int position = places.of(index);
            // a later copy of the named record (the same place) is not one it finishes
            if (position >= 0 && places.firstFrom(index + 1) >= position) {
                return position;
            }
        }
        return polled.size() + index;
    }

    /**
     * Where each kept record stands in the polled batch, computed once for a batch: its own place, or that of the
     * polled record whose topic, partition and offset it names (a replacement stands for it, as spring-kafka finds a
     * failed record of a batch); -1 when neither.
     */
    private static final class Places {
        private final int[] place;
        /** {@code firstFrom[k]}: the lowest place of the kept records from k on; 0 when one's place is unknown. */
        private final int[] firstFrom;
        /** {@code lastTo[k]}: the highest place of the kept records up to k included, or -1. */
        private final int[] lastTo;

        Places(List<KafkoRecord> polled, List<KafkoRecord> kept) {
            Map<KafkoRecord, Integer> byIdentity = new IdentityHashMap<>(polled.size() * 2);
            Map<Coordinates, Integer> byCoordinates = new HashMap<>(polled.size() * 2);
            for (int i = polled.size() - 1; i >= 0; i--) { // the first of equal records wins
                KafkoRecord p = polled.get(i);
                byIdentity.put(p, i);
                byCoordinates.put(Coordinates.of(p), i);
            }
            int n = kept.size();
            place = new int[n];
            for (int k = 0; k < n; k++) {
                KafkoRecord r = kept.get(k);
                Integer at = byIdentity.get(r);
                if (at == null) {
                    at = byCoordinates.get(Coordinates.of(r));
                }
                place[k] = at == null ? -1 : at;
            }
            firstFrom = new int[n + 1];
            firstFrom[n] = polled.size();
            for (int k = n - 1; k >= 0; k--) {
                firstFrom[k] = place[k] < 0 ? 0 : Math.min(place[k], firstFrom[k + 1]);
            }
            lastTo = new int[n];
            int last = -1;
            for (int k = 0; k < n; k++) {
                last = Math.max(last, place[k]);
                lastTo[k] = last;
            }
        }

        int of(int index) {
            return place[index];
        }

        int firstFrom(int from) {
            return firstFrom[from];
        }

        int lastTo(int to) {
            return lastTo[to];
        }
    }

    private record Coordinates(String topic, int partition, long offset) {
        static Coordinates of(KafkoRecord r) {
            return new Coordinates(r.topic(), r.partition(), r.offset());
        }
    }

    /**
     * The acknowledgment of a kept batch: a {@code nack(index, sleep)} counts {@code index} in the list the listener
     * got, so it is moved to that record's place in the polled batch, where the container counts.
     */
    private static final class KeptAcknowledgment implements Acknowledgment {
        private final Acknowledgment polled;
        private final List<KafkoRecord> records;
        private final List<KafkoRecord> kept;
        private @Nullable Places places;

        KeptAcknowledgment(Acknowledgment polled, List<KafkoRecord> records, List<KafkoRecord> kept) {
            this.polled = polled;
            this.records = records;
            this.kept = kept;
        }

        /** Computed at the first acknowledgment by index (on the listener's thread, or any one it hands it to). */
        private synchronized Places places() {
            Places p = places;
            if (p == null) {
                p = new Places(records, kept);
                places = p;
            }
            return p;
        }

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
            Places p = places();
            if (p.of(index) < 0) {
                polled.acknowledge(records.size() + index); // not a polled record: refused as out of range
                return;
            }
            int upTo = Math.min(p.lastTo(index), p.firstFrom(index + 1) - 1);
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
            Places p = places();
            int position = p.of(index);
            polled.nack(position < 0 ? records.size() + index : Math.min(position, p.firstFrom(index + 1)), sleep);
        }
    }
}
