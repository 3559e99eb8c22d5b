package dev.kafko.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Producer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;

/**
 * Keyed routing: the partition kafko's producer picks for a key ({@code send} and {@code partitionFor})
 * against the one Kafka's default partitioner picks, for text and binary keys, over many partition
 * counts and after a partition increase. (Keyless records differ by design: kafko goes round-robin,
 * Kafka's producer sticks to a partition per batch; the engine's {@code RoutingTest} covers kafko's.)
 */
class RoutingConformanceTest extends AgainstKafka {

    @Test
    void keyedRecordsLandOnKafkasPartitionForEveryPartitionCount() {
        Random random = new Random(42);
        try (KafkaProducer<byte[], byte[]> kp = kafkaProducer(Map.of())) {
            for (int partitions : new int[] {1, 2, 3, 7, 16, 100}) {
                String topic = "route-" + partitions;
                createBoth(topic, partitions);
                assertRoutedAlike(kp, kafko.producer(topic), topic, random, 250);
            }
        }
    }

    @Test
    void keyedRecordsLandOnKafkasPartitionAfterAPartitionIncrease() {
        createBoth("route-grown", 2);
        kafko.topic("route-grown").orElseThrow().increasePartitions(7);
        await(admin.createPartitions(Map.of("route-grown", NewPartitions.increaseTo(7))).all());
        // a producer refreshes its metadata this often, so it soon sees the 7 partitions
        try (KafkaProducer<byte[], byte[]> kp = kafkaProducer(Map.of(ProducerConfig.METADATA_MAX_AGE_CONFIG, 100))) {
            long deadline = System.nanoTime() + PATIENCE.toNanos();
            while (kp.partitionsFor("route-grown").size() < 7 && System.nanoTime() < deadline) {
                sleep(50);
            }
            assertThat(kp.partitionsFor("route-grown")).hasSize(7);
            assertRoutedAlike(kp, kafko.producer("route-grown"), "route-grown", new Random(9), 250);
        }
    }

    private static void assertRoutedAlike(KafkaProducer<byte[], byte[]> kp, Producer producer, String topic,
            Random random, int keys) {
        List<byte[]> sent = new ArrayList<>();
        List<Future<RecordMetadata>> kafka = new ArrayList<>();
        for (int i = 0; i < keys; i++) {
            byte[] key = randomKey(random);
            sent.add(key);
            kafka.add(kp.send(new ProducerRecord<>(topic, key, new byte[] {1})));
        }
        List<String> mismatches = new ArrayList<>();
        for (int i = 0; i < keys; i++) {
            byte[] key = sent.get(i);
            int kafkaPartition = await(kafka.get(i)).partition();
            int kafkoPartition = producer.send(key, new byte[] {1}).join().partition();
            if (kafkoPartition != kafkaPartition || producer.partitionFor(key) != kafkaPartition) {
                mismatches.add(hex(key) + ": kafko " + kafkoPartition + " (partitionFor " + producer.partitionFor(key)
                        + "), Kafka " + kafkaPartition);
            }
        }
        assertThat(mismatches).as("keys routed otherwise than Kafka routes them, topic " + topic).isEmpty();
    }
}
