package dev.kafko.internal.broker;

import dev.kafko.OutgoingRecord;
import dev.kafko.RecordPosition;
import java.util.List;

/** Internal: a send of one record; see {@link Request} for which thread does what. */
final class SendRequest extends Request<RecordPosition> {

    final OutgoingRecord record;
    private final int bytes;

    SendRequest(OutgoingRecord record, int bytes) {
        this.record = record;
        this.bytes = bytes;
    }

    @Override
    int recordCount() {
        return 1;
    }

    @Override
    void addRecords(List<OutgoingRecord> frame) {
        frame.add(record);
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
