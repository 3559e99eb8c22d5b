package dev.kafko.spring.requestreply;

import dev.kafko.KafkoRecord;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One reply an {@link AggregatingReplyingKafkoTemplate} collected: the record as stored (its topic, partition,
 * offset, timestamp, key and headers) and its value converted to the template's reply type, where spring-kafka's
 * aggregating template gives a {@code ConsumerRecord<K, R>}.
 *
 * @param record the reply as stored
 * @param value the reply's value converted to the reply type; {@code null} for a reply without a value
 * @param <R> the reply's value type
 */
public record ReceivedReply<R>(KafkoRecord record, @Nullable R value) {

    public ReceivedReply {
        Objects.requireNonNull(record, "record");
    }
}
