package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.CleanupPolicy;
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
    @Test
    void aPassWhoseMergeARetentionCutDownToItsLastSegmentIsNotGoneOnFrom() {
        TopicConfig config = TopicConfig.builder().cleanupPolicy(CleanupPolicy.COMPACT_DELETE).segmentBytes(16 << 10)
                .segmentAge(AGE).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            fill(log);
            // a buffer of a few keys: the pass stops early, its one rewrite merging the first two segments
            CompactionPlan plan = log.compaction().prepare(config, clock.millis(), false, 8 << 10, () -> false);
            assertThat(plan.partial()).isTrue();
            assertThat(plan.rewrites()).singleElement().satisfies(r -> {
                assertThat(r.first().baseOffset()).isZero();
                assertThat(r.olds()).hasSize(2);
            });
            Segment last = plan.rewrites().get(0).last();

            // before it is applied, a retention deletes the first segment (the only one older than 30 s past the
            // first append): the merge's last segment is first in the log now, its records never compacted
            long sinceFirst = Duration.ofMillis(clock.millis() - 1_700_000_000_000L).toSeconds();
            TopicConfig retained = config.toBuilder().retention(Duration.ofSeconds(sinceFirst - 30)).build();
            log.reconfigure(retained, false);
            assertThat(log.applyRetention()).isPositive();
            assertThat(log.segments()[0]).isSameAs(last);
            log.applyCompaction(plan, false);

            assertThat(log.compaction().passesLeft()).as("the next pass starts from the log's start again, where the"
                    + " records of the rewrite not made still wait, not from this pass's end").isFalse();
            compact(log, retained, clock.millis(), 8 << 10);
            List<String> read = readAll(log);
            assertThat(read).hasSize(4001).allMatch(r -> r.endsWith("=v1") || r.endsWith("tail=t"));
        }
    }

    /** Compacts {@code log} pass after pass at {@code now}, as the broker does. */
    private static void compact(PartitionLog log, TopicConfig config, long now, long buffer) {
        do {
            CompactionPlan plan = log.compaction().prepare(config, now, false, buffer, () -> false);
            if (plan.isEmpty()) {
                log.compaction().noteCompacted(plan, true);
            } else {
                log.applyCompaction(plan, false);
            }
        } while (log.compaction().passesLeft());
    }

    private static List<String> readAll(PartitionLog log) {
        List<String> read = new ArrayList<>();
        for (long o = log.logStartOffset(); o < log.endOffset(); ) {
            ReadResult r = log.read(o, 500, 1 << 20);
            for (KafkoRecord k : r.records()) {
                read.add(k.offset() + ":" + new String(k.key(), StandardCharsets.UTF_8) + "="
                        + (k.value() == null ? "null" : new String(k.value(), StandardCharsets.UTF_8)));
            }
            o = r.nextOffset();
        }
        return read;
    }

    private static OutgoingRecord at(String key, String value, long timestamp) {
        return new OutgoingRecord(bytes(key), value == null ? null : bytes(value), Headers.empty(), timestamp);
    }

    @Test
    void aTombstoneWhereAPassStopsIsKeptForTheNextPassAndItsKeyStaysDeleted() {
        // a buffer of one key: each pass maps one key and stops at the first record of another
        TopicConfig config = TopicConfig.builder().compact().segmentAge(AGE).deleteRetention(Duration.ZERO).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            long t = clock.millis() - 1000;
            // pass 1 maps b and stops at a (1); pass 2 maps a, removes a@1 and stops at b's tombstone (3), which the
            // rewrite must keep: pass 3 begins there, and only the tombstone tells it that b's value at 0 goes
            log.append(List.of(at("b", "v", t), at("a", "1", t), at("a", "2", t), at("b", null, t)));
            clock.advance(AGE.plusSeconds(1));
            log.append(at("c", "1", t));
            clock.advance(AGE.plusSeconds(1));
            log.append(at("tail", "t", clock.millis()));

            compact(log, config, clock.millis(), 1);
            assertThat(readAll(log)).containsExactly("2:a=2", "4:c=1", "5:tail=t");
        }
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            assertThat(readAll(log)).containsExactly("2:a=2", "4:c=1", "5:tail=t");
        }
    }

    @Test
    void aTombstoneBeforeAPassThatExpiredSinceThePassBeforeGoes() {
        // a buffer of one key; the tombstone of b, seen by the first pass before its retention ended, is past it at
        // the second, which begins after it: that pass removes it though its key is not among those it maps
        Duration retention = Duration.ofHours(1);
        TopicConfig config = TopicConfig.builder().compact().segmentAge(AGE).deleteRetention(retention).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            long t = clock.millis() - 1000;
            log.append(List.of(at("b", null, t), at("a", "1", t), at("a", "2", t)));
            clock.advance(AGE.plusSeconds(1));
            log.append(at("tail", "t", clock.millis()));

            CompactionPlan first = log.compaction().prepare(config, t + retention.toMillis(), false, 1, () -> false);
            assertThat(first.partial()).isTrue();
            assertThat(first.isEmpty()).as("the tombstone within its retention").isTrue();
            log.compaction().noteCompacted(first, true);
            assertThat(log.compaction().passesLeft()).isTrue();

            CompactionPlan second = log.compaction().prepare(config, t + retention.toMillis() + 1, false, 1,
                    () -> false);
            assertThat(second.partial()).isFalse();
            assertThat(second.removedRecords()).as("a@1, and b's tombstone now past its retention").isEqualTo(2);
            log.applyCompaction(second, false);
            assertThat(readAll(log)).containsExactly("2:a=2", "3:tail=t");
        }
    }
}
