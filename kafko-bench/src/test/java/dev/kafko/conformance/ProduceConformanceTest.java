package dev.kafko.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Compression;
import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Sending: the same random records (null, empty, text and binary keys and values; repeated, empty and
 * null-valued headers; explicit timestamps or none; keyed, keyless and to a chosen partition) sent one by
 * one and in batches under every codec, then the positions each side acknowledged and every record read
 * back compared. Keyless records go to the partition kafko chose on both sides, as Kafka's producer
 * spreads them otherwise by design.
 */
class ProduceConformanceTest extends AgainstKafka {

    private static final String[] HEADER_KEYS = {"a", "a", "b", "ü-h", "", "trace-id"};

    /** A key: missing, or one of {@link AgainstKafka#randomKey}'s. */
    static byte @Nullable [] randomKeyOrNull(Random random) {
        return random.nextInt(10) == 0 ? null : randomKey(random);
    }

    static byte @Nullable [] randomValue(Random random) {
        int kind = random.nextInt(10);
        if (kind == 0) {
            return null;
        }
        byte[] value = new byte[kind == 1 ? 0 : random.nextInt(300)];
        random.nextBytes(value);
        return value;
    }

    static Headers randomHeaders(Random random) {
        List<dev.kafko.Header> headers = new ArrayList<>();
        for (int i = random.nextInt(4); i > 0; i--) {
            int kind = random.nextInt(5);
            byte[] value = kind == 0 ? null : kind == 1 ? new byte[0] : ("v" + random.nextInt(99)).getBytes(StandardCharsets.UTF_8);
            headers.add(new dev.kafko.Header(HEADER_KEYS[random.nextInt(HEADER_KEYS.length)], value));
        }
        return Headers.of(headers);
    }

    /** Kafka's form of {@code record}, to {@code partition} (null: Kafka's partitioner chooses). */
    static ProducerRecord<byte[], byte[]> toKafka(String topic, @Nullable Integer partition, OutgoingRecord record) {
        List<org.apache.kafka.common.header.Header> headers = new ArrayList<>();
        record.headers().forEach(h -> headers.add(new RecordHeader(h.key(), h.value())));
        Long timestamp = record.timestamp() == OutgoingRecord.NO_TIMESTAMP ? null : record.timestamp();
        return new ProducerRecord<>(topic, partition, timestamp, record.key(), record.value(), headers);
    }

    @Test
    void randomSendsGetKafkasOffsetsAndReadBackAsKafkaReadsThem() {
        for (long seed = 1; seed <= 4; seed++) {
            Random random = new Random(seed);
            int partitions = 1 + random.nextInt(5);
            String topic = "sends-" + seed;
            createBoth(topic, partitions);
            Producer producer = kafko.producer(topic);
            long base = System.currentTimeMillis() - 10L * 86_400_000L;
            List<String> kafkoPositions = new ArrayList<>();
            List<String> kafkaPositions = new ArrayList<>();
            Set<String> explicitTimestamps = new HashSet<>();
            int count = 400;
            try (KafkaProducer<byte[], byte[]> kp = kafkaProducer(Map.of())) {
                for (int i = 0; i < count; i++) {
                    long timestamp = random.nextBoolean() ? OutgoingRecord.NO_TIMESTAMP
                            : random.nextInt(5) == 0 ? base : base + random.nextInt(1_000_000);
                    OutgoingRecord record = OutgoingRecord.of(randomKeyOrNull(random), randomValue(random),
                            randomHeaders(random), timestamp);
                    Integer chosen = random.nextInt(3) == 0 ? random.nextInt(partitions) : null;
                    RecordPosition kafkoAt = chosen != null ? producer.sendTo(chosen, record).join() : producer.send(record).join();
                    Integer kafkaPartition = chosen != null ? chosen : record.key() == null ? kafkoAt.partition() : null;
                    RecordMetadata kafkaAt = await(kp.send(toKafka(topic, kafkaPartition, record)));
                    kafkoPositions.add(at(kafkoAt.partition(), kafkoAt.offset()));
                    kafkaPositions.add(at(kafkaAt.partition(), kafkaAt.offset()));
                    if (timestamp != OutgoingRecord.NO_TIMESTAMP) {
                        explicitTimestamps.add(at(kafkoAt.partition(), kafkoAt.offset()));
                    }
                }
            }
            assertThat(kafkoPositions).as("acknowledged positions, seed " + seed).isEqualTo(kafkaPositions);
            assertReadBackAlike(topic, partitions, count, explicitTimestamps, "seed " + seed);
        }
    }

    @Test
    void batchesGetKafkasOffsetsAndReadBackAsKafkaReadsThemUnderEveryCodec() {
        for (Compression codec : Compression.values()) {
            String topic = "batches-" + codec.name().toLowerCase(Locale.ROOT);
            createBoth(topic, TopicConfig.builder().partitions(3).compression(codec).build());
            Producer producer = kafko.producer(topic);
            Random random = new Random(21);
            long now = System.currentTimeMillis();
            List<String> kafkoPositions = new ArrayList<>();
            List<Future<RecordMetadata>> kafkaPositions = new ArrayList<>();
            Set<String> explicitTimestamps = new HashSet<>();
            // Kafka's producer batches too: it lingers (and keeps order per partition: one request in flight)
            try (KafkaProducer<byte[], byte[]> kp = kafkaProducer(Map.of(
                    ProducerConfig.COMPRESSION_TYPE_CONFIG, codec.name().toLowerCase(Locale.ROOT),
                    ProducerConfig.LINGER_MS_CONFIG, 20))) {
                for (int i = 0; i < 40; i++) {
                    List<OutgoingRecord> batch = new ArrayList<>();
                    for (int j = 1 + random.nextInt(15); j > 0; j--) {
                        long timestamp = switch (random.nextInt(5)) {
                            case 0 -> 0L;
                            case 1 -> OutgoingRecord.NO_TIMESTAMP;
                            case 2 -> now - 1000;
                            case 3 -> now - random.nextInt(Integer.MAX_VALUE) * 100L;
                            default -> 1L + random.nextInt(10);
                        };
                        byte[] key = random.nextInt(4) == 0 ? null : ("k" + random.nextInt(30)).getBytes(StandardCharsets.UTF_8);
                        byte[] value = random.nextInt(5) == 0 ? null
                                : ("value-" + i + "-" + j).repeat(random.nextInt(10)).getBytes(StandardCharsets.UTF_8);
                        batch.add(OutgoingRecord.of(key, value, randomHeaders(random), timestamp));
                    }
                    List<RecordPosition> kafkoAt = producer.sendBatch(batch).join();
                    for (int j = 0; j < batch.size(); j++) {
                        OutgoingRecord record = batch.get(j);
                        RecordPosition position = kafkoAt.get(j);
                        kafkoPositions.add(at(position.partition(), position.offset()));
                        Integer kafkaPartition = record.key() == null ? position.partition() : null;
                        kafkaPositions.add(kp.send(toKafka(topic, kafkaPartition, record)));
                        if (record.timestamp() != OutgoingRecord.NO_TIMESTAMP) {
                            explicitTimestamps.add(at(position.partition(), position.offset()));
                        }
                    }
                }
                kp.flush();
            }
            List<String> kafkaAt = kafkaPositions.stream().map(AgainstKafka::await).map(m -> at(m.partition(), m.offset())).toList();
            assertThat(kafkoPositions).as("acknowledged positions, " + codec).isEqualTo(kafkaAt);
            assertReadBackAlike(topic, 3, kafkoPositions.size(), explicitTimestamps, codec.toString());
        }
    }

    private void assertReadBackAlike(String topic, int partitions, int count, Set<String> explicitTimestamps, String what) {
        List<Seen> fromKafko = new ArrayList<>();
        for (KafkoRecord r : readAllFromKafko(topic, count)) {
            fromKafko.add(seen(r, explicitTimestamps.contains(at(r.partition(), r.offset()))));
        }
        List<Seen> fromKafka = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : readAllFromKafka(topic, partitions, count)) {
            fromKafka.add(seen(r, explicitTimestamps.contains(at(r.partition(), r.offset()))));
        }
        assertThat(fromKafko).as("records read back, " + what).hasSize(count);
        assertThat(sorted(fromKafko)).as("records read back, " + what).isEqualTo(sorted(fromKafka));
        for (int p = 0; p < partitions; p++) {
            int partition = p;
            assertThat(fromKafko.stream().filter(r -> r.partition() == partition).map(Seen::offset).toList())
                    .as("offsets of partition " + p + " in the order kafko's consumer polled them, " + what).isSorted();
        }
    }
}
