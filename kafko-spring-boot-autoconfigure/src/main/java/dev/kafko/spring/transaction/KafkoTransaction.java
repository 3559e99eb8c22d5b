package dev.kafko.spring.transaction;

import dev.kafko.OutgoingRecord;
import dev.kafko.RecordPosition;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The records one transaction holds until it commits, as the template sees them. Internal: used by
 * {@link dev.kafko.spring.core.KafkoTemplate}; its only implementation is {@link KafkoResourceHolder}. Used by the
 * thread that runs the transaction.
 */
public interface KafkoTransaction {

    /** Writes one topic's records of a commit: record {@code i} to {@code partitions[i]}, or routed. */
    @FunctionalInterface
    interface TopicWriter {

        /** @throws RuntimeException what the write refuses at the call; nothing of the batch is written then */
        CompletableFuture<List<RecordPosition>> write(String topic, List<OutgoingRecord> records, int[] partitions);
    }

    /**
     * Holds {@code record} for {@code topic}; the returned future completes when the commit writes it, or
     * exceptionally when the transaction rolls back ({@link TransactionRolledBackException}) or its write fails.
     *
     * @param partition the partition, or {@code null} to route it by key (round-robin without one)
     */
    CompletableFuture<RecordPosition> add(TopicWriter writer, String topic, @Nullable Integer partition,
                                          OutgoingRecord record);

    /** A send of this transaction was refused at the call: the commit then fails and writes nothing. */
    void refuse(RuntimeException cause);

    /**
     * A future completed as {@code result} is, whose {@code get} and {@code join} refuse, with an
     * {@link IllegalStateException}, to wait on the transaction's own thread while the transaction is open: its
     * record is written only when the transaction commits, so that wait would never end.
     */
    <T> CompletableFuture<T> guard(CompletableFuture<T> result);

    /**
     * Writes the records held, each topic's with one call (those of one partition all or none) and returns once
     * every write completed.
     *
     * @throws KafkoTransactionException when a send was refused (nothing written), or a write failed (the message
     *     names what was written)
     * @throws IllegalStateException when the transaction already committed or rolled back
     */
    void commit();

    /** Drops the records held, failing their futures; nothing when the transaction already completed. */
    void rollback();

    /** Whether the transaction neither committed nor rolled back yet. */
    boolean isOpen();
}
