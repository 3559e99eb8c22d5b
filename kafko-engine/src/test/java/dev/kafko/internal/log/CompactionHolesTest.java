package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A segment whose records are removed one by one among records that stay: the removed offsets become holes in the
 * frames of the kept ones, so that it shrinks (a gap frame each took 44 bytes and cut the frame), and it reads, seeks,
 * looks up timestamps, reopens and compacts again as any other.
 */
class CompactionHolesTest {

    private static final Duration AGE = Duration.ofMinutes(1);

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(1_700_000_000_000L);

    /** 2,000 records of keys of 12 bytes: every other one's key written again later, so that it goes. */
    private void fill(PartitionLog log) {
        List<OutgoingRecord> batch = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            clock.advance(Duration.ofMillis(1));
            batch.add(new OutgoingRecord(String.format("key-%08d", i).getBytes(), ("value-" + i).getBytes(),
                    dev.kafko.Headers.empty(), clock.millis()));
        }
        log.append(batch);
        batch.clear();
        for (int i = 0; i < 2000; i += 2) {
            batch.add(OutgoingRecord.of(String.format("key-%08d", i).getBytes(), ("again-" + i).getBytes()));
        }
        log.append(batch);
        clock.advance(AGE.plusSeconds(1));
        log.append(OutgoingRecord.of("tail".getBytes(), "t".getBytes()));
    }

    private static List<KafkoRecord> read(PartitionLog log, long from, int max) {
        List<KafkoRecord> out = new ArrayList<>();
        for (long o = from; o < log.endOffset(); ) {
            ReadResult r = log.read(o, max, 1 << 20);
            out.addAll(r.records());
            o = r.nextOffset();
        }
        return out;
    }

    @Test
    void recordsRemovedOneByOneAmongKeptOnesBecomeHolesAndTheSegmentShrinks() {
        TopicConfig config = TopicConfig.builder().compact().segmentBytes(1L << 20).segmentAge(AGE).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            fill(log);
            Segment old = log.segments()[0];
            long oldMax = old.maxTimestamp();
            CompactionPlan plan = log.compaction().prepare(config, clock.millis(), true, () -> false);
            assertThat(plan.removedRecords()).isEqualTo(1000);
            log.applyCompaction(plan, true);
            Segment compacted = log.segments()[0];
            // 1,000 records of 31 bytes removed, 1,000 holes of 4 bytes written: at least 24 bytes freed for each (a
            // gap frame each, 44 bytes, and a frame of its own for each kept record between them made it 150 KB)
            assertThat(compacted.size()).isLessThan(old.size() - 1000 * 24);
            assertThat(compacted.maxTimestamp()).isEqualTo(oldMax);

            List<KafkoRecord> all = read(log, 0, 500);
            assertThat(all).hasSize(2001);
            for (int i = 0; i < 1000; i++) {
                assertThat(all.get(i).offset()).isEqualTo(2L * i + 1); // the odd keys' only records
                assertThat(new String(all.get(i).value())).isEqualTo("value-" + (2 * i + 1));
            }
            assertThat(read(log, 0, 1)).as("one record a read").extracting(KafkoRecord::offset)
                    .isEqualTo(all.stream().map(KafkoRecord::offset).toList());
            assertThat(log.read(4, 1, 1 << 20).records()).as("a read at a hole's offset").extracting(
                    KafkoRecord::offset).containsExactly(5L);
            // the first record at or after a removed one's time is the kept one after it
            assertThat(log.offsetForTimestamp(old.maxTimestamp() - 1999 + 4)).isEqualTo(5);
        }
    }

    @Test
    void aSegmentWithHolesReopensAndCompactsAgain() {
        TopicConfig config = TopicConfig.builder().compact().segmentBytes(1L << 20).segmentAge(AGE).build();
        List<Long> kept;
        long max;
        List<Long> now;
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            fill(log);
            log.applyCompaction(log.compaction().prepare(config, clock.millis(), true, () -> false), true);
            kept = read(log, 0, 500).stream().map(KafkoRecord::offset).toList();
            max = log.segments()[0].maxTimestamp();
            // a key of the holes' segment written again: the next compaction removes one more record among holes
            log.append(OutgoingRecord.of(String.format("key-%08d", 7).getBytes(), "last".getBytes()));
            clock.advance(AGE.plusSeconds(1));
            log.append(OutgoingRecord.of("tail".getBytes(), "t2".getBytes()));
        }
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            List<Long> expected = new ArrayList<>(kept);
            expected.remove(Long.valueOf(7));
            CompactionPlan plan = log.compaction().prepare(config, clock.millis(), true, () -> false);
            assertThat(plan.removedRecords()).isEqualTo(1);
            long newest = Math.max(log.segments()[0].maxTimestamp(), log.segments()[1].maxTimestamp());
            log.applyCompaction(plan, true);
            assertThat(log.segments()[0].maxTimestamp()).as("the two sealed segments merged").isEqualTo(newest);
            assertThat(newest).isGreaterThan(max);
            now = read(log, 0, 500).stream().map(KafkoRecord::offset).toList();
            assertThat(now.subList(0, now.size() - 2)).isEqualTo(expected);
            assertThat(now.subList(now.size() - 2, now.size())).containsExactly(3001L, 3002L);
        }
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            assertThat(read(log, 0, 7).stream().map(KafkoRecord::offset).toList()).isEqualTo(now);
        }
    }
}
