package dev.kafko.internal.log;

import static dev.kafko.internal.log.FrameFormat.BASE_OFFSET_OFFSET;
import static dev.kafko.internal.log.FrameFormat.HEADER_SIZE;
import static dev.kafko.internal.log.FrameFormat.MAX_TIMESTAMP_OFFSET;
import static dev.kafko.internal.log.FrameFormat.SEGMENT_HEADER_SIZE;

import dev.kafko.KafkoRecord;
import dev.kafko.OffsetOutOfRangeException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Internal: the first offset whose record has a timestamp at or after a given one, for
 * {@link PartitionLog#offsetForTimestamp}: the segments oldest first, each from the time index's entry
 * before the timestamp (checked to lead to a frame of the offset it claims), then frame by frame, each
 * frame that may hold the timestamp CRC-checked and decoded. Stateless; any thread, concurrently with
 * the log's writer and with retention.
 */
final class TimestampLookup {

    private TimestampLookup() {
    }

    /** The first offset of {@code log} whose record has a timestamp at or after {@code timestamp}, or its end offset. */
    static long offsetFor(PartitionLog log, long timestamp) {
        while (true) {
            long end = log.endOffset();
            Segment[] searched = log.segments();
            try {
                for (Segment s : searched) {
                    long found = offsetFor(s, timestamp, log.topic(), log.partition());
                    if (found >= 0 && found < end) {
                        return found;
                    }
                }
                return end;
            } catch (OffsetOutOfRangeException e) {
                // retention deleted a segment under the search, or compaction replaced one: search the segments
                // there are now (each retry follows a deletion or a replacement)
                if (log.swappedSegments() == searched) {
                    throw e;
                }
            }
        }
    }

    /**
     * The first offset in {@code segment}, below its {@linkplain Segment#nextOffset() next offset}, whose record has
     * a timestamp at or after {@code timestamp}, or -1 when there is none.
     */
    static long offsetFor(Segment segment, long timestamp, String topic, int partition) {
        // the next offset before the size, as a read takes them: the offsets from it on are the next segment's (a
        // sealed segment's frames may run past its base: a stray file named inside its offsets)
        long next = segment.nextOffset();
        int end = segment.size();
        if (segment.maxTimestamp() < timestamp || end <= SEGMENT_HEADER_SIZE) {
            return -1;
        }
        segment.checkHeader();
        OffsetIndex index = segment.index();
        byte[] h = new byte[HEADER_SIZE];
        int entry = index.floorEntryForTimestamp(timestamp);
        int pos = entry < 0 ? SEGMENT_HEADER_SIZE : index.position(entry);
        // the length of the frame at pos whose header h holds already, the entry's that holds (else -1): a truthful
        // index costs the lookup no second read of it
        int read = entry < 0 ? -1 : segment.heldLength(pos, segment.baseOffset() + index.relativeOffset(entry), end, h);
        if (entry >= 0 && read < 0) {
            // an entry between the ends a clean open checks that lies (IndexChecks), or whose frame's header was
            // damaged: records before its position may be at the timestamp; the search starts at an earlier entry
            pos = segment.heldEntryBefore(entry, end, h);
        }
        CRC32C crc = new CRC32C();
        List<KafkoRecord> records = new ArrayList<>();
        while (pos < end) {
            int len = read >= 0 ? read : segment.readHeader(pos, end, h);
            read = -1;
            if (FrameFormat.getLong(h, BASE_OFFSET_OFFSET) >= next) {
                return -1;
            }
            if (FrameFormat.getLong(h, MAX_TIMESTAMP_OFFSET) >= timestamp) {
                ByteBuffer frame = segment.bytes(pos, len, len);
                segment.verifyCrc(crc, frame.duplicate(), frame.getInt(FrameFormat.CRC_OFFSET), 0, len, pos);
                records.clear();
                try {
                    FrameDecoder.decode(frame, 0, len, Long.MIN_VALUE, Integer.MAX_VALUE, topic, partition, records);
                } catch (IllegalArgumentException e) {
                    throw segment.corrupt(pos, e.getMessage(), e);
                }
                for (KafkoRecord r : records) {
                    if (r.offset() >= next) {
                        return -1;
                    }
                    if (r.timestamp() >= timestamp) {
                        return r.offset();
                    }
                }
            }
            pos += len;
        }
        return -1;
    }
}
