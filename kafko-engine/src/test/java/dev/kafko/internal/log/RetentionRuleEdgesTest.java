package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.TopicConfig;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The age cutoff of retention at the epoch: when the clock reads exactly the retention, the cutoff is the epoch
 * itself, and records stamped before it are past the retention (only a cutoff that would wrap means "nothing").
 */
class RetentionRuleEdgesTest {

    @TempDir
    Path dir;

    @Test
    void aClockReadingExactlyTheRetentionDeletesRecordsStampedBeforeTheEpoch() {
        MutableClock clock = new MutableClock(-5);
        TopicConfig config = TopicConfig.builder().retention(Duration.ofMinutes(1)).build();
        try (PartitionLog log = Logs.open(dir, config, clock)) {
            Logs.appendFrames(log, 2, 1, 20);
            clock.advance(Duration.ofMinutes(1)); // now: 1 minute minus 5 ms, the cutoff 5 ms before the epoch
            assertThat(log.applyRetention()).as("stamped exactly at the cutoff").isZero();
            clock.advance(Duration.ofMillis(5)); // now == retention: the cutoff is the epoch
            assertThat(log.applyRetention()).as("stamped 5 ms before the epoch").isEqualTo(1);
            assertThat(log.logStartOffset()).isEqualTo(2);
            assertThat(log.endOffset()).isEqualTo(2);
        }
    }
}
