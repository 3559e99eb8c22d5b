package dev.kafko.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.ConsumerOptions;
import dev.kafko.GroupInfo;
import dev.kafko.Headers;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.OffsetOutOfRangeException;
import dev.kafko.OffsetResetPolicy;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention: a group that committed offset 3 of a partition whose first 10 records then went (kafko's retention,
 * Kafka's {@code deleteRecords} to the same offset), and 5 records sent after. The log start each reports, the
 * commit and the lag, and what a member of the group and a consumer starting at offset 0 read next under each reset
 * policy, also for a consumer that read 3 records before and one that sought the beginning before. kafko's
 * retention here runs every 100 ms, in an instance of its own.
 */
class RetentionConformanceTest extends AgainstKafka {

    @TempDir
    Path dir;

    private static final String TOPIC = "retained";

    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    @Test
    void belowTheLogStartBothResetAsThePolicySaysButKafkoCountsTheLagFromTheLogStartAndFixesASeekToTheBeginningAtTheCall() {
        try (Kafko retaining = Kafko.open(dir, KafkoOptions.builder().retentionCheckInterval(Duration.ofMillis(100)).build());
                KafkaProducer<byte[], byte[]> kp = kafkaProducer(Map.of())) {
            retaining.createTopic(TOPIC, TopicConfig.builder().partitions(1).build());
            await(admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all());
            Producer producer = retaining.producer(TOPIC);
            long old = System.currentTimeMillis() - Duration.ofHours(2).toMillis();
            for (int i = 0; i < 10; i++) {
                byte[] value = ("old" + i).getBytes(StandardCharsets.UTF_8);
                producer.sendTo(0, OutgoingRecord.of(null, value, Headers.empty(), old)).join();
                await(kp.send(new ProducerRecord<>(TOPIC, 0, null, value)));
            }
            try (KafkaConsumer<byte[], byte[]> kc = kafkaConsumer("retained", Map.of());
                    dev.kafko.Consumer consumer = retaining.groupConsumer(TOPIC, "retained")) {
                kc.assign(List.of(TP));
                kc.commitSync(Map.of(TP, new OffsetAndMetadata(3)));
                consumer.commit(Map.of(0, 3L));
            }

            // one consumer per policy that read 3 records before the retention: its position is below the log start after it
            Map<OffsetResetPolicy, dev.kafko.Consumer> midway = new EnumMap<>(OffsetResetPolicy.class);
            for (OffsetResetPolicy policy : OffsetResetPolicy.values()) {
                dev.kafko.Consumer c = retaining.consumer(TOPIC, ConsumerOptions.DEFAULTS.withOffsetReset(policy).withMaxPollRecords(3));
                midway.put(policy, c);
                assertThat(pollKafko(c, 3)).extracting(dev.kafko.KafkoRecord::offset).containsExactly(0L, 1L, 2L);
            }

            // a seek to the beginning before the retention: Kafka's takes the log start at its next poll, kafko's at the call
            KafkaConsumer<byte[], byte[]> lazy = kafkaConsumer(null, Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest"));
            dev.kafko.Consumer kafkoSought = retaining.consumer(TOPIC, ConsumerOptions.DEFAULTS.withOffsetReset(OffsetResetPolicy.LATEST));
            lazy.assign(List.of(TP));
            lazy.seekToBeginning(List.of(TP));
            kafkoSought.seekToBeginning();

            // kafko's retention of one hour takes every record (its active segment rolls and goes), Kafka's
            // deleteRecords the same
            retaining.topic(TOPIC).orElseThrow().alterConfig(TopicConfig.builder().partitions(1).retention(Duration.ofHours(1)).build());
            long deadline = System.nanoTime() + PATIENCE.toNanos();
            while (retaining.topic(TOPIC).orElseThrow().partition(0).logStartOffset() < 10 && System.nanoTime() < deadline) {
                sleep(20);
            }
            await(admin.deleteRecords(Map.of(TP, RecordsToDelete.beforeOffset(10))).all());
            for (int i = 0; i < 5; i++) {
                byte[] value = ("new" + i).getBytes(StandardCharsets.UTF_8);
                producer.sendTo(0, null, value).join();
                await(kp.send(new ProducerRecord<>(TOPIC, 0, null, value)));
            }

            try (KafkaConsumer<byte[], byte[]> kc = kafkaConsumer(null, Map.of())) {
                assertThat(retaining.topic(TOPIC).orElseThrow().partition(0).logStartOffset())
                        .isEqualTo(kc.beginningOffsets(List.of(TP)).get(TP)).isEqualTo(10);
                assertThat(retaining.topic(TOPIC).orElseThrow().partition(0).endOffset())
                        .isEqualTo(kc.endOffsets(List.of(TP)).get(TP)).isEqualTo(15);
            }
            // README, "Consumers": "Every seek takes effect at the call [...], where Kafka's seekToBeginning, seekToEnd and
            // timestamp seeks wait for the next poll or position": kafko's position 0 is below the log start at the poll,
            // and LATEST takes it to the end; Kafka's consumer looks the log start up then, and reads from it
            try (lazy; kafkoSought) {
                assertThat(GroupCommitConformanceTest.drain(lazy, 5)).extracting(Seen::offset).containsExactly(10L, 11L, 12L, 13L, 14L);
                assertThat(GroupCommitConformanceTest.drain(kafkoSought, 0)).isEmpty();
                assertThat(kafkoSought.position(0)).isEqualTo(lazy.position(TP)).isEqualTo(15);
            }

            GroupInfo info = retaining.groupInfo(TOPIC, "retained");
            long kafkaCommit = await(admin.listConsumerGroupOffsets("retained").partitionsToOffsetAndMetadata()).get(TP).offset();
            assertThat(info.committed()).containsEntry(0, kafkaCommit).containsEntry(0, 3L);
            // GroupInfo.lag: "the log start when its commit is below the log start (retention deleted records it never
            // read)"; Kafka's lag (end offset minus the commit, as kafka-consumer-groups.sh shows it) counts the
            // deleted records too
            assertThat(info.lag()).containsEntry(0, 5L);
            assertThat(15 - kafkaCommit).isEqualTo(12);

            for (OffsetResetPolicy policy : OffsetResetPolicy.values()) {
                String reset = GroupCommitConformanceTest.kafkaReset(policy);
                ConsumerOptions options = ConsumerOptions.DEFAULTS.withOffsetReset(policy);
                try (dev.kafko.Consumer kafkoMidway = midway.get(policy);
                        KafkaConsumer<byte[], byte[]> member = kafkaConsumer("retained", Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, reset));
                        dev.kafko.Consumer kafkoMember = retaining.groupConsumer(TOPIC, "retained", options);
                        KafkaConsumer<byte[], byte[]> fromZero = kafkaConsumer(null, Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, reset));
                        dev.kafko.Consumer kafkoFromZero = retaining.consumer(TOPIC, options)) {
                    member.subscribe(List.of(TOPIC));
                    fromZero.assign(List.of(TP));
                    fromZero.seek(TP, 0);
                    assertThat(kafkoMidway.position(0)).isEqualTo(3);
                    assertThat(kafkoFromZero.position(0)).isZero();
                    if (policy == OffsetResetPolicy.FAIL) {
                        assertThat(pollUntilThrown(member)).as("Kafka's member")
                                .isInstanceOf(org.apache.kafka.clients.consumer.OffsetOutOfRangeException.class);
                        assertThat(pollUntilThrown(fromZero)).as("Kafka's consumer from 0")
                                .isInstanceOf(org.apache.kafka.clients.consumer.OffsetOutOfRangeException.class);
                        assertThat(pollUntilThrown(kafkoMember)).as("kafko's member").isInstanceOf(OffsetOutOfRangeException.class);
                        assertThat(pollUntilThrown(kafkoFromZero)).as("kafko's consumer from 0")
                                .isInstanceOf(OffsetOutOfRangeException.class);
                        assertThat(pollUntilThrown(kafkoMidway)).as("kafko's consumer at 3")
                                .isInstanceOf(OffsetOutOfRangeException.class);
                    } else {
                        int expected = policy == OffsetResetPolicy.EARLIEST ? 5 : 0;
                        List<Seen> memberRead = GroupCommitConformanceTest.drain(member, expected);
                        assertThat(GroupCommitConformanceTest.drain(kafkoMember, expected)).as("member, " + policy)
                                .hasSize(expected).isEqualTo(memberRead);
                        List<Seen> fromZeroRead = GroupCommitConformanceTest.drain(fromZero, expected);
                        assertThat(GroupCommitConformanceTest.drain(kafkoFromZero, expected)).as("from 0, " + policy)
                                .hasSize(expected).isEqualTo(fromZeroRead);
                        // Kafka's consumer at 3 is Kafka's consumer from 0 once its reset is done: the same records
                        assertThat(GroupCommitConformanceTest.drain(kafkoMidway, expected)).as("from 3, " + policy)
                                .hasSize(expected).isEqualTo(fromZeroRead);
                        assertThat(kafkoMidway.position(0)).isEqualTo(15);
                        assertThat(kafkoMember.position(0)).isEqualTo(member.position(TP)).isEqualTo(15);
                        assertThat(kafkoFromZero.position(0)).isEqualTo(fromZero.position(TP)).isEqualTo(15);
                    }
                }
                // a reset commits nothing
                assertThat(retaining.groupInfo(TOPIC, "retained").committed()).as(policy.toString()).containsEntry(0, 3L);
                assertThat(await(admin.listConsumerGroupOffsets("retained").partitionsToOffsetAndMetadata()).get(TP).offset())
                        .isEqualTo(3);
            }
            assertThat(retaining.groupInfo(TOPIC, "retained").members()).isZero();
        }
    }

    private static Throwable pollUntilThrown(KafkaConsumer<byte[], byte[]> kc) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        Throwable thrown = null;
        while (thrown == null && System.nanoTime() < deadline) {
            try {
                kc.poll(Duration.ofMillis(100));
            } catch (RuntimeException e) {
                thrown = e;
            }
        }
        return thrown;
    }

    private static Throwable pollUntilThrown(dev.kafko.Consumer consumer) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        Throwable thrown = null;
        while (thrown == null && System.nanoTime() < deadline) {
            try {
                consumer.poll(Duration.ofMillis(100));
            } catch (RuntimeException e) {
                thrown = e;
            }
        }
        return thrown;
    }
}
