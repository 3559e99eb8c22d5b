package dev.kafko.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.ConsumerOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.Producer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * Group assignment and polling: how the partitions of a topic are shared among three members (kafko
 * against Kafka's {@link RangeAssignor}), and how many records a poll returns under
 * {@code maxPollRecords} / {@code max.poll.records}, in which order per partition.
 */
class GroupAssignmentConformanceTest extends AgainstKafka {

    @Test
    void membersSharePartitionsAsKafkasRangeAssignorSharesThem() {
        createBoth("shared", 5);
        List<dev.kafko.Consumer> members = new ArrayList<>();
        List<KafkaConsumer<byte[], byte[]>> kafkaMembers = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                members.add(kafko.groupConsumer("shared", "shared"));
                KafkaConsumer<byte[], byte[]> kc = kafkaConsumer("shared",
                        Map.of(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, RangeAssignor.class.getName()));
                kc.subscribe(List.of("shared"));
                kafkaMembers.add(kc);
            }
            long deadline = System.nanoTime() + PATIENCE.toNanos();
            while (System.nanoTime() < deadline && !(kafkaMembers.stream().allMatch(kc -> !kc.assignment().isEmpty())
                    && kafkaMembers.stream().mapToInt(kc -> kc.assignment().size()).sum() == 5)) {
                members.forEach(c -> c.poll(Duration.ofMillis(10)));
                kafkaMembers.forEach(kc -> kc.poll(Duration.ofMillis(100)));
            }
            members.forEach(c -> c.poll(Duration.ofMillis(10)));
            List<String> kafkoShares = new ArrayList<>();
            members.forEach(c -> kafkoShares.add(new TreeSet<>(c.assignment()).toString()));
            List<String> kafkaShares = new ArrayList<>();
            for (KafkaConsumer<byte[], byte[]> kc : kafkaMembers) {
                TreeSet<Integer> share = new TreeSet<>();
                kc.assignment().forEach(tp -> share.add(tp.partition()));
                kafkaShares.add(share.toString());
            }
            kafkoShares.sort(Comparator.naturalOrder());
            kafkaShares.sort(Comparator.naturalOrder());
            assertThat(kafkoShares).isEqualTo(kafkaShares).containsExactly("[0, 1]", "[2, 3]", "[4]");
        } finally {
            members.forEach(dev.kafko.Consumer::close);
            kafkaMembers.forEach(KafkaConsumer::close);
        }
    }

    @Test
    void maxPollRecordsBoundsEveryPollAndEachPartitionIsReadInKafkasOrder() {
        createBoth("max-poll", 3);
        Producer producer = kafko.producer("max-poll");
        try (KafkaProducer<byte[], byte[]> kp = kafkaProducer(Map.of())) {
            for (int i = 0; i < 120; i++) {
                byte[] value = ("v" + i).getBytes(StandardCharsets.UTF_8);
                producer.sendTo(i % 3, null, value).join();
                await(kp.send(new ProducerRecord<>("max-poll", i % 3, null, value)));
            }
        }
        for (int max : new int[] {1, 7, 50}) {
            String group = "max-poll-" + max;
            try (KafkaConsumer<byte[], byte[]> kc = kafkaConsumer(group, Map.of(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, max));
                    dev.kafko.Consumer consumer = kafko.groupConsumer("max-poll", group, ConsumerOptions.DEFAULTS.withMaxPollRecords(max))) {
                kc.subscribe(List.of("max-poll"));
                int kafkaLargest = 0;
                int kafkoLargest = 0;
                List<Seen> fromKafka = new ArrayList<>();
                List<Seen> fromKafko = new ArrayList<>();
                long deadline = System.nanoTime() + PATIENCE.toNanos();
                while (System.nanoTime() < deadline && (fromKafka.size() < 120 || fromKafko.size() < 120)) {
                    ConsumerRecords<byte[], byte[]> kafkaPoll = kc.poll(Duration.ofMillis(50));
                    kafkaLargest = Math.max(kafkaLargest, kafkaPoll.count());
                    kafkaPoll.forEach(r -> fromKafka.add(seen(r, false)));
                    List<KafkoRecord> kafkoPoll = consumer.poll(Duration.ofMillis(10));
                    kafkoLargest = Math.max(kafkoLargest, kafkoPoll.size());
                    kafkoPoll.forEach(r -> fromKafko.add(seen(r, false)));
                }
                assertThat(kafkoLargest).as("largest poll, max " + max).isLessThanOrEqualTo(max);
                assertThat(kafkaLargest).as("largest poll, max " + max).isLessThanOrEqualTo(max);
                assertThat(fromKafko).hasSize(120);
                for (int p = 0; p < 3; p++) {
                    int partition = p;
                    assertThat(fromKafko.stream().filter(r -> r.partition() == partition).toList()).as("partition " + p)
                            .isEqualTo(fromKafka.stream().filter(r -> r.partition() == partition).toList());
                }
            }
        }
    }
}
