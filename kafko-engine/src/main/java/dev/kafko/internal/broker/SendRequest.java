package dev.kafko.internal.broker;

import dev.kafko.OutgoingRecord;
import dev.kafko.RecordPosition;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Internal: a send of one record; see {@link Request} for which thread does what. */
final class SendRequest extends Request<RecordPosition> {

    private @Nullable OutgoingRecord record;
    private final int bytes;
    /** Whether {@link #record}'s arrays are the engine's own ({@link #detach}). */
    private boolean owned;

    /** A send of {@code record} as its caller gave it, copied only if it has to wait ({@link #detach}). */
    SendRequest(OutgoingRecord record, int bytes) {
        this.record = record;
        this.bytes = bytes;
    }

    @Override
    void detach() {
        OutgoingRecord r = record;
        if (!owned && r != null) {
            record = detached(r);
            owned = true;
        }
    }

    @Override
    int recordCount() {
        return 1;
    }

    @Override
    void addRecords(List<OutgoingRecord> frame) {
        frame.add(record());
    }

    /** The record, until the request is finished. Owner only. */
    OutgoingRecord record() {
        OutgoingRecord r = record;
        if (r == null) {
            throw new IllegalStateException("the record of a finished send");
        }
        return r;
    }

    @Override
    void releaseRecords() {
        record = null;
    }

    @Override
    long encodedBytes() {
        return bytes;
    }

    @Override
    RecordPosition result(int partition) {
        return new RecordPosition(partition, firstOffset);
    }
}
