package dev.kafko.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kafko.CommitFailedException;
import dev.kafko.ConsumerOptions;
import dev.kafko.InvalidPartitionException;
import dev.kafko.KafkoRecord;
import dev.kafko.OffsetOutOfRangeException;
import dev.kafko.OffsetResetPolicy;
import dev.kafko.Producer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.NoOffsetForPartitionException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.junit.jupiter.api.Test;

/**
 * Group commits: a member's commits against a Kafka group member's, and where the next member of the
 * group resumes (at the commits, past the end of the log, without a commit under each reset policy,
 * after the topic was deleted and created again), a commit from a consumer with fixed partitions
 * while the group has a member, a member's commit of a partition another member holds, and a commit of
 * offset 0 of an empty partition.
 */
class GroupCommitConformanceTest extends AgainstKafka {

    private static final int PARTITIONS = 3;

    /** {@code perPartition} records in each partition of both, valued {@code v<i>}. */
    private void fill(String topic, int perPartition) {
        Producer producer = kafko.producer(topic);
        int partitions = producer.partitionCount();
        try (KafkaProducer<byte[], byte[]> kp = kafkaProducer(Map.of())) {
            for (int i = 0; i < perPartition * partitions; i++) {
                byte[] value = ("v" + i).getBytes(StandardCharsets.UTF_8);
                producer.sendTo(i % partitions, null, value).join();
                await(kp.send(new ProducerRecord<>(topic, i % partitions, null, value)));
            }
        }
    }

    /** Polls a subscribed Kafka consumer until the group gave it {@code partitions} partitions. */
    static void awaitAssignment(KafkaConsumer<byte[], byte[]> kc, int partitions) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (kc.assignment().size() < partitions && System.nanoTime() < deadline) {
            kc.poll(Duration.ofMillis(100));
        }
        assertThat(kc.assignment()).hasSize(partitions);
    }

    /** Polls until {@code expected} records came, then once more: the records, compared without timestamps. */
    static List<Seen> drain(KafkaConsumer<byte[], byte[]> kc, int expected) {
        List<ConsumerRecord<byte[], byte[]>> records = pollKafka(kc, expected);
        kc.poll(Duration.ofMillis(200)).forEach(records::add);
        return sorted(records.stream().map(r -> seen(r, false)).toList());
    }

    static List<Seen> drain(dev.kafko.Consumer consumer, int expected) {
        List<KafkoRecord> records = pollKafko(consumer, expected);
        records.addAll(consumer.poll(Duration.ofMillis(50)));
        return sorted(records.stream().map(r -> seen(r, false)).toList());
    }

    static ConsumerOptions options(OffsetResetPolicy policy) {
        return ConsumerOptions.DEFAULTS.withOffsetReset(policy);
    }

    static String kafkaReset(OffsetResetPolicy policy) {
        return policy == OffsetResetPolicy.FAIL ? "none" : policy.name().toLowerCase();
    }

    @Test
    void theNextMemberResumesAtTheCommitsAsInKafka() {
        createBoth("commits", PARTITIONS);
        fill("commits", 20);
        Random random = new Random(7);
        for (int round = 0; round < 4; round++) {
            String group = "commits-" + round;
            Map<Integer, Long> offsets = new HashMap<>();
            for (int p = 0; p < PARTITIONS; p++) {
                offsets.put(p, (long) random.nextInt(21));
            }
            try (KafkaConsumer<byte[], byte[]> kc = kafkaConsumer(group, Map.of());
                    dev.kafko.Consumer consumer = kafko.groupConsumer("commits", group)) {
                kc.subscribe(List.of("commits"));
                awaitAssignment(kc, PARTITIONS);
                for (int p = 0; p < PARTITIONS; p++) {
                    TopicPartition tp = new TopicPartition("commits", p);
                    assertThat(kc.committed(Set.of(tp)).get(tp)).isNull();
                    assertThat(consumer.committed(p)).isEmpty();
                }
                offsets.forEach((p, offset) -> {
                    kc.seek(new TopicPartition("commits", p), offset);
                    consumer.seek(p, offset);
                });
                kc.commitSync();
                consumer.commit();
                for (int p = 0; p < PARTITIONS; p++) {
                    TopicPartition tp = new TopicPartition("commits", p);
                    assertThat(consumer.committed(p)).hasValue(kc.committed(Set.of(tp)).get(tp).offset());
                }
            }
            int expected = offsets.values().stream().mapToInt(offset -> 20 - offset.intValue()).sum();
            try (KafkaConsumer<byte[], byte[]> kc = kafkaConsumer(group, Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none"));
                    dev.kafko.Consumer consumer = kafko.groupConsumer("commits", group, options(OffsetResetPolicy.FAIL))) {
                kc.subscribe(List.of("commits"));
                List<Seen> fromKafka = drain(kc, expected);
                List<Seen> fromKafko = drain(consumer, expected);
                assertThat(fromKafko).as("records resumed, round " + round).hasSize(expected).isEqualTo(fromKafka);
                for (int p = 0; p < PARTITIONS; p++) {
                    assertThat(consumer.position(p)).isEqualTo(kc.position(new TopicPartition("commits", p)));
                }
            }
        }
    }

    @Test
    void aNewGroupStartsWhereTheResetPolicySays() {
        createBoth("no-commits", PARTITIONS);
        fill("no-commits", 5);
        for (OffsetResetPolicy policy : List.of(OffsetResetPolicy.EARLIEST, OffsetResetPolicy.LATEST)) {
            String group = "no-commits-" + policy;
            try (KafkaConsumer<byte[], byte[]> kc = kafkaConsumer(group, Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, kafkaReset(policy)));
                    dev.kafko.Consumer consumer = kafko.groupConsumer("no-commits", group, options(policy))) {
                Map<Integer, Long> atAssignment = new HashMap<>();
                kc.subscribe(List.of("no-commits"), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                        partitions.forEach(tp -> atAssignment.put(tp.partition(), kc.position(tp)));
                    }
                });
                awaitAssignment(kc, PARTITIONS);
                for (int p = 0; p < PARTITIONS; p++) {
                    assertThat(consumer.position(p)).as(policy + " p" + p).isEqualTo(atAssignment.get(p));
                }
            }
        }
    }

    @Test
    void partialCommitsResumeAsInKafkaAndTheOtherPartitionsFollowTheResetPolicy() {
        createBoth("partial", PARTITIONS);
        fill("partial", 10);
        try (KafkaConsumer<byte[], byte[]> kc = kafkaConsumer("partial", Map.of());
                dev.kafko.Consumer consumer = kafko.groupConsumer("partial", "partial")) {
            kc.subscribe(List.of("partial"));
            assertThat(drain(consumer, 30)).isEqualTo(drain(kc, 30));
            kc.commitSync(Map.of(new TopicPartition("partial", 1), new OffsetAndMetadata(4)));
            consumer.commit(Map.of(1, 4L));
        }
        // partition 1 resumes at 4 (6 records); 0 and 2 have no commit: at the end, or from 0 (10 records each)
        for (OffsetResetPolicy policy : List.of(OffsetResetPolicy.LATEST, OffsetResetPolicy.EARLIEST)) {
            int expected = policy == OffsetResetPolicy.LATEST ? 6 : 26;
            try (KafkaConsumer<byte[], byte[]> kc = kafkaConsumer("partial", Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, kafkaReset(policy)));
                    dev.kafko.Consumer consumer = kafko.groupConsumer("partial", "partial", options(policy))) {
                kc.subscribe(List.of("partial"));
                List<Seen> fromKafka = drain(kc, expected);
                assertThat(drain(consumer, expected)).as(policy.toString()).hasSize(expected).isEqualTo(fromKafka);
            }
        }
    }

    @Test
    void aCommitPastTheEndResumesAtTheEndWhereKafkaUnderEarliestRereadsThePartition() {
        createBoth("past-end", PARTITIONS);
        fill("past-end", 5);
        for (OffsetResetPolicy policy : OffsetResetPolicy.values()) {
            String group = "past-end-" + policy;
            // partition 0 committed past its end (5), partition 1 at 2, partition 2 at 0
            Map<Integer, Long> commits = Map.of(0, 100L, 1, 2L, 2, 0L);
            try (KafkaConsumer<byte[], byte[]> kc = kafkaConsumer(group, Map.of());
                    dev.kafko.Consumer consumer = kafko.groupConsumer("past-end", group)) {
                kc.subscribe(List.of("past-end"));
                awaitAssignment(kc, PARTITIONS);
                Map<TopicPartition, OffsetAndMetadata> kafkaCommits = new HashMap<>();
                commits.forEach((p, offset) -> kafkaCommits.put(new TopicPartition("past-end", p), new OffsetAndMetadata(offset)));
                kc.commitSync(kafkaCommits);
                consumer.commit(commits);
                assertThat(consumer.committed(0)).hasValue(100);
            }
            try (KafkaConsumer<byte[], byte[]> kc = kafkaConsumer(group, Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, kafkaReset(policy)));
                    dev.kafko.Consumer consumer = kafko.groupConsumer("past-end", group, options(policy))) {
                kc.subscribe(List.of("past-end"));
                if (policy == OffsetResetPolicy.FAIL) {
                    assertThat(pollUntilThrown(kc)).isInstanceOf(org.apache.kafka.clients.consumer.OffsetOutOfRangeException.class);
                    assertThat(pollUntilThrown(consumer)).isInstanceOf(OffsetOutOfRangeException.class);
                    continue;
                }
                List<Seen> fromKafko = drain(consumer, 8);
                assertThat(fromKafko).as("records of partitions 1 and 2, " + policy).hasSize(8)
                        .allSatisfy(r -> assertThat(r.partition()).isNotZero());
                assertThat(consumer.position(0)).as("partition 0 at its end, " + policy).isEqualTo(5);
                if (policy == OffsetResetPolicy.EARLIEST) {
                    // OffsetResetPolicy.EARLIEST: "Unlike Kafka's auto.offset.reset=earliest, which sends a position
                    // above the end back to the log start, the records below the end are not read again" (README,
                    // "Consumers": "A position above the end (a seek, or a group's commit, past it) goes to the end")
                    List<Seen> fromKafka = drain(kc, 13);
                    assertThat(fromKafka.stream().filter(r -> r.partition() == 0)).as("Kafka re-reads partition 0").hasSize(5);
                    assertThat(fromKafka.stream().filter(r -> r.partition() != 0).toList()).isEqualTo(fromKafko);
                } else {
                    assertThat(drain(kc, 8)).isEqualTo(fromKafko);
                }
                assertThat(kc.position(new TopicPartition("past-end", 0))).isEqualTo(5);
            }
        }
    }

    private static Throwable pollUntilThrown(KafkaConsumer<byte[], byte[]> kc) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        Throwable thrown = null;
        while (thrown == null && System.nanoTime() < deadline) {
            thrown = catchThrowable(() -> kc.poll(Duration.ofMillis(100)));
        }
        return thrown;
    }

    private static Throwable pollUntilThrown(dev.kafko.Consumer consumer) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        Throwable thrown = null;
        while (thrown == null && System.nanoTime() < deadline) {
            thrown = catchThrowable(() -> consumer.poll(Duration.ofMillis(100)));
        }
        return thrown;
    }

    @Test
    void withoutACommitUnderFailKafkoStartsAtTheLogStartWhereKafkaThrows() {
        createBoth("fail", PARTITIONS);
        fill("fail", 1);
        try (KafkaConsumer<byte[], byte[]> kc = kafkaConsumer("fail", Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none"));
                dev.kafko.Consumer consumer = kafko.groupConsumer("fail", "fail", options(OffsetResetPolicy.FAIL))) {
            kc.subscribe(List.of("fail"));
            // OffsetResetPolicy.FAIL: "A group member without a committed offset still starts at the log start, where
            // Kafka's auto.offset.reset=none throws" (README, "Consumers": "NoOffsetForPartitionException")
            assertThat(pollUntilThrown(kc)).isInstanceOf(NoOffsetForPartitionException.class);
            assertThat(drain(consumer, PARTITIONS)).extracting(Seen::offset).containsExactly(0L, 0L, 0L);
        }
    }

    @Test
    void commitsOfADeletedTopicDoNotSurviveItsRecreation() {
        createBoth("recreated", 1);
        fill("recreated", 10);
        TopicPartition tp = new TopicPartition("recreated", 0);
        try (KafkaConsumer<byte[], byte[]> kc = kafkaConsumer("recreated", Map.of());
                dev.kafko.Consumer consumer = kafko.groupConsumer("recreated", "recreated")) {
            kc.assign(List.of(tp));
            kc.commitSync(Map.of(tp, new OffsetAndMetadata(8)));
            consumer.commit(Map.of(0, 8L));
        }
        kafko.deleteTopic("recreated");
        await(admin.deleteTopics(List.of("recreated")).all());
        // Kafka deletes a topic in the background, refusing to create it again (TopicExistsException) meanwhile
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        Throwable refused;
        do {
            refused = catchThrowable(() -> admin.createTopics(List.of(new NewTopic("recreated", 1, (short) 1))).all().get());
            if (refused != null) {
                assertThat(refused).hasCauseInstanceOf(TopicExistsException.class);
                sleep(100);
            }
        } while (refused != null && System.nanoTime() < deadline);
        assertThat(refused).isNull();
        kafko.createTopic("recreated");
        fill("recreated", 3);
        try (KafkaConsumer<byte[], byte[]> kc = kafkaConsumer("recreated", Map.of());
                dev.kafko.Consumer consumer = kafko.groupConsumer("recreated", "recreated")) {
            kc.assign(List.of(tp));
            assertThat(kc.committed(Set.of(tp)).get(tp)).isNull();
            assertThat(consumer.committed(0)).isEmpty();
            assertThat(drain(consumer, 3)).hasSize(3).isEqualTo(drain(kc, 3));
        }
    }

    @Test
    void aConsumerWithFixedPartitionsCannotCommitWhileTheGroupHasAMember() {
        createBoth("fixed", 2);
        TopicPartition tp = new TopicPartition("fixed", 0);
        try (KafkaConsumer<byte[], byte[]> member = kafkaConsumer("fixed", Map.of());
                dev.kafko.Consumer kafkoMember = kafko.groupConsumer("fixed", "fixed")) {
            member.subscribe(List.of("fixed"));
            awaitAssignment(member, 2);
            kafkoMember.poll(Duration.ofMillis(10));
            try (KafkaConsumer<byte[], byte[]> fixed = kafkaConsumer("fixed", Map.of());
                    dev.kafko.Consumer kafkoFixed = kafko.groupConsumer("fixed", "fixed",
                            ConsumerOptions.DEFAULTS.withPartitions(Set.of(0)))) {
                fixed.assign(List.of(tp));
                assertThat(catchThrowable(() -> fixed.commitSync(Map.of(tp, new OffsetAndMetadata(0)))))
                        .isInstanceOf(org.apache.kafka.clients.consumer.CommitFailedException.class);
                assertThat(catchThrowable(() -> kafkoFixed.commit(Map.of(0, 0L))))
                        .isInstanceOf(CommitFailedException.class).hasMessageContaining("'fixed'");
            }
        }
    }

    @Test
    void aCommitOfAnotherMembersPartitionKafkoRefusesWhereKafkaTakesIt() {
        createBoth("others", 2);
        fill("others", 4);
        TopicPartition tp1 = new TopicPartition("others", 1);
        try (KafkaConsumer<byte[], byte[]> a = kafkaConsumer("others", Map.of());
                KafkaConsumer<byte[], byte[]> b = kafkaConsumer("others", Map.of());
                dev.kafko.Consumer kafkoA = kafko.groupConsumer("others", "others");
                dev.kafko.Consumer kafkoB = kafko.groupConsumer("others", "others")) {
            a.subscribe(List.of("others"));
            b.subscribe(List.of("others"));
            long deadline = System.nanoTime() + PATIENCE.toNanos();
            while (!(a.assignment().size() == 1 && b.assignment().size() == 1) && System.nanoTime() < deadline) {
                a.poll(Duration.ofMillis(50));
                b.poll(Duration.ofMillis(50));
            }
            kafkoA.poll(Duration.ofMillis(10));
            kafkoB.poll(Duration.ofMillis(10));
            KafkaConsumer<byte[], byte[]> notHolding = a.assignment().contains(tp1) ? b : a;
            dev.kafko.Consumer kafkoNotHolding = kafkoA.assignment().contains(1) ? kafkoB : kafkoA;
            assertThat(kafkoNotHolding.assignment()).containsExactly(0);
            // Kafka's broker checks the member and the generation of a commit, not which partitions the member holds
            notHolding.commitSync(Map.of(tp1, new OffsetAndMetadata(2)));
            assertThat(notHolding.committed(Set.of(tp1)).get(tp1).offset()).isEqualTo(2);
            // Consumer.commit(Map): "Partitions not assigned to this member are refused with InvalidPartitionException"
            assertThat(catchThrowable(() -> kafkoNotHolding.commit(Map.of(1, 2L)))).isInstanceOf(InvalidPartitionException.class);
            assertThat(kafkoNotHolding.committed(1)).isEmpty();
        }
    }

    @Test
    void aCommitOfOffsetZeroOfAnEmptyPartitionIsKeptAndUnderLatestTheNextMemberReadsWhatCameSince() {
        createBoth("empty-commit", 1);
        TopicPartition tp = new TopicPartition("empty-commit", 0);
        try (KafkaConsumer<byte[], byte[]> kc = kafkaConsumer("empty-commit", Map.of());
                dev.kafko.Consumer consumer = kafko.groupConsumer("empty-commit", "empty-commit")) {
            kc.subscribe(List.of("empty-commit"));
            awaitAssignment(kc, 1);
            kc.commitSync(Map.of(tp, new OffsetAndMetadata(0)));
            consumer.commit(Map.of(0, 0L));
            assertThat(consumer.committed(0)).hasValue(kc.committed(Set.of(tp)).get(tp).offset()).hasValue(0);
        }
        fill("empty-commit", 3);
        try (KafkaConsumer<byte[], byte[]> kc = kafkaConsumer("empty-commit", Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest"));
                dev.kafko.Consumer consumer = kafko.groupConsumer("empty-commit", "empty-commit", options(OffsetResetPolicy.LATEST))) {
            kc.subscribe(List.of("empty-commit"));
            assertThat(drain(consumer, 3)).hasSize(3).isEqualTo(drain(kc, 3));
        }
    }
}
