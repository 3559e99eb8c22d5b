package dev.kafko.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.ConsumerOptions;
import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.OffsetResetPolicy;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Seeks: random sequences of sends, seeks (to an offset, past the end, to the beginning, the end and a
 * timestamp) and reads on one partition, with kafko's position and records compared with those of an
 * assigned Kafka consumer after every step, under {@code LATEST} ({@code auto.offset.reset=latest}) and
 * {@code FAIL} ({@code none}); and the seeks to the beginning, the end and past the end on several
 * partitions under {@code EARLIEST} and {@code LATEST}; and records sent between a seek to the end and the next
 * poll, which kafko reads and Kafka skips (its seek waits for the poll).
 */
class SeekConformanceTest extends AgainstKafka {

    @Test
    void randomSeekSequencesKeepKafkasPositionsAndRecords() {
        List<String> differences = new ArrayList<>();
        for (OffsetResetPolicy policy : List.of(OffsetResetPolicy.LATEST, OffsetResetPolicy.FAIL)) {
            for (long seed = 100; seed < 103; seed++) {
                differences.addAll(runSequence(policy, seed));
            }
        }
        assertThat(differences).isEmpty();
    }

    /** One sequence of 60 random steps; returns the differences seen. */
    private List<String> runSequence(OffsetResetPolicy policy, long seed) {
        Random random = new Random(seed);
        String topic = "seeks-" + policy.name().toLowerCase() + "-" + seed;
        createBoth(topic, 2);
        int partition = random.nextInt(2);
        TopicPartition tp = new TopicPartition(topic, partition);
        Producer producer = kafko.producer(topic);
        long base = System.currentTimeMillis() - 86_400_000L;
        List<String> differences = new ArrayList<>();
        long end = 0;
        try (KafkaProducer<byte[], byte[]> kp = kafkaProducer(Map.of());
                KafkaConsumer<byte[], byte[]> kc = kafkaConsumer(null, Map.of(
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, policy == OffsetResetPolicy.FAIL ? "none" : "latest",
                        ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1));
                dev.kafko.Consumer consumer = kafko.consumer(topic, ConsumerOptions.DEFAULTS.withOffsetReset(policy)
                        .withPartitions(Set.of(partition)).withMaxPollRecords(1))) {
            kc.assign(List.of(tp));
            kc.seek(tp, 0);
            for (int step = 0; step < 60; step++) {
                String what;
                switch (random.nextInt(7)) {
                    case 0 -> {
                        int count = 1 + random.nextInt(5);
                        for (int i = 0; i < count; i++) {
                            long timestamp = base + random.nextInt(100) * 1000L;
                            byte[] value = ("s" + step + "-" + i).getBytes(StandardCharsets.UTF_8);
                            producer.sendTo(partition, OutgoingRecord.of(null, value, Headers.empty(), timestamp)).join();
                            await(kp.send(new ProducerRecord<>(topic, partition, timestamp, null, value)));
                        }
                        end += count;
                        what = "send " + count;
                    }
                    case 1 -> {
                        long offset = random.nextInt((int) end + 4);
                        kc.seek(tp, offset);
                        consumer.seek(partition, offset);
                        what = "seek " + offset + " (end " + end + ")";
                        if (offset > end && policy == OffsetResetPolicy.LATEST) {
                            // OffsetResetPolicy: "a position above the end is moved to the end when it is set"; Kafka's
                            // consumer moves it at its next poll (README, "Consumers": "Every seek takes effect at the call")
                            List<Long> kafkaRead = pollKafkaBackToTheEnd(kc, tp, end);
                            if (consumer.position(partition) != end || !kafkaRead.isEmpty()) {
                                differences.add(topic + " step " + step + " " + what + ": kafko at "
                                        + consumer.position(partition) + ", Kafka read " + kafkaRead);
                            }
                        }
                    }
                    case 2 -> {
                        kc.seekToBeginning(List.of(tp));
                        consumer.seekToBeginning(partition);
                        what = "seekToBeginning";
                    }
                    case 3 -> {
                        kc.seekToEnd(List.of(tp));
                        consumer.seekToEnd(partition);
                        what = "seekToEnd";
                    }
                    case 4 -> {
                        long target = base + random.nextInt(102) * 1000L - 500 * random.nextInt(2);
                        OffsetAndTimestamp found = kc.offsetsForTimes(Map.of(tp, target)).get(tp);
                        if (found == null) {
                            kc.seekToEnd(List.of(tp));
                        } else {
                            kc.seek(tp, found.offset());
                        }
                        consumer.seekToTimestamp(partition, target);
                        what = "seekToTimestamp base+" + (target - base);
                    }
                    default -> what = read(kc, tp, consumer, partition, end, random, differences);
                }
                long kafkaPosition = kc.position(tp, Duration.ofSeconds(5));
                long kafkoPosition = consumer.position(partition);
                if (kafkaPosition != kafkoPosition) {
                    differences.add(topic + " step " + step + " after " + what + ": position kafko " + kafkoPosition
                            + ", Kafka " + kafkaPosition);
                }
            }
        }
        return differences;
    }

    /**
     * Reads up to 6 records (as many as lie below the end) from both; where none lie there, polls Kafka until
     * its position is back at the end or it throws. After a throw, both go back to the beginning.
     */
    private static String read(KafkaConsumer<byte[], byte[]> kc, TopicPartition tp, dev.kafko.Consumer consumer,
            int partition, long end, Random random, List<String> differences) {
        int wanted = (int) Math.min(1 + random.nextInt(6), Math.max(end - kc.position(tp), 0));
        List<String> fromKafka = new ArrayList<>();
        Throwable kafkaThrew = null;
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        do {
            try {
                for (ConsumerRecord<byte[], byte[]> r : kc.poll(Duration.ofMillis(50))) {
                    fromKafka.add(r.offset() + ":" + new String(r.value(), StandardCharsets.UTF_8));
                }
            } catch (RuntimeException e) {
                kafkaThrew = e;
            }
        } while (kafkaThrew == null && System.nanoTime() < deadline
                && (fromKafka.size() < wanted || wanted == 0 && kc.position(tp) > end));
        List<String> fromKafko = new ArrayList<>();
        Throwable kafkoThrew = null;
        deadline = System.nanoTime() + PATIENCE.toNanos();
        do {
            try {
                for (KafkoRecord r : consumer.poll(Duration.ofMillis(50))) {
                    fromKafko.add(r.offset() + ":" + new String(r.value(), StandardCharsets.UTF_8));
                }
            } catch (RuntimeException e) {
                kafkoThrew = e;
            }
        } while (kafkoThrew == null && fromKafko.size() < fromKafka.size() && System.nanoTime() < deadline);
        String what = "read " + wanted + ": Kafka " + fromKafka + thrown(kafkaThrew) + ", kafko " + fromKafko + thrown(kafkoThrew);
        if (!fromKafko.equals(fromKafka) || (kafkaThrew == null) != (kafkoThrew == null)) {
            differences.add(tp + " " + what);
        }
        if (kafkaThrew != null || kafkoThrew != null) {
            kc.seekToBeginning(List.of(tp));
            consumer.seekToBeginning(partition);
        }
        return what;
    }

    /** Polls Kafka's consumer, positioned past the end under {@code latest}, until its reset took it back; returns what it read. */
    private static List<Long> pollKafkaBackToTheEnd(KafkaConsumer<byte[], byte[]> kc, TopicPartition tp, long end) {
        List<Long> read = new ArrayList<>();
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (kc.position(tp) > end && System.nanoTime() < deadline) {
            kc.poll(Duration.ofMillis(50)).forEach(r -> read.add(r.offset()));
        }
        return read;
    }

    private static String thrown(@Nullable Throwable t) {
        return t == null ? "" : " threw " + t.getClass().getSimpleName();
    }

    @Test
    void seeksToTheBeginningAndTheEndMatchAndPastTheEndKafkoGoesToTheEndWhereKafkaMayRereadTheLog() {
        createBoth("seeks-ends", 3);
        Producer producer = kafko.producer("seeks-ends");
        try (KafkaProducer<byte[], byte[]> kp = kafkaProducer(Map.of())) {
            for (int i = 0; i < 30; i++) {
                producer.sendTo(i % 3, null, new byte[] {(byte) i}).join();
                await(kp.send(new ProducerRecord<>("seeks-ends", i % 3, null, new byte[] {(byte) i})));
            }
        }
        List<TopicPartition> tps = partitions("seeks-ends", 3);
        for (OffsetResetPolicy policy : List.of(OffsetResetPolicy.EARLIEST, OffsetResetPolicy.LATEST)) {
            String reset = policy.name().toLowerCase();
            try (KafkaConsumer<byte[], byte[]> kc = kafkaConsumer(null, Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, reset));
                    dev.kafko.Consumer consumer = kafko.consumer("seeks-ends", ConsumerOptions.DEFAULTS.withOffsetReset(policy))) {
                kc.assign(tps);
                kc.seekToEnd(tps);
                consumer.seekToEnd();
                for (TopicPartition tp : tps) {
                    assertThat(consumer.position(tp.partition())).as("after seekToEnd, " + tp).isEqualTo(kc.position(tp));
                }
                kc.seekToBeginning(tps);
                consumer.seekToBeginning();
                for (TopicPartition tp : tps) {
                    assertThat(consumer.position(tp.partition())).as("after seekToBeginning, " + tp).isEqualTo(kc.position(tp));
                }
                kc.seek(tps.get(1), 4);
                consumer.seek(1, 4);
                assertThat(consumer.position(1)).isEqualTo(kc.position(tps.get(1)));
                // partition 0 past its end (10), partitions 1 and 2 read on: 6 and 10 records
                kc.seek(tps.get(0), 1000);
                consumer.seek(0, 1000);
                int kafkaExpects = policy == OffsetResetPolicy.EARLIEST ? 26 : 16;
                List<ConsumerRecord<byte[], byte[]>> fromKafka = pollKafka(kc, kafkaExpects);
                List<KafkoRecord> fromKafko = pollKafko(consumer, 16);
                // poll once more each: nothing else comes
                kc.poll(Duration.ofMillis(200)).forEach(fromKafka::add);
                fromKafko.addAll(consumer.poll(Duration.ofMillis(50)));
                long kafkaReadFrom0 = fromKafka.stream().filter(r -> r.partition() == 0).count();
                long kafkoReadFrom0 = fromKafko.stream().filter(r -> r.partition() == 0).count();
                assertThat(kafkoReadFrom0).as("records of partition 0 kafko read, " + policy).isZero();
                if (policy == OffsetResetPolicy.EARLIEST) {
                    // README, "Consumers": "A position above the end [...] goes to the end under EARLIEST as under LATEST,
                    // so the records below it are not read again: Kafka's auto.offset.reset=earliest sends such a
                    // position back to the log start and re-reads the partition"
                    assertThat(kafkaReadFrom0).as("records of partition 0 Kafka read again, " + policy).isEqualTo(10);
                } else {
                    assertThat(kafkaReadFrom0).as("records of partition 0 Kafka read, " + policy).isZero();
                }
                assertThat(fromKafko).as("records of the other partitions, " + policy).hasSize(16);
                assertThat(sorted(fromKafko.stream().map(r -> seen(r, false)).toList())).isEqualTo(sorted(
                        fromKafka.stream().filter(r -> r.partition() != 0).map(r -> seen(r, false)).toList()));
                for (TopicPartition tp : tps) {
                    assertThat(consumer.position(tp.partition())).as("position at the end, " + tp).isEqualTo(kc.position(tp));
                }
            }
        }
    }

    @Test
    void recordsSentBetweenASeekToTheEndAndThePollKafkoReadsWhereKafkaSkipsThem() {
        createBoth("seeks-lazy", 1);
        Producer producer = kafko.producer("seeks-lazy");
        TopicPartition tp = new TopicPartition("seeks-lazy", 0);
        try (KafkaProducer<byte[], byte[]> kp = kafkaProducer(Map.of());
                KafkaConsumer<byte[], byte[]> kc = kafkaConsumer(null, Map.of());
                dev.kafko.Consumer consumer = kafko.consumer("seeks-lazy")) {
            kc.assign(List.of(tp));
            for (int i = 0; i < 5; i++) {
                producer.sendTo(0, null, new byte[] {(byte) i}).join();
                await(kp.send(new ProducerRecord<>("seeks-lazy", 0, null, new byte[] {(byte) i})));
            }
            kc.seekToEnd(List.of(tp));
            consumer.seekToEnd();
            for (int i = 5; i < 8; i++) {
                producer.sendTo(0, null, new byte[] {(byte) i}).join();
                await(kp.send(new ProducerRecord<>("seeks-lazy", 0, null, new byte[] {(byte) i})));
            }
            // README, "Consumers": "Every seek takes effect at the call (position tells the new offset at once), where
            // Kafka's seekToBeginning, seekToEnd and timestamp seeks wait for the next poll or position"
            List<Long> fromKafko = pollKafko(consumer, 3).stream().map(dev.kafko.KafkoRecord::offset).toList();
            List<Long> fromKafka = new ArrayList<>();
            kc.poll(Duration.ofMillis(500)).forEach(r -> fromKafka.add(r.offset()));
            assertThat(fromKafko).containsExactly(5L, 6L, 7L);
            assertThat(fromKafka).isEmpty();
            assertThat(consumer.position(0)).isEqualTo(kc.position(tp)).isEqualTo(8);

            // a position asked for between the seek and the sends fixes Kafka's end there, as kafko's call does
            kc.seekToEnd(List.of(tp));
            consumer.seekToEnd();
            assertThat(kc.position(tp)).isEqualTo(consumer.position(0)).isEqualTo(8);
            for (int i = 8; i < 10; i++) {
                producer.sendTo(0, null, new byte[] {(byte) i}).join();
                await(kp.send(new ProducerRecord<>("seeks-lazy", 0, null, new byte[] {(byte) i})));
            }
            assertThat(pollKafka(kc, 2)).extracting(ConsumerRecord::offset).containsExactly(8L, 9L);
            assertThat(pollKafko(consumer, 2)).extracting(dev.kafko.KafkoRecord::offset).containsExactly(8L, 9L);
        }
    }
}
