package dev.kafko.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Compression;
import dev.kafko.Headers;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Timestamp seeks: the position kafko's {@code seekToTimestamp} (all partitions, and one) gives against
 * the offset Kafka's {@code offsetsForTimes} returns (its end offset where it returns none), for
 * timestamps out of order, repeated and near 0, sent one by one and in compressed batches, targets on,
 * between and beyond them; and the records read after such a seek.
 */
class TimestampSeekConformanceTest extends AgainstKafka {

    /** Kafka's answer for every partition: {@code offsetsForTimes}, or the end offset where it has none. */
    static Map<TopicPartition, Long> kafkaSeek(KafkaConsumer<byte[], byte[]> kc, List<TopicPartition> tps, long timestamp) {
        Map<TopicPartition, Long> query = new HashMap<>();
        tps.forEach(tp -> query.put(tp, timestamp));
        Map<TopicPartition, OffsetAndTimestamp> found = kc.offsetsForTimes(query);
        Map<TopicPartition, Long> ends = kc.endOffsets(tps);
        Map<TopicPartition, Long> out = new HashMap<>();
        for (TopicPartition tp : tps) {
            OffsetAndTimestamp at = found.get(tp);
            out.put(tp, at == null ? ends.get(tp) : at.offset());
        }
        return out;
    }

    @Test
    void seekToTimestampLandsWhereOffsetsForTimesPointsForRandomTimestamps() {
        for (long seed = 10; seed < 14; seed++) {
            Random random = new Random(seed);
            int partitions = 1 + random.nextInt(4);
            String topic = "timestamps-" + seed;
            createBoth(topic, partitions);
            Producer producer = kafko.producer(topic);
            long base = System.currentTimeMillis() - 5L * 86_400_000L;
            List<Long> stamps = new ArrayList<>();
            try (KafkaProducer<byte[], byte[]> kp = kafkaProducer(Map.of())) {
                for (int i = 0; i < 300; i++) {
                    int partition = random.nextInt(partitions);
                    long timestamp = switch (random.nextInt(6)) {
                        case 0 -> base;
                        case 1 -> random.nextInt(1000);
                        default -> base + random.nextInt(5000) * 10L;
                    };
                    stamps.add(timestamp);
                    byte[] value = ("v" + i).getBytes(StandardCharsets.UTF_8);
                    producer.sendTo(partition, OutgoingRecord.of(null, value, Headers.empty(), timestamp)).join();
                    await(kp.send(new ProducerRecord<>(topic, partition, timestamp, null, value)));
                }
            }
            List<Long> targets = new ArrayList<>(List.of(0L, 1L, base - 1, base, base + 1, base + 49_990, base + 50_000,
                    System.currentTimeMillis(), Long.MAX_VALUE - 1, Long.MAX_VALUE));
            for (int i = 0; i < 30; i++) {
                targets.add(stamps.get(random.nextInt(stamps.size())) + random.nextInt(3) - 1);
            }
            List<TopicPartition> tps = partitions(topic, partitions);
            List<String> differences = new ArrayList<>();
            try (KafkaConsumer<byte[], byte[]> kc = kafkaConsumer(null, Map.of());
                    dev.kafko.Consumer consumer = kafko.consumer(topic)) {
                kc.assign(tps);
                for (long target : targets) {
                    Map<TopicPartition, Long> kafka = kafkaSeek(kc, tps, target);
                    consumer.seekToTimestamp(target);
                    for (TopicPartition tp : tps) {
                        if (consumer.position(tp.partition()) != kafka.get(tp)) {
                            differences.add("seekToTimestamp(" + target + ") p" + tp.partition() + ": kafko "
                                    + consumer.position(tp.partition()) + ", Kafka " + kafka.get(tp));
                        }
                        consumer.seekToTimestamp(tp.partition(), target);
                        if (consumer.position(tp.partition()) != kafka.get(tp)) {
                            differences.add("seekToTimestamp(" + tp.partition() + ", " + target + "): kafko "
                                    + consumer.position(tp.partition()) + ", Kafka " + kafka.get(tp));
                        }
                    }
                }
                // and the records read from there
                long target = base + 20_000;
                kafkaSeek(kc, tps, target).forEach(kc::seek);
                consumer.seekToTimestamp(target);
                long remaining = 0;
                for (TopicPartition tp : tps) {
                    remaining += kc.endOffsets(tps).get(tp) - kc.position(tp);
                }
                List<Seen> fromKafka = pollKafka(kc, (int) remaining).stream().map(r -> seen(r, true)).toList();
                List<Seen> fromKafko = pollKafko(consumer, (int) remaining).stream().map(r -> seen(r, true)).toList();
                assertThat(fromKafko).as("records after seekToTimestamp, seed " + seed).hasSize((int) remaining);
                assertThat(sorted(fromKafko)).as("records after seekToTimestamp, seed " + seed).isEqualTo(sorted(fromKafka));
            }
            assertThat(differences).as("seed " + seed).isEmpty();
        }
    }

    @Test
    void seekToTimestampLandsWhereOffsetsForTimesPointsInCompressedBatchesOutOfOrder() {
        for (Compression codec : Compression.values()) {
            String topic = "timestamps-" + codec.name().toLowerCase(Locale.ROOT);
            createBoth(topic, TopicConfig.builder().partitions(1).compression(codec).build());
            Producer producer = kafko.producer(topic);
            Random random = new Random(11);
            long base = System.currentTimeMillis() - 86_400_000L;
            List<Long> stamps = new ArrayList<>();
            try (KafkaProducer<byte[], byte[]> kp = kafkaProducer(Map.of(
                    ProducerConfig.COMPRESSION_TYPE_CONFIG, codec.name().toLowerCase(Locale.ROOT),
                    ProducerConfig.LINGER_MS_CONFIG, 50, ProducerConfig.BATCH_SIZE_CONFIG, 1_000_000))) {
                for (int i = 0; i < 20; i++) {
                    List<OutgoingRecord> batch = new ArrayList<>();
                    List<Future<RecordMetadata>> sent = new ArrayList<>();
                    for (int j = 1 + random.nextInt(30); j > 0; j--) {
                        long timestamp = base + random.nextInt(200) * 100L;
                        stamps.add(timestamp);
                        byte[] value = ("v" + i + "-" + j).getBytes(StandardCharsets.UTF_8);
                        batch.add(OutgoingRecord.of(null, value, Headers.empty(), timestamp));
                        sent.add(kp.send(new ProducerRecord<>(topic, 0, timestamp, null, value)));
                    }
                    producer.sendBatchTo(0, batch).join();
                    kp.flush();
                    sent.forEach(AgainstKafka::await);
                }
            }
            List<Long> targets = new ArrayList<>(List.of(0L, base, base + 19_900, base + 20_000));
            for (int i = 0; i < 60; i++) {
                targets.add(stamps.get(random.nextInt(stamps.size())) + random.nextInt(3) - 1);
            }
            TopicPartition tp = new TopicPartition(topic, 0);
            List<String> differences = new ArrayList<>();
            try (KafkaConsumer<byte[], byte[]> kc = kafkaConsumer(null, Map.of());
                    dev.kafko.Consumer consumer = kafko.consumer(topic)) {
                kc.assign(List.of(tp));
                for (long target : targets) {
                    long kafka = kafkaSeek(kc, List.of(tp), target).get(tp);
                    // the first offset whose timestamp is the target or later, found by hand
                    long first = stamps.size();
                    for (int i = 0; i < stamps.size(); i++) {
                        if (stamps.get(i) >= target) {
                            first = i;
                            break;
                        }
                    }
                    consumer.seekToTimestamp(target);
                    if (consumer.position(0) != kafka || kafka != first) {
                        differences.add("base+" + (target - base) + ": kafko " + consumer.position(0) + ", Kafka " + kafka
                                + ", by hand " + first);
                    }
                }
            }
            assertThat(differences).as(codec.toString()).isEmpty();
        }
    }

    @Test
    void seekToTimestampOnAnEmptyTopicStaysAtItsEnd() {
        createBoth("timestamps-empty", 2);
        List<TopicPartition> tps = partitions("timestamps-empty", 2);
        try (KafkaConsumer<byte[], byte[]> kc = kafkaConsumer(null, Map.of());
                dev.kafko.Consumer consumer = kafko.consumer("timestamps-empty")) {
            kc.assign(tps);
            assertThat(kc.offsetsForTimes(Map.of(tps.get(0), 0L, tps.get(1), 5L))).containsValues(null, null);
            consumer.seekToTimestamp(0);
            assertThat(consumer.position(0)).isZero();
            assertThat(kafkaSeek(kc, tps, 5)).containsValues(0L, 0L);
            consumer.seekToTimestamp(1, 5);
            assertThat(consumer.position(1)).isZero();
            assertThat(consumer.poll(Duration.ofMillis(10))).isEmpty();
        }
    }
}
