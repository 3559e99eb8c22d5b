package dev.kafko.internal.broker;

import dev.kafko.Headers;
import dev.kafko.OutgoingRecord;
import dev.kafko.RecordPosition;
import java.util.List;

/** A test's request of one small record, whose completion a subclass makes fail (see {@link Request#result}). */
abstract class OneRecordRequest extends Request<RecordPosition> {

    private final OutgoingRecord record = new OutgoingRecord(null, new byte[] {1}, Headers.empty(),
            OutgoingRecord.NO_TIMESTAMP);

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
        return 16;
    }
}
