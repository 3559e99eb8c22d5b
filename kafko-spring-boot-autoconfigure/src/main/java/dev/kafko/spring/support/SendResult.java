package dev.kafko.spring.support;

import com.fasterxml.jackson.annotation.JsonIgnore;
import org.jspecify.annotations.Nullable;

/**
 * Where a record sent through {@link dev.kafko.spring.core.KafkoTemplate} was appended. spring-kafka's accessors are
 * here too, as views of the same values, so that code written against its {@code SendResult} reads the same:
 * {@link #getRecordMetadata()} and {@link #getProducerRecord()}.
 *
 * @param topic the topic
 * @param partition the partition
 * @param offset the record's offset in that partition
 * @param timestamp the record's timestamp (epoch millis)
 * @param key the key as given to the template, or {@code null}
 * @param value the value as given to the template
 * @param <K> the key type
 * @param <V> the value type
 */
public record SendResult<K, V>(String topic, int partition, long offset, long timestamp, @Nullable K key,
                               @Nullable V value) {

    /**
     * Where the record was written, in the shape of Kafka's {@code RecordMetadata} ({@code offset()},
     * {@code partition()}, {@code topic()}, {@code timestamp()}), as spring-kafka's {@code SendResult} gives it.
     */
    @JsonIgnore
    public RecordMetadata getRecordMetadata() {
        return new RecordMetadata(topic, partition, offset, timestamp);
    }

    /**
     * The record sent, in the shape of Kafka's {@code ProducerRecord} ({@code topic()}, {@code key()},
     * {@code value()}, ...), as spring-kafka's {@code SendResult} gives it. Its partition and timestamp are those
     * the record was written with, also where the send left them to the log (Kafka's are those the send asked for, or
     * {@code null}); it has no headers.
     */
    @JsonIgnore
    public ProducerRecord<K, V> getProducerRecord() {
        return new ProducerRecord<>(topic, partition, timestamp, key, value);
    }

    /**
     * Where a record was written.
     *
     * @param topic the topic
     * @param partition the partition
     * @param offset the record's offset in that partition
     * @param timestamp the record's timestamp (epoch millis)
     */
    public record RecordMetadata(String topic, int partition, long offset, long timestamp) {

        /** Always true: a send completes only once its record has an offset (Kafka's is false for {@code acks=0}). */
        public boolean hasOffset() {
            return true;
        }

        /** Always true: every record written has a timestamp. */
        public boolean hasTimestamp() {
            return true;
        }

        /** {@code topic-partition@offset}, as Kafka's. */
        @Override
        public String toString() {
            return topic + "-" + partition + "@" + offset;
        }
    }

    /**
     * A record as sent.
     *
     * @param topic the topic
     * @param partition the partition it was written to
     * @param timestamp the timestamp it was written with (epoch millis)
     * @param key the key as given to the template, or {@code null}
     * @param value the value as given to the template
     * @param <K> the key type
     * @param <V> the value type
     */
    public record ProducerRecord<K, V>(String topic, Integer partition, Long timestamp, @Nullable K key,
                                       @Nullable V value) {
    }
}
