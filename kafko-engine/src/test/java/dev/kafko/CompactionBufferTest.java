package dev.kafko;

import static dev.kafko.Fixtures.bytes;
import static dev.kafko.Fixtures.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.internal.log.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link KafkoOptions#compactionBufferBytes()}: its bounds, and a {@code compact()} whose keys need several passes. */
class CompactionBufferTest {

    private static final Duration AGE = Duration.ofMinutes(1);

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(1_700_000_000_000L);

    @ParameterizedTest
    @ValueSource(longs = {-1, 0, (64 << 10) - 1, (1L << 30) + 1})
    void aBufferOutsideItsBoundsIsRefusedNamingIt(long bytes) {
        assertThatThrownBy(() -> KafkoOptions.builder().compactionBufferBytes(bytes).build())
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("compactionBufferBytes must be between 65536 and 1073741824, was " + bytes);
    }

    @Test
    void theDefaultIs32MiBAndTheBoundsAreAccepted() {
        assertThat(KafkoOptions.DEFAULTS.compactionBufferBytes()).isEqualTo(32L << 20);
        assertThat(KafkoOptions.builder().compactionBufferBytes(KafkoOptions.MIN_COMPACTION_BUFFER_BYTES).build()
                .compactionBufferBytes()).isEqualTo(64 << 10);
        assertThat(KafkoOptions.builder().compactionBufferBytes(KafkoOptions.MAX_COMPACTION_BUFFER_BYTES).build()
                .compactionBufferBytes()).isEqualTo(1L << 30);
    }

    @Test
    void oneCompactLeavesEveryKeyOnceThoughItsKeysNeedSeveralPasses() {
        // 6,000 keys of 9 bytes: about 250 KB of keys in a 64 KiB buffer
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().clock(clock).compactionBufferBytes(64 << 10).build())) {
            Topic topic = k.createTopic("state", TopicConfig.builder().compact().segmentBytes(32 << 10)
                    .segmentAge(AGE).deleteRetention(Duration.ZERO).build());
            Producer p = k.producer("state");
            Map<String, String> latest = new HashMap<>();
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 6000; i += 200) {
                    List<OutgoingRecord> batch = new ArrayList<>();
                    for (int key = i; key < i + 200; key++) {
                        String name = String.format("key-%04d", key);
                        // the first round's keys 0 to 99 deleted by the second
                        String value = round == 1 && key < 100 ? null : "v" + round;
                        batch.add(OutgoingRecord.of(bytes(name), value == null ? null : bytes(value)));
                        latest.put(name, value);
                    }
                    p.sendBatch(batch).join();
                }
            }
            clock.advance(AGE.plusSeconds(1));
            p.sendTo(0, bytes("tail"), bytes("t")).join();

            assertThat(topic.compact()).isEqualTo(6000 + 100);

            Map<String, String> read = new HashMap<>();
            try (Consumer c = k.consumer("state")) {
                long end = topic.partition(0).endOffset();
                while (c.position(0) < end) {
                    for (KafkoRecord r : c.poll(Duration.ofMillis(100))) {
                        assertThat(read.put(text(r.key()), text(r.value()))).as(text(r.key())).isNull();
                    }
                }
            }
            latest.values().removeIf(v -> v == null);
            latest.put("tail", "t");
            assertThat(read).isEqualTo(latest);
        }
    }
}
