package dev.kafko;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Sends records to one topic. Thread-safe: any number of threads may send through one producer.
 * A producer holds no resources of its own; it stops working when its {@link Kafko} closes.
 *
 * <p>A returned future completes when the record is in the operating system's page cache (or on
 * disk, under {@link FsyncPolicy#EVERY_BATCH}), and completes exceptionally with a
 * {@link KafkoException} otherwise. Argument errors ({@link RecordTooLargeException},
 * {@link InvalidPartitionException}) are thrown before anything is written, and so are
 * {@link UnknownTopicException} once the topic was deleted and {@link KafkoClosedException} once the instance
 * closed.
 *
 * <p>A single-record send that streams in with others may linger, up to
 * {@link KafkoOptions#linger()}, to be written in one frame with the sends after it; blocking on its
 * future, a consumer waiting for records, {@link #flush()} and {@link Kafko#close()} write it at once.
 */
public interface Producer {

    /** The topic this producer writes to. */
    String topic();

    /**
     * The topic's current partition count.
     *
     * @throws UnknownTopicException when the topic was deleted (a topic created again under its name
     *     needs a new producer), {@link KafkoClosedException} after {@link Kafko#close()}
     */
    int partitionCount();

    /**
     * The partition a record with this key routes to: murmur2, exactly as Apache Kafka's default partitioner.
     *
     * @throws UnknownTopicException when the topic was deleted, {@link KafkoClosedException} after close
     */
    int partitionFor(byte[] key);

    /** Sends to the key's partition, or round-robin when {@code key} is {@code null}. */
    CompletableFuture<RecordPosition> send(byte @Nullable [] key, byte @Nullable [] value);

    CompletableFuture<RecordPosition> send(byte @Nullable [] key, byte @Nullable [] value, Headers headers);

    CompletableFuture<RecordPosition> send(OutgoingRecord record);

    /** Sends to this partition, whatever the key. */
    CompletableFuture<RecordPosition> sendTo(int partition, byte @Nullable [] key, byte @Nullable [] value);

    CompletableFuture<RecordPosition> sendTo(int partition, OutgoingRecord record);

    /**
     * Sends records routed one by one as {@link #send(OutgoingRecord)} would. The records that land
     * on one partition are appended atomically as one frame, in list order; the result lists the
     * positions in the order of {@code records}. The records of one partition may take at most
     * 256 MiB before compression: their sizes as {@code maxRecordBytes} counts them, plus, for each
     * record, up to 9 bytes for the distance of its timestamp from the first record's (nothing when
     * they all have one timestamp, or all leave it to the append time; the most when only one of the
     * two does). A batch over that is refused with {@link RecordTooLargeException} at the call, before
     * anything of it is written to any partition. Other failures are per partition: a partition whose
     * queue stays full ({@link BufferExhaustedException}) or that failed writes none of its records, while
     * the records of the batch bound for other partitions may be written; the future then fails.
     */
    CompletableFuture<List<RecordPosition>> sendBatch(List<OutgoingRecord> records);

    /**
     * As {@link #sendBatch(List)}, with record {@code i} sent to partition {@code partitions[i]}, or routed as
     * {@link #send(OutgoingRecord)} would route it where that is {@link #ROUTED}. Every argument is checked
     * before anything of the batch is written to any partition: a partition out of range
     * ({@link InvalidPartitionException}), a record or a partition's records too large
     * ({@link RecordTooLargeException}), {@code partitions} of another length than {@code records}
     * ({@link IllegalArgumentException}).
     */
    CompletableFuture<List<RecordPosition>> sendBatch(List<OutgoingRecord> records, int[] partitions);

    /** A partition of {@link #sendBatch(List, int[])} that routes its record by key, or round-robin without one. */
    int ROUTED = -1;

    /**
     * Checks {@code record} as {@link #send(OutgoingRecord)} does at the call, without writing it.
     *
     * @throws RecordTooLargeException when it is larger than the topic's {@code maxRecordBytes} now
     * @throws UnknownTopicException when the topic was deleted, {@link KafkoClosedException} after close
     */
    void checkRecord(OutgoingRecord record);

    /**
     * Checks {@code record} as {@link #sendTo(int, OutgoingRecord)} does at the call, without writing it.
     *
     * @throws InvalidPartitionException when the topic has no such partition now
     * @throws RecordTooLargeException when it is larger than the topic's {@code maxRecordBytes} now
     * @throws UnknownTopicException when the topic was deleted, {@link KafkoClosedException} after close
     */
    void checkRecord(int partition, OutgoingRecord record);

    /** Sends every record to one partition, atomically, in list order; at most 256 MiB, as {@link #sendBatch}. */
    CompletableFuture<List<RecordPosition>> sendBatchTo(int partition, List<OutgoingRecord> records);

    /**
     * Returns once every send to this topic made before the call (by any thread) is written and its
     * future completed, sends that linger included. Called from a send's callback (on the thread
     * completing that send's future), it returns once they are written, without waiting for futures
     * other threads are completing: such a wait could wait for a thread that waits for this one. It visits
     * every partition of the topic, idle ones too (a topic of 1,024 partitions: about half a millisecond), so
     * a flush after each send pays for all of them.
     *
     * @throws KafkoClosedException when the instance is closed
     * @throws UnknownTopicException when the topic was deleted
     * @throws InterruptException when the thread is interrupted while it waits; the interrupt status stays set
     * @throws IllegalStateException when called from a {@link KafkoObserver} on the thread appending to one of
     *     the topic's partitions, which would wait for itself
     */
    void flush();
}
