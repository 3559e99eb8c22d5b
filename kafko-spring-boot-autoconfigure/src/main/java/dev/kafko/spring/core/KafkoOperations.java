package dev.kafko.spring.core;

import dev.kafko.KafkoRecord;
import dev.kafko.PartitionInfo;
import dev.kafko.spring.support.SendResult;
import dev.kafko.spring.support.TopicPartitionOffset;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;

/**
 * Sending records, the kafko way of spring-kafka's {@code KafkaOperations}, and reading one back by its offset
 * ({@link #receive}). Every send method returns a future that completes once the record is appended. A record larger than the topic's max record
 * size completes it exceptionally with {@code RecordTooLargeException}, and a record without a key sent to a compacted
 * topic with {@code InvalidRecordException} (nothing written), as Kafka's producer does;
 * conversion and argument errors (a value the converter cannot write, a topic name outside the
 * naming rule, a partition out of range, a missing topic when topics are not created on first use,
 * no default topic) are thrown at once, and so is {@code KafkoClosedException} once the log closed.
 * Nothing is written in any of these cases. A send that joins a transaction ({@link #isTransactional()}) is written,
 * and its future completed, when the transaction commits.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public interface KafkoOperations<K, V> {

    /** Sends a value without a key (partitions are picked round-robin). */
    CompletableFuture<SendResult<K, V>> send(String topic, @Nullable V value);

    /** Sends to the key's partition (murmur2, as Kafka's default partitioner). */
    CompletableFuture<SendResult<K, V>> send(String topic, @Nullable K key, @Nullable V value);

    /** Sends to {@code partition} when not null, else as {@link #send(String, Object, Object)}. */
    CompletableFuture<SendResult<K, V>> send(String topic, @Nullable Integer partition, @Nullable K key,
                                             @Nullable V value);

    /**
     * Sends to {@code partition} when not null (else as {@link #send(String, Object, Object)}), with
     * {@code timestamp} (epoch millis) when not null, else the log's clock; spring-kafka's signature.
     *
     * @throws IllegalArgumentException when {@code timestamp} is negative
     */
    CompletableFuture<SendResult<K, V>> send(String topic, @Nullable Integer partition, @Nullable Long timestamp,
                                             @Nullable K key, @Nullable V value);

    /**
     * Sends a Spring message: the payload is the value ({@link dev.kafko.spring.support.KafkoNull} for a
     * tombstone, since a message cannot hold {@code null}); {@code KafkoHeaders.TOPIC} (a {@code String} or its
     * UTF-8 {@code byte[]}; required unless a default topic is set), {@code KEY}, {@code PARTITION} and
     * {@code TIMESTAMP} route it; the other headers become record headers (a content type as its text), except
     * Spring's id and timestamp and the headers of a received record ({@code kafko_received*}, the offset, the
     * acknowledgment, ...).
     *
     * @throws IllegalStateException when there is no topic header and no default topic, or the topic header is
     *     neither a {@code String} nor a {@code byte[]}
     */
    CompletableFuture<SendResult<K, V>> send(Message<?> message);

    /**
     * Sends to the default topic ({@code kafko.template.default-topic}).
     *
     * @throws IllegalStateException when no default topic is set
     */
    CompletableFuture<SendResult<K, V>> sendDefault(@Nullable V value);

    /** Sends to the default topic with a key. */
    CompletableFuture<SendResult<K, V>> sendDefault(@Nullable K key, @Nullable V value);

    /** Sends to the default topic, to {@code partition} when not null. */
    CompletableFuture<SendResult<K, V>> sendDefault(@Nullable Integer partition, @Nullable K key, @Nullable V value);

    /** Sends to the default topic, to {@code partition} and with {@code timestamp} when not null. */
    CompletableFuture<SendResult<K, V>> sendDefault(@Nullable Integer partition, @Nullable Long timestamp,
                                                    @Nullable K key, @Nullable V value);

    /**
     * {@link #receive(String, int, long, Duration)} waiting up to {@link KafkoTemplate#DEFAULT_POLL_TIMEOUT}, as
     * spring-kafka's {@code receive(topic, partition, offset)}.
     */
    @Nullable KafkoRecord receive(String topic, int partition, long offset);

    /**
     * The record at {@code offset} of {@code topic}'s {@code partition}, as it is stored (its key and value are
     * bytes: the template's converter is not applied), read without a group, so nothing is committed. Waits up to
     * {@code pollTimeout} for a record not yet written. Unlike spring-kafka's {@code receive}, which returns
     * whatever record its consumer's reset policy lands on, the result is the record at that offset or nothing.
     *
     * @return the record, or {@code null} when it was not written within {@code pollTimeout} or retention
     *     deleted it
     * @throws dev.kafko.UnknownTopicException when the topic does not exist (a read never creates one)
     * @throws dev.kafko.InvalidPartitionException when the topic has no such partition
     * @throws IllegalArgumentException when {@code offset} or {@code pollTimeout} is negative
     */
    @Nullable KafkoRecord receive(String topic, int partition, long offset, Duration pollTimeout);

    /**
     * {@link #receive(Collection, Duration)} waiting up to {@link KafkoTemplate#DEFAULT_POLL_TIMEOUT} for each, as
     * spring-kafka's {@code receive(Collection<TopicPartitionOffset>)}.
     */
    default List<KafkoRecord> receive(Collection<TopicPartitionOffset> requested) {
        return receive(requested, KafkoTemplate.DEFAULT_POLL_TIMEOUT);
    }

    /**
     * The records at the offsets {@code requested}, in that order, each read as
     * {@link #receive(String, int, long, Duration)} reads one (as stored, without a group); one not written within
     * {@code pollTimeout} (each request waits its own) or deleted by retention is left out, as spring-kafka's
     * {@code receive(Collection<TopicPartitionOffset>, Duration)} leaves out what its polls did not return.
     *
     * @throws IllegalArgumentException naming the request when one has no offset or one relative to a current
     *     position (such a read has no position), or a negative one; before anything is read
     * @throws dev.kafko.UnknownTopicException when a topic does not exist
     * @throws dev.kafko.InvalidPartitionException when a topic has no such partition
     */
    default List<KafkoRecord> receive(Collection<TopicPartitionOffset> requested, Duration pollTimeout) {
        Objects.requireNonNull(requested, "requested");
        Objects.requireNonNull(pollTimeout, "pollTimeout");
        for (TopicPartitionOffset r : requested) {
            Objects.requireNonNull(r, "a requested TopicPartitionOffset is null");
            if (r.offset() == null || r.relativeToCurrent() || r.offset() < 0) {
                throw new IllegalArgumentException("receive reads records at absolute offsets, not " + r);
            }
        }
        List<KafkoRecord> found = new ArrayList<>(requested.size());
        for (TopicPartitionOffset r : requested) {
            KafkoRecord record = receive(r.topic(), r.partition(), r.offset(), pollTimeout);
            if (record != null) {
                found.add(record);
            }
        }
        return found;
    }

    /**
     * Returns once every send made through this template before the call is written and its future completed, as
     * spring-kafka's {@code flush()}: a send that streams in with others may linger up to {@code kafko.linger} before
     * it is written, unless someone blocks on its future. A topic deleted since the template sent to it is skipped.
     *
     * @throws dev.kafko.KafkoClosedException once the log closed (when the template sent to a topic before)
     */
    void flush();

    /**
     * The partitions of {@code topic} as they are now, in partition order, as spring-kafka's {@code partitionsFor}:
     * kafko's {@link PartitionInfo}, whose {@code topic()} and {@code partition()} are those of Kafka's, with the
     * log's start and end offsets (the end counting every send made through this template before the call, but those
     * a transaction holds until it commits), its size and its state where Kafka's has leaders and replicas. A read: it
     * creates no topic.
     *
     * @throws dev.kafko.UnknownTopicException when the topic does not exist
     * @throws dev.kafko.InvalidNameException when the name breaks the naming rule
     */
    List<PartitionInfo> partitionsFor(String topic);

    /**
     * Runs {@code callback} in a transaction of the template's own: the records it sends are written when it returns
     * and dropped when it throws (spring-kafka's {@code executeInTransaction}). The default cannot.
     *
     * @return what the callback returned
     * @throws UnsupportedOperationException when these operations have no transactions
     */
    default <T> @Nullable T executeInTransaction(OperationsCallback<K, V, T> callback) {
        throw new UnsupportedOperationException(getClass().getName() + " has no transactions");
    }

    /** Whether a send on this thread now would join a transaction. The default: no. */
    default boolean inTransaction() {
        return false;
    }

    /** Whether sends join transactions. The default: no. */
    default boolean isTransactional() {
        return false;
    }

    /**
     * What {@link #executeInTransaction} runs.
     *
     * @param <T> what it returns
     */
    @FunctionalInterface
    interface OperationsCallback<K, V, T> {

        @Nullable T doInOperations(KafkoOperations<K, V> operations);
    }
}
