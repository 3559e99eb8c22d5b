package dev.kafko.bench.spring;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One-way latencies from a send to the listener's receipt, keyed by a sequence number carried in the
 * record. Single writer per side: the sending thread calls {@link #sent}, the one listener thread
 * calls {@link #received}; the listener sees {@code sentAt} because the record itself passes
 * through the log after it. {@link #startIteration} and {@link #sinceIterationStart} are called by
 * JMH between iterations.
 */
final class LatencyRecorder {

    /** The recorder of {@link KafkoListenerLatencyBenchmark}, read by {@link ListenerLatencyProfiler}. */
    static final LatencyRecorder LISTENER = new LatencyRecorder(1 << 22);

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.ISO_8859_1);
    private static final int SEQUENCE_CHARS = 16;

    private final long[] sentAt;
    private final long[] latencies;
    private final int mask;
    private volatile long recorded;
    private volatile long iterationStart;

    LatencyRecorder(int capacity) {
        if (Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two: " + capacity);
        }
        sentAt = new long[capacity];
        latencies = new long[capacity];
        mask = capacity - 1;
    }

    /** A scratch buffer for {@link #payload}: the 256-byte record, owned by one sending thread. */
    static byte[] newPayloadBuffer() {
        return LogCostRun.PAYLOAD.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A 256-character record whose first 16 characters are {@code sequence} in hex; overwrites {@code buffer}. */
    static String payload(long sequence, byte[] buffer) {
        long rest = sequence;
        for (int i = SEQUENCE_CHARS - 1; i >= 0; i--) {
            buffer[i] = HEX[(int) (rest & 0xF)];
            rest >>>= 4;
        }
        return new String(buffer, StandardCharsets.ISO_8859_1);
    }

    static long sequenceOf(String payload) {
        return Long.parseUnsignedLong(payload, 0, SEQUENCE_CHARS, 16);
    }

    /** Sending thread: the record with {@code sequence} leaves now. */
    void sent(long sequence, long nanoTime) {
        sentAt[(int) (sequence & mask)] = nanoTime;
    }

    /** Listener thread: the record with {@code sequence} arrived at {@code nanoTime}. */
    void received(long sequence, long nanoTime) {
        long n = recorded;
        latencies[(int) (n & mask)] = nanoTime - sentAt[(int) (sequence & mask)];
        recorded = n + 1;
    }

    void startIteration() {
        iterationStart = recorded;
    }

    /** The latencies recorded since {@link #startIteration} (the newest {@code capacity} of them), sorted. */
    long[] sinceIterationStart() {
        long end = recorded;
        long start = Math.max(iterationStart, end - latencies.length);
        long[] copy = new long[(int) (end - start)];
        for (int i = 0; i < copy.length; i++) {
            copy[i] = latencies[(int) ((start + i) & mask)];
        }
        Arrays.sort(copy);
        return copy;
    }

    /** The {@code quantile} (0..1) of sorted values, nearest rank. */
    static long percentile(long[] sorted, double quantile) {
        int rank = (int) Math.ceil(quantile * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank))];
    }
}
