package dev.kafko;

import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A record to send. The record holds the arrays it is given; the caller may change or reuse them as soon as
 * the send call returns, as with Kafka's producer (a {@link Producer} encodes them in the call, or copies them
 * first when the record is written after it), but not while the call runs.
 *
 * @param key the key, or {@code null} (distinct from an empty key); keyed records route by
 *     murmur2 hash like Apache Kafka's default partitioner
 * @param value the value, or {@code null} (a tombstone)
 * @param headers the headers, never {@code null}
 * @param timestamp epoch milliseconds, or {@link #NO_TIMESTAMP} for the append time; any other negative
 *     value is an {@link IllegalArgumentException}, as in Kafka's {@code ProducerRecord}
 */
public record OutgoingRecord(byte @Nullable [] key, byte @Nullable [] value, Headers headers, long timestamp) {

    /** Marks a record whose timestamp is taken from the clock when it is appended. */
    public static final long NO_TIMESTAMP = -1L;

    public OutgoingRecord {
        Objects.requireNonNull(headers, "headers (use Headers.empty())");
        if (timestamp < NO_TIMESTAMP) {
            throw new IllegalArgumentException("timestamp must be epoch millis >= 0 or NO_TIMESTAMP (-1), was "
                    + timestamp);
        }
    }

    /** Equal when keys, values (by content), headers and timestamps are. */
    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof OutgoingRecord r && Arrays.equals(key, r.key) && Arrays.equals(value, r.value)
                && headers.equals(r.headers) && timestamp == r.timestamp;
    }

    @Override
    public int hashCode() {
        return ((Arrays.hashCode(key) * 31 + Arrays.hashCode(value)) * 31 + headers.hashCode()) * 31
                + Long.hashCode(timestamp);
    }

    /** The sizes of key and value (not their bytes), the headers and the timestamp. */
    @Override
    public String toString() {
        return "OutgoingRecord[key=" + size(key) + ", value=" + size(value) + ", headers=" + headers
                + ", timestamp=" + timestamp + "]";
    }

    private static String size(byte @Nullable [] bytes) {
        return bytes == null ? "null" : bytes.length + " bytes";
    }

    public static OutgoingRecord of(byte @Nullable [] key, byte @Nullable [] value) {
        return new OutgoingRecord(key, value, Headers.empty(), NO_TIMESTAMP);
    }

    public static OutgoingRecord of(byte @Nullable [] key, byte @Nullable [] value, Headers headers) {
        return new OutgoingRecord(key, value, headers, NO_TIMESTAMP);
    }

    public static OutgoingRecord of(byte @Nullable [] key, byte @Nullable [] value, Headers headers, long timestamp) {
        return new OutgoingRecord(key, value, headers, timestamp);
    }
}
