package dev.kafko.internal.broker;

import dev.kafko.CleanupPolicy;
import dev.kafko.Header;
import dev.kafko.Headers;
import dev.kafko.InvalidRecordException;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.RecordTooLargeException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.log.AppendSizes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the {@link Producer} of one topic handle. Thread-safe and stateless (the round-robin
 * counter of keyless records is the topic's, shared by all its producers): every send routes, checks its arguments on the caller's thread (throwing
 * {@link RecordTooLargeException}, {@link dev.kafko.InvalidPartitionException},
 * {@link dev.kafko.UnknownTopicException} or {@link dev.kafko.KafkoClosedException} before anything
 * is written) and submits one request to the partition actor.
 *
 * <p>The size checked against {@code maxRecordBytes} is the log's own measure,
 * {@link AppendSizes#encodedSize}, computed on the caller's thread; should the log still refuse a
 * record at append time, only that record's future fails, never the records coalesced with it.
 */
final class ProducerImpl implements Producer {

    /** A {@link #sendBatch(List, int[])} entry that leaves the record to be routed as {@link #send} routes it. */
    private static final int ROUTED = Producer.ROUTED;

    /** The widest varint of an int. */
    private static final int VARINT_MAX = 5;

    private final TopicImpl topic;

    ProducerImpl(TopicImpl topic) {
        this.topic = topic;
    }

    @Override
    public String topic() {
        return topic.name;
    }

    @Override
    public int partitionCount() {
        topic.ensureOpen();
        return topic.partitionCount();
    }

    @Override
    public int partitionFor(byte[] key) {
        Objects.requireNonNull(key, "key");
        topic.ensureOpen();
        return Partitioner.partitionFor(key, topic.partitionCount());
    }

    @Override
    public CompletableFuture<RecordPosition> send(byte @Nullable [] key, byte @Nullable [] value) {
        return sendOwned(new OutgoingRecord(key, value, Headers.empty(), OutgoingRecord.NO_TIMESTAMP));
    }

    @Override
    public CompletableFuture<RecordPosition> send(byte @Nullable [] key, byte @Nullable [] value, Headers headers) {
        return sendOwned(new OutgoingRecord(key, value, headers, OutgoingRecord.NO_TIMESTAMP));
    }

    @Override
    public CompletableFuture<RecordPosition> send(OutgoingRecord record) {
        return sendOwned(Objects.requireNonNull(record, "record"));
    }

    /** Sends {@code record}, copied only if it has to wait ({@link Request#detach}). */
    private CompletableFuture<RecordPosition> sendOwned(OutgoingRecord record) {
        topic.ensureOpen();
        PartitionActor[] actors = topic.actors();
        return submit(actors[route(record, actors.length)], record);
    }

    @Override
    public CompletableFuture<RecordPosition> sendTo(int partition, byte @Nullable [] key, byte @Nullable [] value) {
        return sendToOwned(partition,
                new OutgoingRecord(key, value, Headers.empty(), OutgoingRecord.NO_TIMESTAMP));
    }

    @Override
    public CompletableFuture<RecordPosition> sendTo(int partition, OutgoingRecord record) {
        return sendToOwned(partition, Objects.requireNonNull(record, "record"));
    }

    private CompletableFuture<RecordPosition> sendToOwned(int partition, OutgoingRecord record) {
        topic.ensureOpen();
        return submit(topic.actor(partition), record);
    }

    private CompletableFuture<RecordPosition> submit(PartitionActor actor, OutgoingRecord record) {
        SendRequest r = new SendRequest(record, checkSize(record, -1));
        actor.submit(r);
        return r;
    }

    @Override
    public CompletableFuture<List<RecordPosition>> sendBatch(List<OutgoingRecord> given) {
        return sendRouted(given, null);
    }

    @Override
    public CompletableFuture<List<RecordPosition>> sendBatch(List<OutgoingRecord> given, int[] partitions) {
        return sendRouted(given, Objects.requireNonNull(partitions, "partitions"));
    }

    /** Routes record {@code i} to {@code partitions[i]} when given and not {@link #ROUTED}, else as {@link #send}. */
    private CompletableFuture<List<RecordPosition>> sendRouted(List<OutgoingRecord> given, int @Nullable [] partitions) {
        List<OutgoingRecord> records = requireRecords(given);
        int n = records.size();
        if (partitions != null && partitions.length != n) {
            throw new IllegalArgumentException("partitions has " + partitions.length + " entries for " + n
                    + " records");
        }
        topic.ensureOpen();
        PartitionActor[] actors = topic.actors();
        if (n == 0) {
            return CompletableFuture.completedFuture(List.of());
        }
        int[] partitionOf = new int[n];
        long[] bytes = new long[actors.length];
        int[] counts = new int[actors.length];
        boolean single = true;
        for (int i = 0; i < n; i++) {
            OutgoingRecord r = records.get(i);
            int p = partitions == null || partitions[i] == ROUTED ? route(r, actors.length)
                    : topic.checkPartition(partitions[i], actors.length);
            partitionOf[i] = p;
            bytes[p] += checkSize(r, i);
            counts[p]++;
            single &= p == partitionOf[0];
        }
        for (int p = 0; p < bytes.length; p++) {
            if (mayExceedOneAppend(bytes[p], counts[p])) {
                checkAppendSize(records, partitionOf, p);
            }
        }
        if (single) {
            return submitBatch(actors[partitionOf[0]], records, bytes[partitionOf[0]]);
        }
        return splitBatch(actors, records, partitionOf, bytes);
    }

    @Override
    public CompletableFuture<List<RecordPosition>> sendBatchTo(int partition, List<OutgoingRecord> given) {
        List<OutgoingRecord> records = requireRecords(given);
        topic.ensureOpen();
        PartitionActor actor = topic.actor(partition);
        if (records.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        long bytes = 0;
        for (int i = 0, n = records.size(); i < n; i++) {
            bytes += checkSize(records.get(i), i);
        }
        if (mayExceedOneAppend(bytes, records.size())) {
            checkAppendSize(records, null, partition);
        }
        return submitBatch(actor, records, bytes);
    }

    /**
     * Whether {@code count} records whose {@link #checkSize}s add up to {@code bytes} may be more than
     * one append holds: each record's timestamp may take up to 9 bytes more than the one counted.
     */
    private static boolean mayExceedOneAppend(long bytes, int count) {
        return bytes + 9L * count > AppendSizes.MAX_APPEND_BYTES;
    }

    /**
     * Refuses the records of a batch bound for {@code partition} ({@code partitionOf[i]}, or all of
     * them when null) when their exact sizes in the frame add up to more than one append may hold:
     * each record's encoded size with its timestamp's distance from the first record's (counted at
     * its widest when only one of the two is left to the clock). Called only when their upper bounds
     * may be over, before anything of the batch is submitted, so that a refusal leaves every partition
     * as it was.
     */
    private void checkAppendSize(List<OutgoingRecord> records, int @Nullable [] partitionOf, int partition) {
        long exact = 0;
        OutgoingRecord first = null;
        for (int i = 0, n = records.size(); i < n; i++) {
            if (partitionOf == null || partitionOf[i] == partition) {
                OutgoingRecord r = records.get(i);
                if (first == null) {
                    first = r;
                }
                exact += AppendSizes.encodedSize(r) - 1 + AppendSizes.timestampDeltaBytes(first, r);
            }
        }
        if (exact > AppendSizes.MAX_APPEND_BYTES) {
            throw new RecordTooLargeException("the records of a batch for partition " + partition + " of topic '"
                    + topic.name + "' take " + exact + " bytes with their timestamps, more than one atomic append"
                    + " may hold (" + AppendSizes.MAX_APPEND_BYTES + " bytes before compression); nothing was written");
        }
    }

    private static CompletableFuture<List<RecordPosition>> submitBatch(PartitionActor actor,
            List<OutgoingRecord> records, long bytes) {
        BatchRequest b = new BatchRequest(records, bytes);
        actor.submit(b);
        return b;
    }

    /** One batch request per partition; the positions come back in the order of {@code records}. */
    private static CompletableFuture<List<RecordPosition>> splitBatch(PartitionActor[] actors,
            List<OutgoingRecord> records, int[] partitionOf, long[] bytes) {
        List<List<OutgoingRecord>> perPartition = new ArrayList<>(actors.length);
        for (int p = 0; p < actors.length; p++) {
            perPartition.add(null);
        }
        for (int i = 0; i < partitionOf.length; i++) {
            List<OutgoingRecord> l = perPartition.get(partitionOf[i]);
            if (l == null) {
                l = new ArrayList<>();
                perPartition.set(partitionOf[i], l);
            }
            l.add(records.get(i));
        }
        @SuppressWarnings("unchecked")
        CompletableFuture<List<RecordPosition>>[] parts = new CompletableFuture[actors.length];
        for (int p = 0; p < actors.length; p++) {
            List<OutgoingRecord> l = perPartition.get(p);
            parts[p] = l == null ? null : submitBatch(actors[p], l, bytes[p]);
        }
        CompletableFuture<?>[] present = Arrays.stream(parts).filter(Objects::nonNull).toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(present).thenApply(ignored -> {
            int[] next = new int[actors.length];
            RecordPosition[] out = new RecordPosition[partitionOf.length];
            for (int i = 0; i < partitionOf.length; i++) {
                int p = partitionOf[i];
                out[i] = parts[p].join().get(next[p]++);
            }
            return List.of(out);
        });
    }

    @Override
    public void checkRecord(OutgoingRecord record) {
        Objects.requireNonNull(record, "record");
        topic.ensureOpen();
        checkSize(record, -1);
    }

    @Override
    public void checkRecord(int partition, OutgoingRecord record) {
        Objects.requireNonNull(record, "record");
        topic.ensureOpen();
        topic.actor(partition);
        checkSize(record, -1);
    }

    @Override
    public void flush() {
        topic.ensureOpen();
        for (PartitionActor actor : topic.actors()) {
            actor.commands.writeSubmitted();
        }
    }

    private int route(OutgoingRecord record, int partitions) {
        if (partitions == 1) {
            return 0;
        }
        byte[] key = record.key();
        if (key != null) {
            return Partitioner.partitionFor(key, partitions);
        }
        return Partitioner.toPositive(topic.keyless.getAndIncrement()) % partitions;
    }

    /**
     * The records of a batch as they are now, in a list of the engine's own (one array: the caller's list may be
     * changed after the call, or be slow to index); throws if one is null. Their arrays are copied only if the
     * batch has to wait ({@link Request#detach}).
     */
    private static List<OutgoingRecord> requireRecords(List<OutgoingRecord> given) {
        OutgoingRecord[] records = Objects.requireNonNull(given, "records").toArray(new OutgoingRecord[0]);
        for (int i = 0; i < records.length; i++) {
            if (records[i] == null) {
                throw new NullPointerException("records[" + i + "] is null");
            }
        }
        return Arrays.asList(records);
    }

    /**
     * The record's size as checked against maxRecordBytes, after the check that a record sent to a compacted topic has
     * a key; throws before anything is written, naming the
     * record's index when it is one of a batch ({@code indexInBatch}, else -1). A cheap
     * upper bound settles the check for every record well under the limit; the exact size (the log's
     * own measure) is computed only for records near the limit, or when an observer is told the bytes
     * appended. Otherwise the bound is what frame coalescing adds up: at most a dozen bytes more than
     * the exact size for a record without headers, so frames only ever come out a little smaller.
     */
    private int checkSize(OutgoingRecord r, int indexInBatch) {
        TopicConfig config = topic.config();
        if (r.key() == null && config.cleanupPolicy() != CleanupPolicy.DELETE) {
            throw new InvalidRecordException((indexInBatch < 0 ? "a record" : "record " + indexInBatch + " of the batch")
                    + " without a key was sent to topic '" + topic.name + "', which is compacted (cleanup policy "
                    + config.cleanupPolicy() + ") and keeps records by key; nothing was written");
        }
        int max = config.maxRecordBytes();
        long bound = sizeBound(r);
        if (bound <= max && !topic.broker.context().observing()) {
            return (int) bound;
        }
        long size = AppendSizes.encodedSize(r);
        if (size > max) {
            throw new RecordTooLargeException((indexInBatch < 0 ? "record" : "record " + indexInBatch + " of the batch")
                    + " of " + size + " bytes is larger than maxRecordBytes " + max + " of topic '" + topic.name
                    + "'; nothing was written");
        }
        return (int) size;
    }

    /**
     * At least {@link AppendSizes#encodedSize}: every varint (lengths, the header count) counted at
     * its widest and every header key character at 3 UTF-8 bytes (a surrogate pair, 4 bytes, is two
     * characters).
     */
    static long sizeBound(OutgoingRecord r) {
        long size = 4 + 1 + fieldBound(r.key()) + fieldBound(r.value()) + VARINT_MAX;
        Headers headers = r.headers();
        for (int i = 0, n = headers.size(); i < n; i++) {
            Header h = headers.get(i);
            size += VARINT_MAX + 3L * h.key().length() + fieldBound(h.value());
        }
        return size;
    }

    private static long fieldBound(byte @Nullable [] b) {
        return b == null ? 1 : VARINT_MAX + (long) b.length;
    }
}
