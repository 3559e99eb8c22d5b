package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.CleanupPolicy;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The edges of compaction in passes: where the passes end, and what a pass's first and last offsets keep. */
class CompactionPassesEdgesTest {

    private static final long SMALL = 64 << 10;
    private static final Duration AGE = Duration.ofMinutes(1);

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(1_700_000_000_000L);

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** 80 segments of 100 records, one a minute: keys 0 to 3999, then all of them again; then the active segment. */
    private void fill(PartitionLog log) {
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < 4000; i += 100) {
                List<OutgoingRecord> batch = new ArrayList<>();
                for (int k = i; k < i + 100; k++) {
                    batch.add(OutgoingRecord.of(bytes(String.format("key-%05d", k)), bytes("v" + round)));
                }
                log.append(batch);
                clock.advance(AGE.plusSeconds(1));
            }
        }
        log.append(OutgoingRecord.of(bytes("tail"), bytes("t")));
    }

    @Test
    void aPassThatFindsNothingCleanableEndsThePasses() {
        TopicConfig config = TopicConfig.builder().cleanupPolicy(CleanupPolicy.COMPACT_DELETE).segmentBytes(16 << 10)
                .segmentAge(AGE).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            fill(log);
            CompactionPlan plan = log.compaction().prepare(config, clock.millis(), false, SMALL, () -> false);
            assertThat(plan.partial()).isTrue();
            log.applyCompaction(plan, false);
            assertThat(log.compaction().passesLeft()).as("applied whole: a next pass goes on").isTrue();

            // before the next pass, a retention deletes every sealed segment: nothing is left to look at
            TopicConfig retained = config.toBuilder().retention(Duration.ofSeconds(30)).build();
            log.reconfigure(retained, false);
            assertThat(log.applyRetention()).isPositive();
            assertThat(log.segments()).hasSize(1);
            CompactionPlan next = log.compaction().prepare(retained, clock.millis(), false, SMALL, () -> false);
            assertThat(next.isEmpty()).isTrue();
            assertThat(next.cleanableEnd()).isEqualTo(-1);
            // a caller that repeats passes while some are left (the broker's cleaner) stops here, not spinning on
            assertThat(log.compaction().passesLeft()).isFalse();
        }
    }
}
