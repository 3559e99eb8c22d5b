package dev.kafko;

import static dev.kafko.Fixtures.bytes;
import static dev.kafko.Fixtures.text;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RoutingTest {

    @TempDir
    Path dir;

    @Test
    void keyedRecordsRouteLikeKafkasDefaultPartitioner() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(7).build());
            Producer p = k.producer("t");
            // murmur2("foobar") = -790332482 and murmur2("21") = -973932308 in Kafka's UtilsTest
            assertThat(p.partitionFor(bytes("foobar"))).isEqualTo((-790332482 & 0x7fffffff) % 7);
            assertThat(p.send(bytes("21"), bytes("v")).join().partition()).isEqualTo((-973932308 & 0x7fffffff) % 7);
            assertThat(p.send(bytes("foobar"), bytes("v")).join().partition()).isEqualTo(p.partitionFor(bytes("foobar")));
        }
    }

    @Test
    void keylessRecordsSpreadRoundRobin() {
        try (Kafko k = Kafko.open(dir)) {
            Topic t = k.createTopic("t", TopicConfig.builder().partitions(4).build());
            Producer p = k.producer("t");
            for (int i = 0; i < 400; i++) {
                p.send(null, bytes("v")).join();
            }
            assertThat(t.partitions()).allSatisfy(info -> assertThat(info.endOffset()).isEqualTo(100));
        }
    }

    @Test
    void keylessRecordsFromAProducerPerSendStillSpreadRoundRobin() {
        try (Kafko k = Kafko.open(dir)) {
            Topic t = k.createTopic("t", TopicConfig.builder().partitions(4).build());
            List<Integer> partitions = new java.util.ArrayList<>();
            for (int i = 0; i < 400; i++) {
                partitions.add(k.producer("t").send(null, bytes("v")).join().partition());
            }
            assertThat(partitions.subList(0, 8)).containsExactly(0, 1, 2, 3, 0, 1, 2, 3);
            assertThat(t.partitions()).allSatisfy(info -> assertThat(info.endOffset()).isEqualTo(100));
        }
    }

    @Test
    void mergedConsumeKeepsPerKeyOrderAcrossPartitions() {
        long seed = 42;
        System.out.println("RoutingTest seed " + seed);
        Random rnd = new Random(seed);
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(5).build());
            Producer p = k.producer("t");
            Map<String, Integer> sentPerKey = new HashMap<>();
            for (int i = 0; i < 2_000; i++) {
                String key = "key-" + rnd.nextInt(40);
                int n = sentPerKey.merge(key, 1, Integer::sum) - 1;
                p.send(bytes(key), bytes(Integer.toString(n)));
            }
            p.send(bytes("last"), bytes("0")).join();
            try (Consumer c = k.consumer("t", ConsumerOptions.DEFAULTS.withMaxPollRecords(37))) {
                List<KafkoRecord> got = Fixtures.pollUntil(c, 2_001);
                assertThat(got).hasSize(2_001);
                Map<String, Integer> next = new HashMap<>();
                for (KafkoRecord r : got) {
                    String key = text(r.key());
                    int expected = next.merge(key, 1, Integer::sum) - 1;
                    assertThat(Integer.parseInt(text(r.value()))).as("record %s of key %s", expected, key).isEqualTo(expected);
                    assertThat(r.partition()).isEqualTo(p.partitionFor(r.key()));
                }
            }
        }
    }
}
