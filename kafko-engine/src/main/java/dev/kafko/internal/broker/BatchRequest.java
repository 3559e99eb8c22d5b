package dev.kafko.internal.broker;

import dev.kafko.OutgoingRecord;
import dev.kafko.RecordPosition;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.RandomAccess;
import org.jspecify.annotations.Nullable;

/**
 * Internal: records appended atomically to one partition (they always land in one frame); see
 * {@link Request} for which thread does what. The result is a list view computed from the first
 * offset, so a batch of any size completes with two allocations.
 */
final class BatchRequest extends Request<List<RecordPosition>> {

    private @Nullable List<OutgoingRecord> records;
    private final int count;
    private final long bytes;

    /** Whether {@link #records} and their arrays are the engine's own ({@link #detach}). */
    private boolean owned;

    /**
     * A batch of {@code records} as its caller gave them (the list too), copied only if it has to wait
     * ({@link #detach}).
     */
    BatchRequest(List<OutgoingRecord> records, long bytes) {
        this.records = records;
        this.count = records.size();
        this.bytes = bytes;
    }

    @Override
    void detach() {
        List<OutgoingRecord> r = records;
        if (!owned && r != null) {
            OutgoingRecord[] copies = new OutgoingRecord[count];
            for (int i = 0; i < copies.length; i++) {
                copies[i] = detached(r.get(i));
            }
            records = Arrays.asList(copies);
            owned = true;
        }
    }

    @Override
    int recordCount() {
        return count;
    }

    @Override
    void addRecords(List<OutgoingRecord> frame) {
        frame.addAll(records());
    }

    /** The records, until the request is finished. Owner only. */
    List<OutgoingRecord> records() {
        List<OutgoingRecord> r = records;
        if (r == null) {
            throw new IllegalStateException("the records of a finished batch");
        }
        return r;
    }

    @Override
    void releaseRecords() {
        records = null;
    }

    @Override
    long encodedBytes() {
        return bytes;
    }

    @Override
    List<RecordPosition> result(int partition) {
        return new Positions(partition, firstOffset, count);
    }

    /** Consecutive offsets of one partition, as an immutable list. */
    static final class Positions extends AbstractList<RecordPosition> implements RandomAccess {
        private final int partition;
        private final long first;
        private final int size;

        Positions(int partition, long first, int size) {
            this.partition = partition;
            this.first = first;
            this.size = size;
        }

        @Override
        public RecordPosition get(int index) {
            if (index < 0 || index >= size) {
                throw new IndexOutOfBoundsException("index " + index + " of " + size + " positions");
            }
            return new RecordPosition(partition, first + index);
        }

        @Override
        public int size() {
            return size;
        }
    }
}
