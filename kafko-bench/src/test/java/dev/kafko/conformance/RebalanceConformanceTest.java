package dev.kafko.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.ConsumerOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.Producer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Rebalances: which partitions the revoked and assigned callbacks of two members name, in which order, as the second
 * joins and leaves (kafko against Kafka's eager {@link RangeAssignor} and its incremental
 * {@link CooperativeStickyAssignor}); and partitions added to a topic two members read, committing in their revoke
 * callbacks: how the grown topic is shared and that every record is read once.
 */
class RebalanceConformanceTest extends AgainstKafka {

    /** Logs a member's callbacks as {@code <name> revoked [..]} and {@code <name> assigned [..]}, in order. */
    private static final class Log {
        final List<String> events = new ArrayList<>();

        void add(String member, String what, Collection<Integer> partitions) {
            events.add(member + " " + what + " " + new TreeSet<>(partitions));
        }

        /** The callbacks of one member. */
        List<String> of(String member) {
            return events.stream().filter(e -> e.startsWith(member + " ")).toList();
        }

        /** The callbacks that named partitions. */
        List<String> nonEmpty() {
            return events.stream().filter(e -> !e.endsWith("[]")).toList();
        }

        dev.kafko.ConsumerRebalanceListener kafko(String member) {
            return new dev.kafko.ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<Integer> partitions) {
                    add(member, "revoked", partitions);
                }

                @Override
                public void onPartitionsAssigned(Collection<Integer> partitions) {
                    add(member, "assigned", partitions);
                }
            };
        }

        ConsumerRebalanceListener kafka(String member) {
            return new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    add(member, "revoked", partitions.stream().map(TopicPartition::partition).toList());
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    add(member, "assigned", partitions.stream().map(TopicPartition::partition).toList());
                }
            };
        }
    }

    /** The callbacks of Kafka's members A and B as B joins A, then leaves, under {@code assignor}. */
    private static Log kafkaJoinAndLeave(String topic, String group, Class<?> assignor) {
        Log log = new Log();
        Map<String, Object> config = Map.of(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, assignor.getName());
        try (KafkaConsumer<byte[], byte[]> a = kafkaConsumer(group, config)) {
            a.subscribe(List.of(topic), log.kafka("A"));
            pollUntil(() -> a.assignment().size() == 4, a);
            try (KafkaConsumer<byte[], byte[]> b = kafkaConsumer(group, config)) {
                b.subscribe(List.of(topic), log.kafka("B"));
                pollUntil(() -> a.assignment().size() == 2 && b.assignment().size() == 2, a, b);
                // a cooperative rebalance takes two rounds; polled a while longer, nothing more happens
                long until = System.nanoTime() + Duration.ofSeconds(1).toNanos();
                while (System.nanoTime() < until) {
                    a.poll(Duration.ofMillis(50));
                    b.poll(Duration.ofMillis(50));
                }
            }
            pollUntil(() -> a.assignment().size() == 4, a);
        }
        return log;
    }

    @SafeVarargs
    private static void pollUntil(java.util.function.BooleanSupplier done, KafkaConsumer<byte[], byte[]>... members) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!done.getAsBoolean() && System.nanoTime() < deadline) {
            for (KafkaConsumer<byte[], byte[]> member : members) {
                member.poll(Duration.ofMillis(50));
            }
        }
        assertThat(done.getAsBoolean()).as("rebalance ended").isTrue();
    }

    @Test
    void callbacksNameOnlyThePartitionsThatMoveAsKafkasCooperativeProtocolWhereItsEagerOneRevokesAllAndNoneAreEmpty() {
        createBoth("callbacks", 4);
        Log log = new Log();
        try (dev.kafko.Consumer a = kafko.groupConsumer("callbacks", "callbacks",
                ConsumerOptions.DEFAULTS.withRebalanceListener(log.kafko("A")))) {
            a.poll(Duration.ofMillis(10));
            try (dev.kafko.Consumer b = kafko.groupConsumer("callbacks", "callbacks",
                    ConsumerOptions.DEFAULTS.withRebalanceListener(log.kafko("B")))) {
                b.poll(Duration.ofMillis(10));
                a.poll(Duration.ofMillis(10));
                b.poll(Duration.ofMillis(10));
                assertThat(new TreeSet<>(a.assignment())).containsExactly(0, 1);
                assertThat(new TreeSet<>(b.assignment())).containsExactly(2, 3);
            }
            a.poll(Duration.ofMillis(10));
            assertThat(new TreeSet<>(a.assignment())).containsExactly(0, 1, 2, 3);
        }
        Log eager = kafkaJoinAndLeave("callbacks", "callbacks-eager", RangeAssignor.class);
        Log cooperative = kafkaJoinAndLeave("callbacks", "callbacks-cooperative", CooperativeStickyAssignor.class);
        assertThat(log.events).containsExactly("A assigned [0, 1, 2, 3]", "A revoked [2, 3]", "B assigned [2, 3]",
                "B revoked [2, 3]", "A assigned [2, 3]", "A revoked [0, 1, 2, 3]");
        // kafko hands over only the partitions that move, as Kafka's cooperative protocol does
        assertThat(log.events).isEqualTo(cooperative.nonEmpty());
        // but it calls onPartitionsAssigned only with partitions, where Kafka's cooperative protocol calls it after
        // every rebalance, with none when the member gained none
        assertThat(cooperative.events).contains("A assigned []");
        // Kafka's eager protocol (the classic protocol's default, range first) revokes every partition at each
        // rebalance and assigns the member's new share whole
        assertThat(eager.of("A")).containsExactly("A assigned [0, 1, 2, 3]", "A revoked [0, 1, 2, 3]", "A assigned [0, 1]",
                "A revoked [0, 1]", "A assigned [0, 1, 2, 3]", "A revoked [0, 1, 2, 3]");
        assertThat(eager.of("B")).containsExactly("B assigned [2, 3]", "B revoked [2, 3]");
    }

    @Test
    void partitionsAddedToATopicTwoMembersReadAreSharedByRangeAndEveryRecordIsReadOnce() {
        createBoth("grown", 2);
        Producer producer = kafko.producer("grown");
        List<Seen> kafkoRead = new ArrayList<>();
        List<Seen> kafkaRead = new ArrayList<>();
        Map<String, Object> config = Map.of(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, RangeAssignor.class.getName(),
                ConsumerConfig.METADATA_MAX_AGE_CONFIG, 500);
        try (KafkaProducer<byte[], byte[]> kp = kafkaProducer(Map.of(ProducerConfig.METADATA_MAX_AGE_CONFIG, 500));
                KafkaConsumer<byte[], byte[]> ka = kafkaConsumer("grown", config);
                KafkaConsumer<byte[], byte[]> kb = kafkaConsumer("grown", config)) {
            ka.subscribe(List.of("grown"), committing(ka));
            kb.subscribe(List.of("grown"), committing(kb));
            List<dev.kafko.Consumer> members = new ArrayList<>();
            try {
                for (int i = 0; i < 2; i++) {
                    dev.kafko.Consumer[] self = new dev.kafko.Consumer[1];
                    self[0] = kafko.groupConsumer("grown", "grown", ConsumerOptions.DEFAULTS.withRebalanceListener(
                            new dev.kafko.ConsumerRebalanceListener() {
                                @Override
                                public void onPartitionsRevoked(Collection<Integer> partitions) {
                                    self[0].commit();
                                }
                            }));
                    members.add(self[0]);
                }
                pollUntil(() -> ka.assignment().size() == 1 && kb.assignment().size() == 1, ka, kb);
                send(producer, kp, "grown", 2, 5, "before");
                readBoth(members, List.of(ka, kb), kafkoRead, kafkaRead, 10);

                kafko.topic("grown").orElseThrow().increasePartitions(4);
                await(admin.createPartitions(Map.of("grown", NewPartitions.increaseTo(4))).all());
                send(producer, kp, "grown", 4, 5, "after");
                readBoth(members, List.of(ka, kb), kafkoRead, kafkaRead, 30);
                pollUntil(() -> ka.assignment().size() == 2 && kb.assignment().size() == 2, ka, kb);
                members.forEach(m -> m.poll(Duration.ofMillis(10)));

                List<String> kafkoShares = new ArrayList<>();
                members.forEach(m -> kafkoShares.add(new TreeSet<>(m.assignment()).toString()));
                List<String> kafkaShares = new ArrayList<>();
                for (KafkaConsumer<byte[], byte[]> kc : List.of(ka, kb)) {
                    TreeSet<Integer> share = new TreeSet<>();
                    kc.assignment().forEach(tp -> share.add(tp.partition()));
                    kafkaShares.add(share.toString());
                }
                assertThat(new TreeSet<>(kafkoShares)).isEqualTo(new TreeSet<>(kafkaShares)).containsExactly("[0, 1]", "[2, 3]");
            } finally {
                members.forEach(dev.kafko.Consumer::close);
            }
        }
        assertThat(new HashSet<>(kafkoRead)).as("read once").hasSize(kafkoRead.size());
        assertThat(new HashSet<>(kafkaRead)).as("read once").hasSize(kafkaRead.size());
        assertThat(sorted(kafkoRead)).hasSize(30).isEqualTo(sorted(kafkaRead));
    }

    /** A rebalance listener that commits the member's positions of the partitions revoked. */
    private static ConsumerRebalanceListener committing(KafkaConsumer<byte[], byte[]> kc) {
        return new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                kc.commitSync();
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            }
        };
    }

    private static void send(Producer producer, KafkaProducer<byte[], byte[]> kp, String topic, int partitions, int perPartition,
            String tag) {
        for (int i = 0; i < partitions * perPartition; i++) {
            byte[] value = (tag + i).getBytes(StandardCharsets.UTF_8);
            producer.sendTo(i % partitions, null, value).join();
            await(kp.send(new ProducerRecord<>(topic, i % partitions, null, value)));
        }
    }

    /** Polls every member of both until each side read {@code total} records in all, then a while more. */
    private static void readBoth(List<dev.kafko.Consumer> members, List<KafkaConsumer<byte[], byte[]>> kafkaMembers,
            List<Seen> kafkoRead, List<Seen> kafkaRead, int total) {
        Consumer<KafkoRecord> kafko = r -> kafkoRead.add(seen(r, false));
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        long extra = Duration.ofMillis(500).toNanos();
        long until = deadline;
        while (System.nanoTime() < Math.min(deadline, until)) {
            for (dev.kafko.Consumer m : members) {
                m.poll(Duration.ofMillis(10)).forEach(kafko);
            }
            for (KafkaConsumer<byte[], byte[]> kc : kafkaMembers) {
                kc.poll(Duration.ofMillis(50)).forEach(r -> kafkaRead.add(seen(r, false)));
            }
            if (until == deadline && kafkoRead.size() >= total && kafkaRead.size() >= total) {
                until = System.nanoTime() + extra;
            }
        }
    }
}
