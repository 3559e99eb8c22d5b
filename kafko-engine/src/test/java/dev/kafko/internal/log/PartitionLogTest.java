package dev.kafko.internal.log;

import static dev.kafko.internal.log.Logs.assertRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.OffsetOutOfRangeException;
import dev.kafko.OutgoingRecord;
import dev.kafko.RecordTooLargeException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FaultyFileIo;
import dev.kafko.internal.io.FileNames;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionLogTest {

    @TempDir
    Path dir;

    @Test
    void appendedRecordsReadBackInOrderAndSurviveReopen() {
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            assertThat(log.append(Logs.record(0, 10))).isZero();
            Logs.appendFrames(log, 5, 7, 100);
            assertThat(log.endOffset()).isEqualTo(36);
            List<KafkoRecord> all = Logs.readAll(log);
            assertThat(all).hasSize(36);
            assertRecord(all.get(0), 0, 10);
            for (int i = 1; i < 36; i++) {
                assertRecord(all.get(i), i, 100);
            }
        }
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            assertThat(log.endOffset()).isEqualTo(36);
            assertThat(Logs.readAll(log)).hasSize(36);
            assertThat(log.append(Logs.record(36, 10))).isEqualTo(36);
            assertRecord(log.read(36, 10, 1000).records().get(0), 36, 10);
        }
    }

    @Test
    void blocksAreAllocatedOnlyWhenAppendsNeedThemAndInGrowingSteps() throws java.io.IOException {
        Path seg = FileNames.segmentFile(dir, 0);
        FaultyFileIo io = new FaultyFileIo().syncs(false);
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, TopicConfig.DEFAULTS, Clock.systemUTC(), io)) {
            assertThat(Files.size(seg)).as("a fresh segment holds its header only").isEqualTo(16);
            long writes = io.writes();
            log.append(Logs.record(0, 100));
            assertThat(io.writes() - writes).as("one step of zeros, then a store into the mapping").isEqualTo(1);
            assertThat(Files.size(seg)).as("one mapped window, a hole past the zeros")
                    .isEqualTo(SegmentFile.WINDOW_SIZE);
            Logs.appendFrames(log, 280, 2, 100); // about 65 KiB: past the first step
            assertThat(io.writes() - writes).as("a second, larger step").isEqualTo(2);
            Logs.appendFrames(log, 100, 2, 100);
            assertThat(io.writes() - writes).as("still inside the second step").isEqualTo(2);
        }
        assertThat(Files.size(seg)).as("cut to its frames at close").isLessThan(ZeroSteps.ALLOCATION_STEP_MIN * 2L);
    }

    @Test
    void largeFramesAreWrittenOnceWithoutZerosAheadAndReadBackAfterReopen() {
        FaultyFileIo io = new FaultyFileIo().syncs(false);
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, TopicConfig.DEFAULTS, Clock.systemUTC(), io)) {
            long writes = io.writes();
            Logs.appendFrames(log, 3, 200, 300); // frames of about 60 KiB
            assertThat(io.writes() - writes).as("one pwrite per large frame, no zero fill").isEqualTo(3);
            log.append(Logs.record(600, 300)); // a small frame after them goes through the mapping
            assertThat(Logs.readAll(log)).hasSize(601);
        }
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            List<KafkoRecord> all = Logs.readAll(log);
            assertThat(all).hasSize(601);
            for (int i = 0; i < 601; i++) {
                assertRecord(all.get(i), i, 300);
            }
        }
    }

    @Test
    void readFromTheMiddleOfAFrameStartsExactlyThere() {
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            Logs.appendFrames(log, 3, 10, 50);
            ReadResult r = log.read(13, 5, 1 << 20);
            assertThat(r.records()).extracting(KafkoRecord::offset).containsExactly(13L, 14L, 15L, 16L, 17L);
            assertThat(r.nextOffset()).isEqualTo(18);
            assertRecord(r.records().get(0), 13, 50);
        }
    }

    @Test
    void maxBytesBoundsTheReadButAlwaysReturnsOneFrame() {
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            Logs.appendFrames(log, 10, 4, 200);
            ReadResult tiny = log.read(0, 1000, 1);
            assertThat(tiny.records()).extracting(KafkoRecord::offset).containsExactly(0L, 1L, 2L, 3L);
            ReadResult two = log.read(0, 1000, 2000);
            assertThat(two.records()).hasSize(8);
            ReadResult mid = log.read(6, 1000, 1);
            assertThat(mid.records()).extracting(KafkoRecord::offset).containsExactly(6L, 7L);
        }
    }

    @Test
    void keysValuesHeadersAndTimestampsRoundTrip() {
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            Headers headers = Headers.of("a", new byte[] {1, 2}).with("a", null).with("\u00e9\ud83d\ude00", new byte[0]);
            log.append(List.of(
                    OutgoingRecord.of(null, new byte[] {1}),
                    OutgoingRecord.of(new byte[0], null),
                    OutgoingRecord.of(new byte[] {7}, new byte[0], headers, 42L),
                    OutgoingRecord.of(null, null, Headers.empty(), 1_000_000L)));
            List<KafkoRecord> r = log.read(0, 10, 1 << 20).records();
            assertThat(r.get(0).key()).isNull();
            assertThat(r.get(0).value()).containsExactly(1);
            assertThat(r.get(1).key()).isEmpty();
            assertThat(r.get(1).value()).isNull();
            assertThat(r.get(2).headers()).isEqualTo(headers);
            assertThat(r.get(2).timestamp()).isEqualTo(42L);
            assertThat(r.get(3).timestamp()).isEqualTo(1_000_000L);
            assertThat(r.get(3).topic()).isEqualTo(Logs.TOPIC);
            assertThat(r.get(3).partition()).isZero();
        }
    }

    @Test
    void readAboveTheEndOrBelowTheStartIsOutOfRange() {
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            Logs.appendFrames(log, 1, 3, 10);
            assertThat(log.read(3, 10, 100).records()).isEmpty();
            assertThat(log.read(3, 10, 100).nextOffset()).isEqualTo(3);
            assertThatThrownBy(() -> log.read(4, 10, 100)).isInstanceOf(OffsetOutOfRangeException.class)
                    .hasMessageContaining("t-0").hasMessageContaining("4");
            assertThatThrownBy(() -> log.read(-1, 10, 100)).isInstanceOf(OffsetOutOfRangeException.class);
        }
    }

    @Test
    void rollsBySizeAndAnEmptySegmentTakesAnOversizedFrame() throws Exception {
        TopicConfig config = Logs.config().segmentBytes(4096).build();
        try (PartitionLog log = Logs.open(dir, config)) {
            Logs.appendFrames(log, 20, 2, 500);
            assertThat(log.segmentCount()).isGreaterThan(5);
            log.append(Logs.batch(log.endOffset(), 20, 1000));
            assertThat(Logs.readAll(log)).hasSize(60);
            try (var files = Files.list(dir)) {
                for (Path p : (Iterable<Path>) files::iterator) {
                    String n = p.getFileName().toString();
                    if (FileNames.isSegmentFile(n) && FileNames.baseOffsetOf(n) < 40) {
                        assertThat(Files.size(p)).isLessThanOrEqualTo(4096);
                    }
                }
            }
        }
        try (PartitionLog log = Logs.open(dir, config)) {
            List<KafkoRecord> all = Logs.readAll(log);
            assertThat(all).hasSize(60);
            assertRecord(all.get(59), 59, 1000);
        }
    }

    @Test
    void rollsByAgeOfTheSegment() {
        MutableClock clock = new MutableClock(1_000_000);
        TopicConfig config = Logs.config().segmentAge(Duration.ofMinutes(10)).build();
        try (PartitionLog log = Logs.open(dir, config, clock)) {
            Logs.appendFrames(log, 3, 1, 10);
            clock.advance(Duration.ofMinutes(9));
            Logs.appendFrames(log, 1, 1, 10);
            assertThat(log.segmentCount()).isEqualTo(1);
            clock.advance(Duration.ofMinutes(2));
            Logs.appendFrames(log, 1, 1, 10);
            assertThat(log.segmentCount()).isEqualTo(2);
            assertThat(Logs.readAll(log)).hasSize(5);
        }
    }

    @Test
    void encodedSizeIsExactlyTheSizeAppendChecks() {
        Headers headers = Headers.of("\u00e9t\u00e9", new byte[3]).with("n", null);
        OutgoingRecord r = OutgoingRecord.of(new byte[5], new byte[200], headers, 123_456_789L);
        long size = AppendSizes.encodedSize(r);
        // 4 length + 1 timestamp + (1 + 5) key + (2 + 200) value + 1 count + (1 + 5 + 1 + 3) + (1 + 1 + 1)
        assertThat(size).isEqualTo(4 + 1 + 6 + 202 + 1 + 10 + 3);
        OutgoingRecord earlier = OutgoingRecord.of(null, null, Headers.empty(), 1L);
        try (PartitionLog exact = Logs.open(dir.resolve("exact"), Logs.config().maxRecordBytes((int) size).build())) {
            // batched after a record far older, its timestamp delta takes 4 bytes: still accepted
            exact.append(List.of(earlier, r));
            assertThat(exact.read(1, 1, 1).records().get(0).headers()).isEqualTo(headers);
        }
        try (PartitionLog tight = Logs.open(dir.resolve("tight"), Logs.config().maxRecordBytes((int) size - 1).build())) {
            assertThatThrownBy(() -> tight.append(r)).isInstanceOf(RecordTooLargeException.class)
                    .hasMessageContaining(size + " bytes");
        }
    }

    @Test
    void recordLargerThanMaxRecordBytesIsRefusedAndNothingIsWritten() {
        TopicConfig config = Logs.config().maxRecordBytes(100).build();
        try (PartitionLog log = Logs.open(dir, config)) {
            assertThatThrownBy(() -> log.append(List.of(Logs.record(0, 10), Logs.record(1, 500))))
                    .isInstanceOf(RecordTooLargeException.class).hasMessageContaining("maxRecordBytes");
            assertThat(log.endOffset()).isZero();
            log.append(Logs.record(0, 10));
            assertRecord(log.read(0, 10, 100).records().get(0), 0, 10);
        }
    }
}
