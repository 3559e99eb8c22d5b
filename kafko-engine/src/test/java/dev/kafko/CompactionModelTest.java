package dev.kafko;

import static dev.kafko.Fixtures.bytes;
import static dev.kafko.Fixtures.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.internal.log.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random sends, rolls, compactions, codec changes, reopens and seeks against a model of what was sent (fixed seeds):
 * after every step, every record read is the one sent at its offset, a seek reads the first record kept at or after
 * it, and the latest record of every key is there (tombstones are kept here: {@code deleteRetention} is long).
 */
class CompactionModelTest {

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(1_700_000_000_000L);

    @ParameterizedTest
    @ValueSource(longs = {1L, 2L, 3L})
    void randomWorkKeepsTheLatestRecordOfEveryKeyAndEverySentRecordAsSent(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Map<Long, String> sent = new HashMap<>(); // offset -> "key=value" ("key=null" for a tombstone)
        Map<String, Long> latest = new HashMap<>();
        long removed = 0;
        Kafko k = open();
        try {
            k.createTopic("state", TopicConfig.builder().compact().segmentBytes(2048).segmentAge(Duration.ofMinutes(1))
                    .deleteRetention(TopicConfig.MAX_DURATION).build());
            for (int step = 0; step < 400; step++) {
                int op = random.nextInt(100);
                if (op < 60) {
                    send(k, random, sent, latest);
                } else if (op < 70) {
                    batch(k, random, sent, latest);
                } else if (op < 78) {
                    clock.advance(Duration.ofSeconds(random.nextInt(30, 120)));
                } else if (op < 88) {
                    removed += k.topic("state").orElseThrow().compact();
                } else if (op < 92) {
                    Topic t = k.topic("state").orElseThrow();
                    Compression c = t.config().compression() == Compression.NONE ? Compression.LZ4 : Compression.NONE;
                    t.alterConfig(t.config().toBuilder().compression(c).build());
                } else if (op < 95) {
                    k.close();
                    k = open();
                } else {
                    seekAndCheck(k, random, sent);
                }
                if (step % 50 == 49) {
                    checkAll(k, sent, latest);
                }
            }
            removed += k.topic("state").orElseThrow().compact();
            checkAll(k, sent, latest);
            assertThat(removed).as("records the compactions removed").isGreaterThan(sent.size() / 4);
        } finally {
            k.close();
        }
    }

    private Kafko open() {
        return Kafko.open(dir, KafkoOptions.builder().clock(clock).build());
    }

    private static String keyOf(SplittableRandom random) {
        return "k" + random.nextInt(20);
    }

    private static void send(Kafko k, SplittableRandom random, Map<Long, String> sent, Map<String, Long> latest) {
        String key = keyOf(random);
        String value = random.nextInt(10) == 0 ? null : "v" + random.nextInt(1_000_000) + "-".repeat(random.nextInt(80));
        long offset = k.producer("state").sendTo(0, bytes(key), value == null ? null : bytes(value)).join().offset();
        sent.put(offset, key + "=" + value);
        latest.put(key, offset);
    }

    private static void batch(Kafko k, SplittableRandom random, Map<Long, String> sent, Map<String, Long> latest) {
        List<OutgoingRecord> records = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        for (int i = random.nextInt(1, 30); i > 0; i--) {
            String key = keyOf(random);
            String value = "b" + random.nextInt(1_000_000);
            records.add(OutgoingRecord.of(bytes(key), bytes(value)));
            texts.add(key);
            texts.add(value);
        }
        int[] partitions = new int[records.size()]; // all to partition 0
        long first = k.producer("state").sendBatch(records, partitions).join().get(0).offset();
        for (int i = 0; i < records.size(); i++) {
            sent.put(first + i, texts.get(2 * i) + "=" + texts.get(2 * i + 1));
            latest.put(texts.get(2 * i), first + i);
        }
    }

    private static void seekAndCheck(Kafko k, SplittableRandom random, Map<Long, String> sent) {
        long end = k.topic("state").orElseThrow().partition(0).endOffset();
        if (end == 0) {
            return;
        }
        long at = random.nextLong(end);
        try (Consumer c = k.consumer("state", new ConsumerOptions(1 + random.nextInt(5), null,
                ConsumerRebalanceListener.NOOP))) {
            c.seek(0, at);
            List<KafkoRecord> records = c.poll(Duration.ofSeconds(5));
            assertThat(records).as("a poll from offset " + at + " of " + end).isNotEmpty();
            assertThat(records.get(0).offset()).isGreaterThanOrEqualTo(at);
            for (KafkoRecord r : records) {
                assertThat(text(r.key()) + "=" + text(r.value())).as("offset " + r.offset()).isEqualTo(sent.get(r.offset()));
            }
        }
    }

    private static void checkAll(Kafko k, Map<Long, String> sent, Map<String, Long> latest) {
        long end = k.topic("state").orElseThrow().partition(0).endOffset();
        Map<Long, String> read = new HashMap<>();
        long previous = -1;
        try (Consumer c = k.consumer("state")) {
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (c.position(0) < end && System.nanoTime() < deadline) {
                for (KafkoRecord r : c.poll(Duration.ofMillis(50))) {
                    assertThat(r.offset()).isGreaterThan(previous);
                    previous = r.offset();
                    read.put(r.offset(), text(r.key()) + "=" + text(r.value()));
                }
            }
            assertThat(c.position(0)).isEqualTo(end);
        }
        for (Map.Entry<Long, String> e : read.entrySet()) {
            assertThat(e.getValue()).as("offset " + e.getKey()).isEqualTo(sent.get(e.getKey()));
        }
        for (Map.Entry<String, Long> e : latest.entrySet()) {
            assertThat(read).as("the latest record of " + e.getKey()).containsEntry(e.getValue(), sent.get(e.getValue()));
        }
    }
}
