package dev.kafko.internal.log;

import static dev.kafko.internal.log.Logs.assertRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.KafkoRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.DelegatingFileChannel;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.io.WrappingFileIo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * A clean open checks a sealed segment's index files at their ends, a few frame headers whatever the segment's
 * size, not at every entry: that read one header per {@code indexIntervalBytes}, i.e. every page of the whole log,
 * at every open. An index that lies at its ends is still rebuilt; one forged with a valid CRC between them fails the
 * reads that start at the forged entry and never yields a wrong record.
 */
class SealedIndexCheckTest {

    private static final int VALUE = 40;
    private static final TopicConfig CONFIG = TopicConfig.builder().segmentBytes(64 * 1024).indexIntervalBytes(256)
            .build();

    @TempDir
    Path dir;

    @Test
    void aCleanOpenReadsAFewHeadersOfEachSealedSegmentNotOneAtEveryIndexEntry() throws IOException {
        int records = fill();
        long[] bases = bases();
        assertThat(bases).hasSizeGreaterThan(3);
        Map<Path, AtomicInteger> reads = new ConcurrentHashMap<>();
        FileIo counting = new WrappingFileIo((path, options, real) -> new DelegatingFileChannel(real) {
            @Override
            public int read(ByteBuffer dst, long position) throws IOException {
                reads.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
                return super.read(dst, position);
            }
        });
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, CONFIG, Clock.systemUTC(), counting)) {
            for (int i = 0; i < bases.length - 1; i++) {
                int entries = IndexFiles.load(FileIo.SYSTEM, dir, bases[i]).index().count();
                assertThat(entries).as("index entries of sealed segment %d", i).isGreaterThan(100);
                AtomicInteger n = reads.get(FileNames.segmentFile(dir, bases[i]));
                assertThat(n == null ? 0 : n.get()).as("positional reads of sealed segment %d (of %d index entries)"
                        + " while the log opened", i, entries).isLessThanOrEqualTo(16);
            }
            List<KafkoRecord> all = Logs.readAll(log, 0, 7, 300);
            assertThat(all).hasSize(records);
            for (KafkoRecord r : all) {
                assertRecord(r, r.offset(), VALUE);
            }
        }
    }

    @Test
    void aSealedIndexWhoseLastEntryLiesIsRebuiltAndLosesNoRecord() throws IOException {
        int records = fill();
        long base = bases()[1];
        IndexFiles.Snapshot snap = IndexFiles.load(FileIo.SYSTEM, dir, base);
        OffsetIndex index = snap.index();
        int last = index.count() - 1;
        // the last entry claims an offset inside its frame, not the frame's base: a valid CRC, in order
        forge(base, snap, last, index.relativeOffset(last) + 1, index.position(last));
        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            assertThat(log.segments()[1].index().sameEntries(snap.index())).isTrue();
            assertThat(Logs.readAll(log, 0, 7, 300)).hasSize(records);
        }
    }

    /**
     * A middle entry that lies under a valid CRC: it claims the offset of the frame two records before the one it
     * points at (shift 0), or points into the frame it claims (shift 9: no frame header there).
     */
    @ParameterizedTest
    @CsvSource({"-2, 0", "0, 9"})
    void aSealedIndexForgedBetweenItsEndsLosesNoRecord(int offsetShift, int positionShift) throws IOException {
        int records = fill();
        long base = bases()[1];
        long next = bases()[2];
        IndexFiles.Snapshot snap = IndexFiles.load(FileIo.SYSTEM, dir, base);
        OffsetIndex index = snap.index();
        int mid = index.count() / 2;
        forge(base, snap, mid, index.relativeOffset(mid) + offsetShift, index.position(mid) + positionShift);
        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            // every offset is read, the ones the forged entry leads astray by a scan from the segment's start
            for (long o = base; o < next; o++) {
                List<KafkoRecord> got = log.read(o, 1, 1).records();
                assertThat(got).hasSize(1);
                assertRecord(got.get(0), o, VALUE);
            }
            assertThat(log.read(records - 1, 1, 1).records()).hasSize(1);
        }
    }

    /** Appends frames of two records until several 64 KiB segments are sealed; returns the records appended. */
    private int fill() {
        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            Logs.appendFrames(log, 3000, 2, VALUE);
            return (int) log.endOffset();
        }
    }

    /** Rewrites the index files of {@code base} with entry {@code i} replaced, under a valid CRC. */
    private void forge(long base, IndexFiles.Snapshot snap, int i, int relativeOffset, int position) {
        OffsetIndex old = snap.index();
        OffsetIndex forged = new OffsetIndex();
        for (int e = 0; e < old.count(); e++) {
            forged.add(e == i ? relativeOffset : old.relativeOffset(e), e == i ? position : old.position(e),
                    old.maxTimestampBefore(e));
        }
        IndexFiles.write(FileIo.SYSTEM, dir, base, forged, snap.nextOffset(), snap.segmentSize(), snap.maxTimestamp(),
                false);
        assertThat(IndexFiles.load(FileIo.SYSTEM, dir, base)).as("the forged index passes its own checks").isNotNull();
    }

    private long[] bases() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(FileNames::isSegmentFile)
                    .mapToLong(FileNames::baseOffsetOf).sorted().toArray();
        }
    }
}
