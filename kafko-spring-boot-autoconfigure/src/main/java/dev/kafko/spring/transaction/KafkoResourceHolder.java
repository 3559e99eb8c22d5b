package dev.kafko.spring.transaction;

import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.support.ResourceHolderSupport;

/**
 * The records of one transaction, bound to the transaction's thread under the template's {@code LogBackend} (by
 * {@link KafkoTransactionManager}, or when a transactional template first sends inside another manager's
 * transaction), or held by the template for {@code executeInTransaction}. The commit writes each topic's records
 * with one call (those of every template on the backend together), in the order the topics were first sent to: the
 * records of one partition all or none, in the order they were sent, and returns once their futures completed; it
 * keeps no record once the transaction completed. Used by the transaction's thread only; the futures it hands out are
 * completed by whichever thread writes their records.
 */
public final class KafkoResourceHolder extends ResourceHolderSupport implements KafkoTransaction {

    private final Thread owner = Thread.currentThread();
    private final List<Held> held = new ArrayList<>();
    private @Nullable RuntimeException refusal;
    private volatile boolean completed;

    /** One record held, and the future its send returned. */
    private record Held(TopicWriter writer, String topic, int partition, OutgoingRecord record,
                        CompletableFuture<RecordPosition> written) {
    }

    @Override
    public CompletableFuture<RecordPosition> add(TopicWriter writer, String topic, @Nullable Integer partition,
                                                 OutgoingRecord record) {
        requireOpen("send in");
        CompletableFuture<RecordPosition> written = new CompletableFuture<>();
        held.add(new Held(Objects.requireNonNull(writer, "writer"), Objects.requireNonNull(topic, "topic"),
                partition == null ? Producer.ROUTED : partition, Objects.requireNonNull(record, "record"), written));
        return written;
    }

    @Override
    public void refuse(RuntimeException cause) {
        if (refusal == null) {
            refusal = cause;
        }
    }

    @Override
    public <T> CompletableFuture<T> guard(CompletableFuture<T> result) {
        TransactionalFuture<T> guarded = new TransactionalFuture<>(this);
        result.whenComplete(guarded);
        return guarded;
    }

    /** Whether {@code get} or {@code join} on the calling thread would wait for this transaction's own commit. */
    boolean waitsForItself() {
        return !completed && Thread.currentThread() == owner;
    }

    @Override
    public boolean isOpen() {
        return !completed;
    }

    @Override
    public void commit() {
        requireOpen("commit");
        RuntimeException refused = refusal;
        if (refused != null) {
            int count = held.size();
            rollback();
            throw new KafkoTransactionException("The transaction did not commit: one of its sends was refused ("
                    + refused.getMessage() + "); none of its " + count + " records was written", refused);
        }
        // one write per topic, whichever template (of this backend) sent its records: each partition's all or none,
        // in the order they were sent
        Map<String, List<Held>> groups = new LinkedHashMap<>();
        for (Held h : held) {
            groups.computeIfAbsent(h.topic(), t -> new ArrayList<>()).add(h);
        }
        // the futures handed out refer to this holder: they must not keep its records once they are written
        held.clear();
        List<CompletableFuture<List<RecordPosition>>> writes = new ArrayList<>(groups.size());
        List<String> submitted = new ArrayList<>();
        Throwable refusedAtCommit = null;
        String refusedTopic = null;
        List<String> notWritten = new ArrayList<>();
        for (Map.Entry<String, List<Held>> e : groups.entrySet()) {
            String topic = e.getKey();
            List<Held> records = e.getValue();
            if (refusedAtCommit != null) {
                notWritten.add(topic);
                fail(records, new KafkoTransactionException("Not written: the commit stopped at topic '"
                        + refusedTopic + "', whose records were refused", refusedAtCommit));
                continue;
            }
            try {
                CompletableFuture<List<RecordPosition>> write = records.get(0).writer().write(topic, records(records),
                        partitions(records));
                // joined below once the records' futures are completed, not merely once the write is
                writes.add(write.whenComplete((positions, failure) -> complete(records, positions, failure)));
                submitted.add(topic);
            } catch (RuntimeException | Error refused2) {
                // an Error too: the records of this topic and the next ones are failed, never left incomplete
                refusedAtCommit = refused2;
                refusedTopic = topic;
                notWritten.add(topic);
                fail(records, refused2);
            }
        }
        completed = true;
        List<String> failed = new ArrayList<>();
        Throwable firstFailure = refusedAtCommit;
        for (int i = 0; i < writes.size(); i++) {
            try {
                writes.get(i).join();
            } catch (CompletionException | java.util.concurrent.CancellationException failure) {
                failed.add(submitted.get(i));
                if (firstFailure == null) {
                    firstFailure = failure.getCause() != null ? failure.getCause() : failure;
                }
            }
        }
        if (refusedAtCommit instanceof Error error) {
            throw error;
        }
        if (firstFailure != null) {
            List<String> written = new ArrayList<>(submitted);
            written.removeAll(failed);
            notWritten.addAll(0, failed);
            throw new KafkoTransactionException("The transaction's commit failed: the records for topics "
                    + notWritten + " were not all written (those of one partition all or none), those for " + written
                    + " were: " + firstFailure.getMessage(), firstFailure);
        }
    }

    @Override
    public void rollback() {
        if (completed) {
            return;
        }
        completed = true;
        fail(held, new TransactionRolledBackException("The transaction rolled back: the record was not written"));
        held.clear();
    }

    @Override
    public void clear() {
        super.clear();
        rollback();
    }

    private void requireOpen(String what) {
        if (completed) {
            throw new IllegalStateException("Cannot " + what + " a transaction that already committed or rolled back");
        }
    }

    private static List<OutgoingRecord> records(List<Held> held) {
        List<OutgoingRecord> records = new ArrayList<>(held.size());
        for (Held h : held) {
            records.add(h.record());
        }
        return records;
    }

    private static int[] partitions(List<Held> held) {
        int[] partitions = new int[held.size()];
        for (int i = 0; i < partitions.length; i++) {
            partitions[i] = held.get(i).partition();
        }
        return partitions;
    }

    private static void complete(List<Held> held, @Nullable List<RecordPosition> positions,
                                 @Nullable Throwable failure) {
        if (failure != null || positions == null) {
            fail(held, failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
                    : failure);
            return;
        }
        for (int i = 0; i < held.size(); i++) {
            held.get(i).written().complete(positions.get(i));
        }
    }

    private static void fail(List<Held> held, @Nullable Throwable failure) {
        Throwable cause = failure != null ? failure : new KafkoTransactionException("The write returned no positions");
        for (Held h : held) {
            h.written().completeExceptionally(cause);
        }
    }
}
