package dev.kafko.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.OffsetOutOfRangeException;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;

/**
 * What each side refuses: records over a size limit (kafko's {@code maxRecordBytes} against Kafka's
 * {@code max.request.size}), timestamps ahead of the clock, negative timestamps, poll timeouts and seek
 * offsets, and header keys holding an unpaired surrogate. Where kafko refuses or keeps otherwise by
 * design, the difference is asserted.
 */
class LimitsConformanceTest extends AgainstKafka {

    /** The largest {@code n} in {@code [low, high]} that {@code accepts}, which must hold up to it and not above. */
    static int largestAccepted(IntPredicate accepts, int low, int high) {
        while (low < high) {
            int mid = (low + high + 1) >>> 1;
            if (accepts.test(mid)) {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        return low;
    }

    @Test
    void kafkoTakesARecord77BytesLargerThanKafkasProducerAtTheSameLimit() {
        for (int limit : new int[] {1_048_576, 1000}) {
            String topic = "size-" + limit;
            createBoth(topic, TopicConfig.builder().maxRecordBytes(limit).build());
            Producer producer = kafko.producer(topic);
            try (KafkaProducer<byte[], byte[]> kp = kafkaProducer(Map.of(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, limit))) {
                // n bytes as a value, split between key and value, or as one header's value
                List<IntFunction<OutgoingRecord>> shapes = List.of(
                        n -> OutgoingRecord.of(null, new byte[n]),
                        n -> OutgoingRecord.of(new byte[n / 2], new byte[n - n / 2]),
                        n -> OutgoingRecord.of(null, new byte[1], Headers.of("h", new byte[n])));
                for (IntFunction<OutgoingRecord> shape : shapes) {
                    int kafkoLargest = largestAccepted(n -> catchThrowable(() -> producer.send(shape.apply(n))) == null, 0, limit);
                    int kafkaLargest = largestAccepted(n -> catchThrowable(
                            () -> kp.send(ProduceConformanceTest.toKafka(topic, 0, shape.apply(n))).get()) == null, 0, limit);
                    // README, "Producers": "at one limit, kafko takes a value 77 bytes larger" (Kafka's producer
                    // counts a batch header and a worst-case record header that kafko does not)
                    assertThat(kafkoLargest).as("largest accepted at limit " + limit).isEqualTo(kafkaLargest + 77);
                    assertThat(catchThrowable(() -> producer.send(shape.apply(kafkoLargest + 1))))
                            .isInstanceOf(dev.kafko.RecordTooLargeException.class).hasMessageContaining("maxRecordBytes " + limit);
                    assertThat(catchThrowable(() -> kp.send(ProduceConformanceTest.toKafka(topic, 0, shape.apply(kafkaLargest + 1))).get()))
                            .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(RecordTooLargeException.class);
                }
            }
        }
    }

    @Test
    void kafkoKeepsTimestampsAheadOfTheClockThatKafkasBrokerRefusesPastAnHour() {
        createBoth("ahead", 1);
        Producer producer = kafko.producer("ahead");
        try (KafkaProducer<byte[], byte[]> kp = kafkaProducer(Map.of())) {
            long minute = System.currentTimeMillis() + 60_000L;
            assertThat(catchThrowable(() -> kp.send(new ProducerRecord<>("ahead", 0, minute, null, new byte[1])).get())).isNull();
            producer.sendTo(0, OutgoingRecord.of(null, new byte[1], Headers.empty(), minute)).join();
            for (long ahead : new long[] {2 * 3_600_000L, 400L * 86_400_000L}) {
                long timestamp = System.currentTimeMillis() + ahead;
                // README, "Producers": "no explicit timestamp is refused for lying ahead of the clock [...] where
                // Kafka 4's broker refuses one more than an hour ahead by default, message.timestamp.after.max.ms"
                assertThat(catchThrowable(() -> kp.send(new ProducerRecord<>("ahead", 0, timestamp, null, new byte[1])).get()))
                        .hasCauseInstanceOf(InvalidTimestampException.class);
                producer.sendTo(0, OutgoingRecord.of(null, new byte[1], Headers.empty(), timestamp)).join();
            }
        }
        assertThat(readAllFromKafko("ahead", 3)).hasSize(3);
    }

    @Test
    void negativeTimestampsAndPollTimeoutsAreIllegalArgumentsInBoth() {
        createBoth("negative", 1);
        TopicPartition tp = new TopicPartition("negative", 0);
        assertThat(catchThrowable(() -> new ProducerRecord<>("negative", 0, -5L, null, new byte[1])))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(catchThrowable(() -> kafko.producer("negative").send(OutgoingRecord.of(null, new byte[1], Headers.empty(), -5L))))
                .isInstanceOf(IllegalArgumentException.class);
        try (KafkaConsumer<byte[], byte[]> kc = kafkaConsumer(null, Map.of());
                dev.kafko.Consumer consumer = kafko.consumer("negative")) {
            kc.assign(List.of(tp));
            assertThat(catchThrowable(() -> kc.offsetsForTimes(Map.of(tp, -5L)))).isInstanceOf(IllegalArgumentException.class);
            assertThat(catchThrowable(() -> consumer.seekToTimestamp(-5L))).isInstanceOf(IllegalArgumentException.class);
            assertThat(catchThrowable(() -> kc.poll(Duration.ofMillis(-1)))).isInstanceOf(IllegalArgumentException.class);
            assertThat(catchThrowable(() -> consumer.poll(Duration.ofMillis(-1)))).isInstanceOf(IllegalArgumentException.class);
            // a negative seek offset differs: Consumer.seek's javadoc, "@throws OffsetOutOfRangeException when the
            // offset is negative", where Kafka's consumer throws IllegalArgumentException
            assertThat(catchThrowable(() -> kc.seek(tp, -1))).isInstanceOf(IllegalArgumentException.class);
            assertThat(catchThrowable(() -> consumer.seek(0, -1))).isInstanceOf(OffsetOutOfRangeException.class);
        }
    }

    @Test
    void headerKeysWithAnUnpairedSurrogateAreRefusedByKafkaAndKeptWithAQuestionMarkByKafko() {
        createBoth("surrogates", 1);
        Producer producer = kafko.producer("surrogates");
        Map<String, String> readBackAs = new LinkedHashMap<>();
        readBackAs.put("a\uD800b", "a?b");
        readBackAs.put("a\uDC00b", "a?b");
        readBackAs.put("ab\uD800", "ab?");
        readBackAs.put("\uDC00", "?");
        try (KafkaProducer<byte[], byte[]> kp = kafkaProducer(Map.of(ProducerConfig.RETRIES_CONFIG, 0))) {
            for (Map.Entry<String, String> key : readBackAs.entrySet()) {
                // README, "Consumers": "a key holding an unpaired surrogate comes back with ? in its place [...]
                // Kafka's broker refuses such a record (InvalidRecordException)"
                assertThat(catchThrowable(() -> kp.send(new ProducerRecord<>("surrogates", 0, null, null, new byte[1],
                        List.of(new RecordHeader(key.getKey(), new byte[] {1})))).get()))
                        .as(key.getValue()).hasCauseInstanceOf(InvalidRecordException.class);
                producer.sendTo(0, OutgoingRecord.of(null, new byte[1], Headers.of(key.getKey(), new byte[] {1}))).join();
            }
            String pair = "ok\uD83D\uDE00";
            await(kp.send(new ProducerRecord<>("surrogates", 0, null, null, new byte[1], List.of(new RecordHeader(pair, new byte[] {1})))));
            producer.sendTo(0, OutgoingRecord.of(null, new byte[1], Headers.of(pair, new byte[] {1}))).join();
        }
        List<String> keys = readAllFromKafko("surrogates", 5).stream().map(KafkoRecord::headers).map(h -> h.get(0).key()).toList();
        List<String> expected = new ArrayList<>(readBackAs.values());
        expected.add("ok\uD83D\uDE00");
        assertThat(keys).containsExactlyElementsOf(expected);
    }
}
