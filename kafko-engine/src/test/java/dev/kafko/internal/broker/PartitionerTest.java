package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PartitionerTest {

    /** Vectors from Apache Kafka's UtilsTest.testMurmur2 (and librdkafka's test set). */
    @Test
    void murmur2MatchesKafkaTestVectors() {
        assertThat(hash("21")).isEqualTo(-973932308);
        assertThat(hash("foobar")).isEqualTo(-790332482);
        assertThat(hash("a-little-bit-long-string")).isEqualTo(-985981536);
        assertThat(hash("a-little-bit-longer-string")).isEqualTo(-1486304829);
        assertThat(hash("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8")).isEqualTo(-58897971);
        assertThat(hash("abc")).isEqualTo(479470107);
    }

    /** Vectors Akka's port quotes from Kafka's murmur2: every tail length 0-3. */
    @Test
    void murmur2MatchesVectorsForEveryTailLength() {
        assertThat(hash("1")).isEqualTo(-1993445489);
        assertThat(hash("12")).isEqualTo(126087238);
        assertThat(hash("123")).isEqualTo(-267702483);
        assertThat(hash("1234")).isEqualTo(-1614185708);
        assertThat(hash("12345")).isEqualTo(-1188365604);
    }

    @Test
    void toPositiveClearsTheSignBitRatherThanNegating() {
        assertThat(Partitioner.toPositive(Integer.MIN_VALUE)).isZero();
        assertThat(Partitioner.toPositive(-1)).isEqualTo(Integer.MAX_VALUE);
        assertThat(Partitioner.toPositive(5)).isEqualTo(5);
    }

    @Test
    void partitionIsPositiveMurmurModuloCount() {
        assertThat(Partitioner.partitionFor(bytes("foobar"), 7)).isEqualTo((-790332482 & 0x7fffffff) % 7);
        assertThat(Partitioner.partitionFor(new byte[0], 3)).isEqualTo(Partitioner.toPositive(Partitioner.murmur2(new byte[0])) % 3);
    }

    /** Keys whose partition is not 0: a partitioner that sends every key to partition 0 must fail here. */
    @Test
    void keysSpreadOverPartitionsOtherThanTheFirst() {
        assertThat(Partitioner.partitionFor(bytes("21"), 7)).isEqualTo(3);
        assertThat(Partitioner.partitionFor(bytes("abc"), 7)).isEqualTo(4);
        assertThat(Partitioner.partitionFor(bytes("foobar"), 10)).isEqualTo(6);
        assertThat(Partitioner.partitionFor(bytes("a-little-bit-long-string"), 3)).isEqualTo(2);
        assertThat(Partitioner.partitionFor(bytes("foobar"), 1)).isZero();
    }

    private static int hash(String s) {
        return Partitioner.murmur2(bytes(s));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
