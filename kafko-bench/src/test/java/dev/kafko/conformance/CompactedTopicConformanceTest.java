package dev.kafko.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kafko.CleanupPolicy;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;

/**
 * Compacted topics ({@code cleanup.policy=compact} and {@code compact,delete}): both sides refuse a record without a
 * key, and take a tombstone (a key with a null value) and keyed records at the same offsets. When their cleaners run
 * is each side's own (Kafka's on its broker's schedule), so the records they remove are not compared here; kafko's
 * are tested in {@code CompactionTest}.
 */
class CompactedTopicConformanceTest extends AgainstKafka {

    @Test
    void bothRefuseARecordWithoutAKeyAndTakeTombstones() {
        for (CleanupPolicy policy : List.of(CleanupPolicy.COMPACT, CleanupPolicy.COMPACT_DELETE)) {
            String topic = "compacted-" + policy.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
            kafko.createTopic(topic, dev.kafko.TopicConfig.builder().cleanupPolicy(policy).build());
            await(admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)
                    .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, policy.kafkaName())))).all());
            Producer producer = kafko.producer(topic);
            try (KafkaProducer<byte[], byte[]> kp = kafkaProducer(Map.of(ProducerConfig.RETRIES_CONFIG, 0))) {
                Throwable kafkaRefusal = catchThrowable(() -> kp.send(new ProducerRecord<>(topic, 0, null, new byte[1])).get());
                assertThat(kafkaRefusal).as(policy.kafkaName()).hasCauseInstanceOf(InvalidRecordException.class);
                assertThat(catchThrowable(() -> producer.sendTo(0, OutgoingRecord.of(null, new byte[1]))))
                        .as(policy.kafkaName()).isInstanceOf(dev.kafko.InvalidRecordException.class);

                long kafkaKeyed = await(kp.send(new ProducerRecord<>(topic, 0, new byte[] {1}, new byte[1]))).offset();
                long kafkaTombstone = await(kp.send(new ProducerRecord<>(topic, 0, new byte[] {1}, null))).offset();
                long kafkoKeyed = producer.sendTo(0, OutgoingRecord.of(new byte[] {1}, new byte[1])).join().offset();
                long kafkoTombstone = producer.sendTo(0, OutgoingRecord.of(new byte[] {1}, null)).join().offset();
                // the refused record took no offset on either side
                assertThat(List.of(kafkoKeyed, kafkoTombstone)).isEqualTo(List.of(kafkaKeyed, kafkaTombstone))
                        .containsExactly(0L, 1L);
            }
        }
    }
}
