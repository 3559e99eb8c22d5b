package dev.kafko.internal.log;

import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import java.io.Closeable;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

/**
 * Internal: the durable log of one partition: its segments, indexes and recovery.
 *
 * <p>Threading: one writer. {@link #append}, {@link #flush}, {@link #applyRetention} and
 * {@link #close} are called by the partition's current owner only, one at a time. {@link #read},
 * {@link #offsetForTimestamp} and the size getters may be called from any thread at any time,
 * concurrently with the writer; they see every append that returned before they started.
 */
public final class PartitionLog implements Closeable {

    private PartitionLog() {
    }

    /** Opens (creating if needed) the log in {@code dir}, recovering it when it was not closed cleanly. */
    public static PartitionLog open(String topic, int partition, Path dir, TopicConfig config, Clock clock, FileIo io) {
        throw new UnsupportedOperationException("not built yet");
    }

    /** Appends the records as one frame; returns the offset of the first. Owner thread only. */
    public long append(List<OutgoingRecord> records) {
        throw new UnsupportedOperationException("not built yet");
    }

    /** Forces every appended byte to disk (fdatasync). Owner thread only. */
    public void flush() {
        throw new UnsupportedOperationException("not built yet");
    }

    /** Records from {@code offset} on, at most {@code maxRecords} and about {@code maxBytes}. Any thread. */
    public ReadResult read(long offset, int maxRecords, int maxBytes) {
        throw new UnsupportedOperationException("not built yet");
    }

    /** The first offset whose record has a timestamp at or after {@code epochMillis}, or {@link #endOffset()}. */
    public long offsetForTimestamp(long epochMillis) {
        throw new UnsupportedOperationException("not built yet");
    }

    /** Deletes segments past the retention limits; returns how many. Owner thread only. */
    public int applyRetention() {
        throw new UnsupportedOperationException("not built yet");
    }

    public long logStartOffset() {
        throw new UnsupportedOperationException("not built yet");
    }

    public long endOffset() {
        throw new UnsupportedOperationException("not built yet");
    }

    public long sizeBytes() {
        throw new UnsupportedOperationException("not built yet");
    }

    public int segmentCount() {
        throw new UnsupportedOperationException("not built yet");
    }

    /** Flushes, writes the clean-shutdown marker and releases every file. Owner thread only. */
    @Override
    public void close() {
        throw new UnsupportedOperationException("not built yet");
    }
}
