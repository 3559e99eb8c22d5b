package dev.kafko.internal.log;

import static dev.kafko.internal.log.Logs.assertRecord;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FaultyFileIo;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an open hands the writer besides the records: where the index interval goes on, from when the
 * age-based roll counts, and which directory fsyncs it owes. A log reopened, cleanly or after a crash,
 * goes on exactly as one that was never closed.
 */
class LogLoaderEdgesTest {

    private static final int VALUE = 40;
    private static final TopicConfig INDEXED = TopicConfig.builder().indexIntervalBytes(300).build();

    @TempDir
    Path dir;

    @Test
    void aCleanReopenGoesOnWithTheIndexIntervalWhereTheClosedRunLeftIt() {
        assertReopenedIndexMatchesAnUnbrokenRun(false);
    }

    @Test
    void aReopenAfterACrashGoesOnWithTheIndexIntervalWhereTheCrashedRunLeftIt() {
        assertReopenedIndexMatchesAnUnbrokenRun(true);
    }

    private void assertReopenedIndexMatchesAnUnbrokenRun(boolean crash) {
        Path unbroken = dir.resolve("unbroken");
        Path reopened = dir.resolve("reopened");
        OffsetIndex expected;
        try (PartitionLog log = Logs.open(unbroken, INDEXED)) {
            Logs.appendFrames(log, 21, 1, VALUE);
            expected = copy(log.segments()[0].index());
        }
        try (PartitionLog log = Logs.open(reopened, INDEXED)) {
            // stops between two entries: the next one is due 300 bytes after the last
            Logs.appendFrames(log, 10, 1, VALUE);
            assertThat(log.segments()[0].index().count()).isGreaterThan(1);
            if (crash) {
                try {
                    Logs.copyDir(reopened, dir.resolve("crashed"));
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            }
        }
        Path next = crash ? dir.resolve("crashed") : reopened;
        try (PartitionLog log = Logs.open(next, INDEXED)) {
            Logs.appendFrames(log, 11, 1, VALUE);
            assertThat(sameEntries(log.segments()[0].index(), expected))
                    .as("entries %s, an unbroken run's %s", describe(log.segments()[0].index()), describe(expected))
                    .isTrue();
        }
    }

    @Test
    void theAgeBasedRollCountsFromTheFirstRecordOfTheReopenedActiveSegment() {
        MutableClock clock = new MutableClock(50_000_000);
        TopicConfig config = TopicConfig.builder().segmentAge(Duration.ofMinutes(10)).build();
        try (PartitionLog log = Logs.open(dir, config, clock)) {
            Logs.appendFrames(log, 1, 1, VALUE);
        }
        clock.advance(Duration.ofMinutes(10));
        try (PartitionLog log = Logs.open(dir, config, clock)) {
            Logs.appendFrames(log, 1, 1, VALUE);
            assertThat(log.segmentCount()).as("exactly segmentAge after the first record").isEqualTo(1);
        }
        clock.advance(Duration.ofMillis(1));
        try (PartitionLog log = Logs.open(dir, config, clock)) {
            Logs.appendFrames(log, 1, 1, VALUE);
            assertThat(log.segmentCount()).as("older than segmentAge, counted from before the reopen").isEqualTo(2);
        }
    }

    @Test
    void anActiveSegmentWhoseFirstRecordIsStampedAheadOfTheClockAgesFromTheOpen() {
        MutableClock clock = new MutableClock(50_000_000);
        TopicConfig config = TopicConfig.builder().segmentAge(Duration.ofMinutes(10)).build();
        try (PartitionLog log = Logs.open(dir, config, clock)) {
            Logs.appendFrames(log, 1, 1, VALUE);
        }
        // the clock went back an hour: the record's stamp lies in the future
        MutableClock earlier = new MutableClock(50_000_000 - Duration.ofHours(1).toMillis());
        try (PartitionLog log = Logs.open(dir, config, earlier)) {
            earlier.advance(Duration.ofMinutes(10).plusMillis(1));
            Logs.appendFrames(log, 1, 1, VALUE);
            assertThat(log.segmentCount()).as("older than segmentAge since the open").isEqualTo(2);
            assertThat(log.endOffset()).isEqualTo(2);
        }
    }

    @Test
    void anOpenThatRecoveredFromACrashFsyncsTheDirectoryAndACleanOneDoesNot() throws IOException {
        Path live = dir.resolve("live");
        Path crashed = dir.resolve("crashed");
        try (PartitionLog log = Logs.open(live, INDEXED)) {
            Logs.appendFrames(log, 5, 1, VALUE);
            Logs.copyDir(live, crashed);
        }
        FaultyFileIo cleanIo = new FaultyFileIo();
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, live, INDEXED, java.time.Clock.systemUTC(), cleanIo)) {
            assertThat(cleanIo.directorySyncs()).as("a clean open").isZero();
            assertThat(log.endOffset()).isEqualTo(5);
        }
        FaultyFileIo crashIo = new FaultyFileIo();
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, crashed, INDEXED, java.time.Clock.systemUTC(), crashIo)) {
            assertThat(crashIo.directorySyncs()).as("an open after a crash").isEqualTo(1);
            assertThat(log.endOffset()).isEqualTo(5);
            assertRecord(log.read(4, 1, 1 << 20).records().get(0), 4, VALUE);
        }
    }

    private static OffsetIndex copy(OffsetIndex index) {
        OffsetIndex c = new OffsetIndex();
        for (int i = 0; i < index.count(); i++) {
            c.add(index.relativeOffset(i), index.position(i), index.maxTimestampBefore(i));
        }
        return c;
    }

    private static boolean sameEntries(OffsetIndex a, OffsetIndex b) {
        if (a.count() != b.count()) {
            return false;
        }
        for (int i = 0; i < a.count(); i++) {
            if (a.relativeOffset(i) != b.relativeOffset(i) || a.position(i) != b.position(i)) {
                return false;
            }
        }
        return true;
    }

    private static List<String> describe(OffsetIndex index) {
        List<String> out = new java.util.ArrayList<>();
        for (int i = 0; i < index.count(); i++) {
            out.add(index.relativeOffset(i) + "@" + index.position(i));
        }
        return out;
    }
}
