package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
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

/**
 * The edges of when a compaction is due and what it may look at: a dirty ratio reached exactly, a segment exactly as
 * old as the lag, a tombstone exactly as old as its retention, and the timestamps a rewrite keeps for the offsets of
 * holes it reads.
 */
class CompactionEdgesTest {

    private static final Duration AGE = Duration.ofMinutes(1);

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(1_700_000_000_000L);

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static OutgoingRecord at(String key, String value, long timestamp) {
        return new OutgoingRecord(bytes(key), value == null ? null : bytes(value), Headers.empty(), timestamp);
    }

    /** Rolls the active segment: a record of {@code key} written at {@code timestamp} an age later, in a new one. */
    private void roll(PartitionLog log, String key, long timestamp) {
        clock.advance(AGE.plusSeconds(1));
        log.append(at(key, "x", timestamp));
    }

    private void roll(PartitionLog log, String key) {
        roll(log, key, clock.millis() + AGE.plusSeconds(1).toMillis());
    }

    private static List<Long> offsets(PartitionLog log) {
        List<Long> out = new ArrayList<>();
        for (long o = log.logStartOffset(); o < log.endOffset(); ) {
            ReadResult r = log.read(o, 100, 1 << 20);
            r.records().forEach(k -> out.add(k.offset()));
            o = r.nextOffset();
        }
        return out;
    }

    @Test
    void aCompactionIsDueWhenItsDirtyBytesReachTheRatioExactlyAndNotOnceTheyAreCompacted() {
        TopicConfig all = TopicConfig.builder().compact().segmentAge(AGE).minCleanableDirtyRatio(1.0).build();
        TopicConfig any = all.toBuilder().minCleanableDirtyRatio(0.0).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, all, clock, FileIo.SYSTEM)) {
            log.append(OutgoingRecord.of(bytes("a"), bytes("1")));
            assertThat(log.compaction().due(any, clock.millis())).as("only the active segment").isFalse();
            log.append(OutgoingRecord.of(bytes("a"), bytes("2")));
            roll(log, "b");
            assertThat(log.compaction().due(all, clock.millis())).as("every byte dirty, the ratio 1").isTrue();

            log.applyCompaction(log.compaction().prepare(all, clock.millis(), false, () -> false), false);
            assertThat(offsets(log)).containsExactly(1L, 2L);
            assertThat(log.compaction().due(any, clock.millis())).as("compacted to the end of the sealed ones")
                    .isFalse();
        }
    }

    @Test
    void aSegmentExactlyAsOldAsTheLagIsCleanable() {
        Duration lag = Duration.ofMinutes(5);
        TopicConfig config = TopicConfig.builder().compact().segmentAge(AGE).minCompactionLag(lag).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            long t = clock.millis() - 1000;
            log.append(List.of(at("a", "1", t - 5), at("a", "2", t)));
            roll(log, "tail");
            assertThat(Compaction.cleanableCount(log.segments(), config, t + lag.toMillis())).isEqualTo(1);
            assertThat(Compaction.cleanableCount(log.segments(), config, t + lag.toMillis() - 1)).isZero();
        }
    }

    @Test
    void withALagTheActiveSegmentIsNotCleanableHoweverOldItsRecords() {
        Duration lag = Duration.ofMinutes(5);
        TopicConfig config = TopicConfig.builder().compact().segmentAge(AGE).minCompactionLag(lag).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            long t = clock.millis() - 1000;
            log.append(List.of(at("a", "1", t), at("a", "2", t)));
            roll(log, "a", t); // the active segment's record as old as the sealed one's
            assertThat(log.segments()).hasSize(2);
            assertThat(Compaction.cleanableCount(log.segments(), config, t + lag.toMillis() + 1)).isEqualTo(1);
        }
    }

    @Test
    void aRecordStampedAtTheEpochIsCleanableOnceTheLagIsTheTimeSinceTheEpoch() {
        long now = clock.millis();
        Duration lag = Duration.ofMillis(now);
        TopicConfig config = TopicConfig.builder().compact().segmentAge(AGE).minCompactionLag(lag).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            log.append(List.of(at("a", "1", 0), at("a", "2", 0)));
            roll(log, "tail");
            assertThat(Compaction.cleanableCount(log.segments(), config, now)).as("exactly as old as the lag")
                    .isEqualTo(1);
            assertThat(Compaction.cleanableCount(log.segments(), config, now - 1)).isZero();
        }
    }

    @Test
    void withoutALagARecordStampedAheadOfTheClockDoesNotStopTheCompactionOfItsSegmentOrTheLaterOnes() {
        // Kafka's cleaner looks at timestamps only for a min.compaction.lag.ms above 0
        TopicConfig config = TopicConfig.builder().compact().segmentAge(AGE).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            long ahead = clock.millis() + Duration.ofDays(365).toMillis();
            log.append(List.of(at("a", "1", ahead), at("a", "2", clock.millis())));
            roll(log, "b", clock.millis());
            log.append(at("b", "2", clock.millis()));
            roll(log, "tail", clock.millis());
            assertThat(Compaction.cleanableCount(log.segments(), config, clock.millis())).isEqualTo(2);
            log.applyCompaction(log.compaction().prepare(config, clock.millis(), false, () -> false), false);
            assertThat(offsets(log)).containsExactly(1L, 3L, 4L);
        }
    }

    @Test
    void aTombstoneExactlyAsOldAsItsRetentionIsKeptAndOneMillisecondOlderGoes() {
        Duration retention = Duration.ofHours(1);
        TopicConfig config = TopicConfig.builder().compact().segmentAge(AGE).deleteRetention(retention).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            long t = clock.millis() - 1000;
            log.append(List.of(at("a", "1", t - 5), at("b", null, t)));
            roll(log, "tail");
            long limit = t + retention.toMillis();
            CompactionPlan plan = log.compaction().prepare(config, limit, false, () -> false);
            assertThat(plan.removedRecords()).as("the tombstone of b, as old as its retention").isZero();
            plan.discard(FileIo.SYSTEM);
            plan = log.compaction().prepare(config, limit + 1, false, () -> false);
            assertThat(plan.removedRecords()).isEqualTo(1);
            log.applyCompaction(plan, false);
            assertThat(offsets(log)).containsExactly(0L, 2L);
        }
    }

    @Test
    void offsetsAFrameHeldAsAHoleKeepItsNewestTimestampWhenTheRecordAfterThemGoesToo() {
        TopicConfig config = TopicConfig.builder().compact().segmentAge(AGE).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            // one frame: a, b (the newest), c; then b again, older: the first compaction makes b a hole
            log.append(List.of(at("a", "1", 10), at("b", "1", 50), at("c", "1", 20)));
            log.append(at("b", "2", 5));
            roll(log, "tail-1", 1);
            log.applyCompaction(log.compaction().prepare(config, clock.millis(), false, () -> false), false);
            assertThat(offsets(log)).startsWith(0L, 2L, 3L);
            Segment first = log.segments()[0];
            long newest = first.maxTimestamp();

            // c again (the segment rolled to at time 1, all older than b): the second compaction removes c, after the hole of b, and the segments merge again
            log.append(at("c", "2", 7));
            roll(log, "tail-2", 2);
            CompactionPlan plan = log.compaction().prepare(config, clock.millis(), false, () -> false);
            assertThat(plan.removedRecords()).isEqualTo(1);
            assertThat(plan.rewrites()).hasSize(1);
            CompactionPlan.Rewrite r = plan.rewrites().get(0);
            // b's timestamp (50), the newest of the first segment, still counts, though its record is gone
            assertThat(r.olds().get(0)).isSameAs(first);
            assertThat(r.maxTimestamp()).isEqualTo(Math.max(newest,
                    r.olds().stream().skip(1).mapToLong(Segment::maxTimestamp).max().orElse(Long.MIN_VALUE)));
            log.applyCompaction(plan, false);
            assertThat(offsets(log)).startsWith(0L, 3L);
            assertThat(log.read(1, 1, 1 << 20).records()).extracting(KafkoRecord::offset).containsExactly(3L);
        }
    }
}
