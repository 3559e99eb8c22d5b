package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.InvalidConfigException;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durations at the edge of {@link Duration}: a config either refuses them with
 * {@link InvalidConfigException} or works with them (sends complete, retention runs).
 */
class HostileConfigTest {

    private static final Duration HUGE = Duration.ofSeconds(Long.MAX_VALUE);

    @TempDir
    Path tmp;

    /** Bug B6 (docs/RELIABILITY.md), fixed: a duration past Long.MAX_VALUE ms is kept as "never". */
    @Test
    void hugeSegmentAgeIsRefusedOrHonoured() {
        TopicConfig config;
        try {
            config = TopicConfig.builder().segmentAge(HUGE).segmentBytes(4096).build();
        } catch (InvalidConfigException refused) {
            return;
        }
        try (Kafko kafko = Kafko.open(tmp)) {
            kafko.createTopic("t", config);
            Producer p = kafko.producer("t");
            for (int i = 0; i < 3; i++) {
                assertThat(p.send(null, new byte[10]).join().offset()).isEqualTo(i);
            }
        }
    }

    /** The same duration as retention works: retention runs and keeps everything. */
    @Test
    void hugeRetentionIsRefusedOrHonoured() throws Exception {
        TopicConfig config;
        try {
            config = TopicConfig.builder().retention(HUGE).segmentBytes(1024).build();
        } catch (InvalidConfigException refused) {
            return;
        }
        KafkoOptions options = KafkoOptions.builder().retentionCheckInterval(Duration.ofMillis(5)).build();
        try (Kafko kafko = Kafko.open(tmp, options)) {
            kafko.createTopic("t", config);
            Producer p = kafko.producer("t");
            for (int i = 0; i < 50; i++) {
                p.send(null, new byte[100]).join();
            }
            Thread.sleep(100);
            assertThat(kafko.topic("t").orElseThrow().partition(0).state()).isEqualTo(dev.kafko.PartitionState.RUNNING);
            assertThat(kafko.topic("t").orElseThrow().partition(0).failure()).isNull();
            assertThat(kafko.topic("t").orElseThrow().partition(0).logStartOffset()).isZero();
        }
    }
}
