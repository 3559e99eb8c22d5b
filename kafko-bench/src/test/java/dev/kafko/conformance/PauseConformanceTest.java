package dev.kafko.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kafko.ConsumerOptions;
import dev.kafko.InvalidPartitionException;
import dev.kafko.Producer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Pause and resume: what the polls of a consumer with two partitions return while one of them is paused (records
 * already there and records sent meanwhile), its position while paused, a seek while paused, and where it reads on
 * after {@code resume}; and a pause or resume of a partition the consumer does not read.
 */
class PauseConformanceTest extends AgainstKafka {

    /** {@code count} records to {@code partition} of both, valued {@code <tag><i>}. */
    private void send(String topic, int partition, int count, String tag) {
        Producer producer = kafko.producer(topic);
        try (KafkaProducer<byte[], byte[]> kp = kafkaProducer(Map.of())) {
            for (int i = 0; i < count; i++) {
                byte[] value = (tag + i).getBytes(StandardCharsets.UTF_8);
                producer.sendTo(partition, null, value).join();
                await(kp.send(new ProducerRecord<>(topic, partition, null, value)));
            }
        }
    }

    @Test
    void aPausedPartitionKeepsItsPositionTakesASeekAndIsReadFromThereOnceResumedAsInKafka() {
        createBoth("paused", 2);
        send("paused", 0, 10, "a");
        send("paused", 1, 10, "b");
        List<TopicPartition> tps = partitions("paused", 2);
        TopicPartition p0 = tps.get(0);
        try (KafkaConsumer<byte[], byte[]> kc = kafkaConsumer(null, Map.of());
                dev.kafko.Consumer consumer = kafko.consumer("paused", ConsumerOptions.DEFAULTS.withPartitions(Set.of(0, 1)))) {
            kc.assign(tps);
            kc.seekToBeginning(tps);
            kc.pause(List.of(p0));
            consumer.pause(List.of(0));
            assertThat(consumer.paused()).containsExactly(0);
            assertThat(kc.paused()).containsExactly(p0);

            // paused: only partition 1's records, partition 0 stays where it was
            List<Seen> fromKafka = GroupCommitConformanceTest.drain(kc, 10);
            List<Seen> fromKafko = GroupCommitConformanceTest.drain(consumer, 10);
            assertThat(fromKafko).hasSize(10).allSatisfy(r -> assertThat(r.partition()).isOne()).isEqualTo(fromKafka);
            assertThat(consumer.position(0)).isEqualTo(kc.position(p0)).isZero();

            // records sent to the paused partition meanwhile are not returned either
            send("paused", 0, 3, "c");
            send("paused", 1, 2, "d");
            fromKafka = GroupCommitConformanceTest.drain(kc, 2);
            fromKafko = GroupCommitConformanceTest.drain(consumer, 2);
            assertThat(fromKafko).hasSize(2).allSatisfy(r -> assertThat(r.partition()).isOne()).isEqualTo(fromKafka);

            // a seek while paused moves the position and keeps the pause
            kc.seek(p0, 7);
            consumer.seek(0, 7);
            assertThat(consumer.position(0)).isEqualTo(kc.position(p0)).isEqualTo(7);
            assertThat(consumer.paused()).containsExactly(0);
            assertThat(kc.paused()).containsExactly(p0);
            assertThat(GroupCommitConformanceTest.drain(consumer, 0)).isEmpty();
            assertThat(GroupCommitConformanceTest.drain(kc, 0)).isEmpty();

            // resumed: partition 0 from the seek, 7 to 12
            kc.resume(List.of(p0));
            consumer.resume(List.of(0));
            assertThat(consumer.paused()).isEmpty();
            assertThat(kc.paused()).isEmpty();
            fromKafka = GroupCommitConformanceTest.drain(kc, 6);
            fromKafko = GroupCommitConformanceTest.drain(consumer, 6);
            assertThat(fromKafko).hasSize(6).extracting(Seen::offset).containsExactly(7L, 8L, 9L, 10L, 11L, 12L);
            assertThat(fromKafko).isEqualTo(fromKafka);
            for (TopicPartition tp : tps) {
                assertThat(consumer.position(tp.partition())).as(tp.toString()).isEqualTo(kc.position(tp));
            }
        }
    }

    @Test
    void pausingAPartitionNotReadIsRefusedAndResumingOneKafkoIgnoresWhereKafkaRefusesIt() {
        createBoth("paused-other", 2);
        TopicPartition p1 = new TopicPartition("paused-other", 1);
        try (KafkaConsumer<byte[], byte[]> kc = kafkaConsumer(null, Map.of());
                dev.kafko.Consumer consumer = kafko.consumer("paused-other", ConsumerOptions.DEFAULTS.withPartitions(Set.of(0)))) {
            kc.assign(List.of(new TopicPartition("paused-other", 0)));
            assertThat(catchThrowable(() -> kc.pause(List.of(p1)))).isInstanceOf(IllegalStateException.class);
            assertThat(catchThrowable(() -> consumer.pause(List.of(1)))).isInstanceOf(InvalidPartitionException.class);
            assertThat(consumer.paused()).isEmpty();
            assertThat(kc.paused()).isEmpty();
            // README, "Consumers": "resume leaves a partition that is not paused, or no longer assigned, as it is
            // (Kafka's consumer refuses one not assigned)"
            assertThat(catchThrowable(() -> kc.resume(List.of(p1)))).isInstanceOf(IllegalStateException.class);
            consumer.resume(List.of(1));
            assertThat(new TreeSet<>(consumer.assignment())).containsExactly(0);
        }
    }

    @Test
    void aPausedPartitionAMemberKeepsStaysPausedAndOneThatMovesIsNotAsUnderKafkasCooperativeProtocol() {
        createBoth("paused-group", 4);
        Map<String, Object> cooperative = Map.of(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                CooperativeStickyAssignor.class.getName());
        try (KafkaConsumer<byte[], byte[]> a = kafkaConsumer("paused-group", cooperative);
                dev.kafko.Consumer kafkoA = kafko.groupConsumer("paused-group", "paused-group")) {
            a.subscribe(List.of("paused-group"));
            GroupCommitConformanceTest.awaitAssignment(a, 4);
            kafkoA.poll(Duration.ofMillis(10));
            a.pause(List.of(new TopicPartition("paused-group", 1), new TopicPartition("paused-group", 3)));
            kafkoA.pause(List.of(1, 3));
            for (int p = 0; p < 4; p++) {
                send("paused-group", p, 2, "p" + p + "-");
            }
            try (KafkaConsumer<byte[], byte[]> b = kafkaConsumer("paused-group", cooperative);
                    dev.kafko.Consumer kafkoB = kafko.groupConsumer("paused-group", "paused-group")) {
                b.subscribe(List.of("paused-group"));
                List<Seen> kafkaRead = new ArrayList<>();
                List<Seen> kafkoRead = new ArrayList<>();
                long deadline = System.nanoTime() + PATIENCE.toNanos();
                while (System.nanoTime() < deadline && !(b.assignment().size() == 2 && kafkaRead.size() >= 6 && kafkoRead.size() >= 6)) {
                    a.poll(Duration.ofMillis(50)).forEach(r -> kafkaRead.add(seen(r, false)));
                    b.poll(Duration.ofMillis(50)).forEach(r -> kafkaRead.add(seen(r, false)));
                    kafkoA.poll(Duration.ofMillis(10)).forEach(r -> kafkoRead.add(seen(r, false)));
                    kafkoB.poll(Duration.ofMillis(10)).forEach(r -> kafkoRead.add(seen(r, false)));
                }
                kafkaRead.addAll(GroupCommitConformanceTest.drain(a, 0));
                kafkaRead.addAll(GroupCommitConformanceTest.drain(b, 0));
                kafkoRead.addAll(GroupCommitConformanceTest.drain(kafkoA, 0));
                kafkoRead.addAll(GroupCommitConformanceTest.drain(kafkoB, 0));
                assertThat(new TreeSet<>(kafkoA.assignment())).containsExactly(0, 1);
                assertThat(new TreeSet<>(kafkoB.assignment())).containsExactly(2, 3);
                assertThat(a.assignment()).containsExactlyInAnyOrderElementsOf(partitions("paused-group", 2));
                // partition 1 stays paused with A; partition 3 went to B, which reads it
                assertThat(kafkoA.paused()).containsExactly(1);
                assertThat(a.paused()).containsExactly(new TopicPartition("paused-group", 1));
                assertThat(kafkoB.paused()).isEmpty();
                assertThat(b.paused()).isEmpty();
                // (without commits, a record A read before it handed partition 2 or 3 over is read again by B)
                assertThat(sorted(kafkoRead.stream().distinct().toList())).hasSize(6)
                        .isEqualTo(sorted(kafkaRead.stream().distinct().toList()))
                        .noneSatisfy(r -> assertThat(r.partition()).isOne());
            }
        }
    }
}
