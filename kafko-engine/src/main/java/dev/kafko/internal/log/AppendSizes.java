package dev.kafko.internal.log;

import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;

/**
 * The sizes a caller of {@link PartitionLog#append} checks before it appends, so that a record or a
 * batch the log would refuse is refused before anything is queued or written. Any thread.
 */
public final class AppendSizes {

    /**
     * The most the records of one {@link PartitionLog#append} may take before compression: their
     * {@link #encodedSize}s, each plus its {@link #timestampDeltaBytes} less the one byte counted there.
     */
    public static final int MAX_APPEND_BYTES = FrameFormat.MAX_RECORDS_LENGTH;

    /** The size of a segment file that holds no frame: its header only (what a new log leaves). */
    public static final int EMPTY_SEGMENT_BYTES = FrameFormat.SEGMENT_HEADER_SIZE;

    private AppendSizes() {
    }

    /**
     * The most record bytes (as {@link #encodedSize} counts them) one uncompressed frame may hold and
     * still fit a fresh segment of {@code segmentBytes}: a coalescing caller keeps its frames to this,
     * so that segments stay within their size unless a single batch is larger.
     */
    public static long recordBytesPerSegment(long segmentBytes) {
        return segmentBytes - FrameFormat.SEGMENT_HEADER_SIZE - FrameFormat.HEADER_SIZE;
    }

    /**
     * The size of {@code record} that {@link PartitionLog#append} checks against
     * {@link TopicConfig#maxRecordBytes()} (its encoding in a frame, the timestamp delta counted as one
     * byte): a caller refuses a record with it before it is batched with others.
     */
    public static long encodedSize(OutgoingRecord record) {
        return FrameEncoder.encodedSize(record);
    }

    /**
     * The bytes {@code record}'s timestamp takes in a frame that starts with {@code first}: its distance
     * from the first record's timestamp, 1 to 10 bytes; 10 when only one of the two is left to the clock.
     * A caller checks a batch against {@link #MAX_APPEND_BYTES} with it before anything is written.
     */
    public static int timestampDeltaBytes(OutgoingRecord first, OutgoingRecord record) {
        return FrameEncoder.timestampDeltaBytes(first, record);
    }
}
