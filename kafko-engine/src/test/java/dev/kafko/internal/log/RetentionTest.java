package dev.kafko.internal.log;

import static dev.kafko.internal.log.Logs.assertRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Headers;
import dev.kafko.OffsetOutOfRangeException;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.DelegatingFileChannel;
import dev.kafko.internal.io.FaultyFileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.io.WrappingFileIo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RetentionTest {

    @TempDir
    Path dir;

    @Test
    void sizeBytesIsTheSumOfTheSegmentsThroughRollsRetentionAndReopen() {
        MutableClock clock = new MutableClock(10_000_000);
        TopicConfig config = TopicConfig.builder().segmentBytes(1024).retention(Duration.ofMinutes(1)).build();
        long expected;
        try (PartitionLog log = Logs.open(dir, config, clock)) {
            for (int round = 0; round < 20; round++) {
                Logs.appendFrames(log, 15, 1, 100);
                assertThat(log.sizeBytes()).as("round %d", round).isEqualTo(sumOfSegments(log));
                clock.advance(Duration.ofSeconds(45));
                log.applyRetention();
                assertThat(log.sizeBytes()).as("round %d after retention", round).isEqualTo(sumOfSegments(log))
                        .isPositive();
            }
            assertThat(log.logStartOffset()).as("retention deleted segments").isPositive();
            expected = log.sizeBytes();
        }
        try (PartitionLog log = Logs.open(dir, config, clock)) {
            assertThat(log.sizeBytes()).as("the same after a reopen").isEqualTo(expected);
        }
    }

    private static long sumOfSegments(PartitionLog log) {
        long sum = 0;
        for (Segment s : log.segments()) {
            sum += s.size();
        }
        return sum;
    }

    @Test
    void retentionByAgeDeletesSegmentsWhoseNewestRecordIsTooOldTheActiveOneByRollingIt() {
        MutableClock clock = new MutableClock(10_000_000);
        TopicConfig config = TopicConfig.builder().segmentBytes(4096).retention(Duration.ofMinutes(90)).build();
        try (PartitionLog log = Logs.open(dir, config, clock)) {
            Logs.appendFrames(log, 40, 2, 100);            // offsets 0..79, written at t0
            clock.advance(Duration.ofHours(1));
            long secondBatch = log.endOffset();
            Logs.appendFrames(log, 40, 2, 100);            // written at t0 + 1h
            int before = log.segmentCount();
            assertThat(log.applyRetention()).isZero();
            clock.advance(Duration.ofMinutes(31));          // t0 records are now older than 90 minutes
            int deleted = log.applyRetention();
            assertThat(deleted).isPositive();
            assertThat(log.segmentCount()).isEqualTo(before - deleted);
            long start = log.logStartOffset();
            assertThat(start).isGreaterThan(0).isLessThanOrEqualTo(secondBatch);
            assertThat(Files.exists(FileNames.segmentFile(dir, 0))).isFalse();
            assertThat(Files.exists(FileNames.indexFile(dir, 0))).isFalse();
            assertThatThrownBy(() -> log.read(0, 10, 1000)).isInstanceOf(OffsetOutOfRangeException.class)
                    .hasMessageContaining("t-0").hasMessageContaining("offset 0").hasMessageContaining("log start " + start);
            assertRecord(log.read(start, 1, 1).records().get(0), start, 100);

            clock.advance(Duration.ofDays(1));
            log.applyRetention();
            // every record expired, the active segment's too: the log rolled and deleted it, as Kafka does
            assertThat(log.segmentCount()).isEqualTo(1);
            assertThat(log.logStartOffset()).isEqualTo(160);
            assertThat(log.endOffset()).isEqualTo(160);
            assertThat(log.sizeBytes()).isEqualTo(sumOfSegments(log));
            assertThat(log.applyRetention()).as("an empty active segment stays").isZero();
            Logs.appendFrames(log, 1, 1, 100);
        }
        try (PartitionLog log = Logs.open(dir, config, clock)) {
            assertThat(log.logStartOffset()).isEqualTo(160);
            assertThat(log.endOffset()).isEqualTo(161);
            List<?> all = Logs.readAll(log);
            assertThat(all).hasSize(1);
        }
    }

    @Test
    void aClockBeforeTheEpochWithARetentionOfNeverDeletesNothing() {
        MutableClock clock = new MutableClock(-10_000);
        TopicConfig config = TopicConfig.builder().segmentBytes(1024).retention(TopicConfig.MAX_DURATION).build();
        try (PartitionLog log = Logs.open(dir, config, clock)) {
            Logs.appendFrames(log, 30, 1, 100);
            assertThat(log.segmentCount()).isGreaterThan(2);
            assertThat(log.applyRetention()).isZero();
            assertThat(log.logStartOffset()).isZero();
        }
    }

    /** Kafka's rule: a segment goes once its newest record is older than the retention, not when exactly that old. */
    @Test
    void retentionByAgeDeletesASegmentOnceItsNewestRecordIsOlderThanTheRetentionNotWhenExactlyThatOld() {
        MutableClock clock = new MutableClock(5_000_500 + 60_000);
        TopicConfig config = TopicConfig.builder().retention(Duration.ofMinutes(1)).build();
        try (PartitionLog log = Logs.open(dir, config, clock)) {
            log.append(OutgoingRecord.of(null, new byte[10], Headers.empty(), 5_000_000));
            log.append(OutgoingRecord.of(null, new byte[10], Headers.empty(), 5_000_000 + 500)); // the newest
            assertThat(log.applyRetention()).as("exactly the retention old").isZero();
            assertThat(log.logStartOffset()).isZero();
            clock.advance(Duration.ofMillis(1));
            assertThat(log.applyRetention()).as("older than the retention").isEqualTo(1);
            assertThat(log.logStartOffset()).isEqualTo(2);
        }
    }

    /** Without a retention nothing expires, also under a clock before 1970 (records stamped before the epoch). */
    @Test
    void withoutARetentionNothingIsDeletedByAgeEvenUnderAClockBeforeTheEpoch() {
        MutableClock clock = new MutableClock(-10_000_000);
        TopicConfig config = TopicConfig.builder().segmentBytes(1024).build();
        try (PartitionLog log = Logs.open(dir, config, clock)) {
            Logs.appendFrames(log, 30, 1, 100);
            assertThat(log.segmentCount()).isGreaterThan(2);
            clock.advance(Duration.ofDays(365));
            assertThat(log.applyRetention()).isZero();
            assertThat(log.logStartOffset()).isZero();
        }
    }

    /** Under a clock before 1970 a retention still counts: only "never" (a cutoff that would wrap) is special. */
    @Test
    void aClockBeforeTheEpochStillDeletesWhatIsOlderThanAShortRetention() {
        MutableClock clock = new MutableClock(-10_000_000);
        TopicConfig config = TopicConfig.builder().segmentBytes(1024).retention(Duration.ofMinutes(1)).build();
        try (PartitionLog log = Logs.open(dir, config, clock)) {
            Logs.appendFrames(log, 30, 1, 100);
            clock.advance(Duration.ofMinutes(2)); // still before the epoch
            assertThat(log.applyRetention()).isPositive();
            assertThat(log.logStartOffset()).isEqualTo(30);
        }
    }

    @Test
    void aRetentionOfZeroBytesDeletesEveryRecord() {
        TopicConfig config = TopicConfig.builder().segmentBytes(1024).retentionBytes(0).build();
        try (PartitionLog log = Logs.open(dir, config)) {
            Logs.appendFrames(log, 30, 1, 100);
            assertThat(log.applyRetention()).isPositive();
            assertThat(log.logStartOffset()).isEqualTo(30);
            assertThat(log.endOffset()).isEqualTo(30);
        }
    }

    /** A segment whose deletion leaves exactly the limit goes; one that would leave a byte less stays. */
    @Test
    void retentionByBytesDeletesASegmentThatLeavesExactlyTheLimit() {
        TopicConfig unlimited = TopicConfig.builder().segmentBytes(1024).build();
        long total;
        long first;
        try (PartitionLog log = Logs.open(dir, unlimited)) {
            Logs.appendFrames(log, 30, 1, 100);
            total = log.sizeBytes();
            first = log.segments()[0].size();
            assertThat(log.segmentCount()).isGreaterThan(2);
        }
        try (PartitionLog log = Logs.open(dir, unlimited.toBuilder().retentionBytes(total - first + 1).build())) {
            assertThat(log.applyRetention()).as("a byte short without it").isZero();
        }
        try (PartitionLog log = Logs.open(dir, unlimited.toBuilder().retentionBytes(total - first).build())) {
            assertThat(log.applyRetention()).as("exactly the limit without it").isEqualTo(1);
            assertThat(log.sizeBytes()).isEqualTo(total - first);
        }
    }

    @Test
    void aSegmentRollsOnceItIsOlderThanSegmentAgeNotWhenItIsExactlyThatOld() {
        MutableClock clock = new MutableClock(10_000_000);
        TopicConfig config = TopicConfig.builder().segmentAge(Duration.ofMinutes(1)).build();
        try (PartitionLog log = Logs.open(dir, config, clock)) {
            Logs.appendFrames(log, 1, 1, 100);
            clock.advance(Duration.ofMinutes(1));
            Logs.appendFrames(log, 1, 1, 100);
            assertThat(log.segmentCount()).as("exactly segmentAge old").isEqualTo(1);
            clock.advance(Duration.ofMillis(1));
            Logs.appendFrames(log, 1, 1, 100);
            assertThat(log.segmentCount()).as("older than segmentAge").isEqualTo(2);
        }
    }

    @Test
    void retentionByBytesDeletesOldestSegmentsWhileWhatRemainsHoldsAtLeastTheLimit() {
        TopicConfig config = TopicConfig.builder().segmentBytes(4096).retentionBytes(10_000).build();
        FaultyFileIo io = new FaultyFileIo().syncs(false);
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, config, Clock.systemUTC(), io)) {
            Logs.appendFrames(log, 100, 2, 100);
            long total = log.sizeBytes();
            assertThat(total).isGreaterThan(20_000);
            long dirSyncs = io.directorySyncs();
            int deleted = log.applyRetention();
            assertThat(deleted).isPositive();
            assertThat(io.directorySyncs() - dirSyncs).as("the deletions were made durable").isEqualTo(1);
            // Kafka's rule: a segment goes only if the partition still holds at least the limit without it
            assertThat(log.sizeBytes()).isGreaterThanOrEqualTo(10_000);
            assertThat(log.sizeBytes() - log.segments()[0].size()).isLessThan(10_000);
            long start = log.logStartOffset();
            List<?> all = Logs.readAll(log);
            assertThat(all).hasSize((int) (200 - start));
            assertThat(log.applyRetention()).isZero();
        }
    }

    @Test
    void offsetForTimestampFindsTheFirstRecordAtOrAfterIt() {
        TopicConfig config = TopicConfig.builder().segmentBytes(2048).indexIntervalBytes(128).build();
        try (PartitionLog log = Logs.open(dir, config)) {
            for (int f = 0; f < 50; f++) {
                List<OutgoingRecord> batch = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    long offset = f * 3L + i;
                    batch.add(OutgoingRecord.of(null, Logs.value(offset, 40), Headers.empty(), 1000 + 10 * offset));
                }
                log.append(batch);
            }
            // one record out of order: offset 150 carries an old timestamp
            log.append(OutgoingRecord.of(null, new byte[1], Headers.empty(), 1005));
            assertThat(log.segmentCount()).isGreaterThan(3);
            assertThat(log.offsetForTimestamp(0)).isZero();
            assertThat(log.offsetForTimestamp(1000)).isZero();
            assertThat(log.offsetForTimestamp(1001)).isEqualTo(1);
            assertThat(log.offsetForTimestamp(1055)).isEqualTo(6);
            assertThat(log.offsetForTimestamp(1000 + 10 * 149)).isEqualTo(149);
            assertThat(log.offsetForTimestamp(1000 + 10 * 149 + 1)).isEqualTo(151);
            for (long ts = 1000; ts < 2500; ts += 7) {
                long expected = ts <= 2490 ? (ts - 1000 + 9) / 10 : 151;
                assertThat(log.offsetForTimestamp(ts)).as("timestamp %d", ts).isEqualTo(expected);
            }
        }
    }

    /** A search by timestamp that retention overtakes goes on in what is left, as a read does. */
    @Test
    void aSearchThatMeetsASegmentRetentionDeletedSearchesTheSegmentsLeft() {
        MutableClock clock = new MutableClock(1_000_000);
        TopicConfig config = Logs.config().segmentBytes(1024).retention(Duration.ofHours(1)).build();
        try (PartitionLog log = Logs.open(dir, config, clock)) {
            Logs.appendFrames(log, 40, 8, 100);
            assertThat(log.segmentCount()).isGreaterThan(10);
        }
        // reopened, the sealed segments are read with positional reads: the first such read of the
        // search lets retention delete every sealed segment under it
        AtomicReference<PartitionLog> opened = new AtomicReference<>();
        AtomicBoolean armed = new AtomicBoolean();
        WrappingFileIo io = new WrappingFileIo((path, options, real) -> !path.toString().endsWith(".log") ? real
                : new DelegatingFileChannel(real) {
                    @Override
                    public int read(ByteBuffer dst, long position) throws IOException {
                        if (armed.getAndSet(false)) {
                            clock.advance(Duration.ofHours(2));
                            assertThat(opened.get().applyRetention()).isPositive();
                        }
                        return super.read(dst, position);
                    }
                });
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, config, clock, io)) {
            opened.set(log);
            armed.set(true);
            long found = log.offsetForTimestamp(0);
            assertThat(armed).isFalse();
            assertThat(log.segmentCount()).isEqualTo(1);
            assertThat(found).isEqualTo(log.logStartOffset()).isPositive();
        }
    }
}
