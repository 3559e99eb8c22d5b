package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Compression;
import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.io.WrappingFileIo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Opens of segments with holes: index files lost or damaged beside them are rebuilt from their frames as the
 * compaction wrote them; a crash at any step of a compaction that rewrites and merges segments already holding
 * holes leaves a directory that opens with every record kept, each where it was, and reads the same however read;
 * the sizes counted from them are their files', and retention by size deletes them as any others.
 */
class HolesRecoveryTest {

    @TempDir
    Path tmp;

    /** A log of segments with holes, compacted, closed; its model. */
    private NavigableMap<Long, HolesFixture.Sent> compactedLog(HolesFixture f, Path dir, TopicConfig config) {
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, f.clock, FileIo.SYSTEM)) {
            f.append(log, 3000, 1000);
            f.seal(log, "tail-1");
            assertThat(f.compact(log, config)).isPositive();
            assertThat(HolesFixture.frameKinds(log)[0]).as("frames with holes").isGreaterThanOrEqualTo(5);
            assertThat(log.segments().length).as("sealed segments and the active one").isGreaterThan(2);
        }
        return f.kept(f.sent.lastKey());
    }

    private static List<Path> indexFiles(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(FileNames.INDEX_SUFFIX)
                    || p.toString().endsWith(FileNames.TIME_INDEX_SUFFIX)).sorted().toList();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"deleted", "emptied", "cut short", "a byte of an entry flipped", "time index deleted"})
    void indexFilesLostOrDamagedBesideSegmentsWithHolesAreRebuiltAsTheCompactionWroteThem(String damage)
            throws IOException {
        Path dir = tmp.resolve("p");
        HolesFixture f = new HolesFixture(3);
        TopicConfig config = HolesFixture.config(Compression.LZ4);
        NavigableMap<Long, HolesFixture.Sent> kept = compactedLog(f, dir, config);
        long active;
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, f.clock, FileIo.SYSTEM)) {
            active = log.segments()[log.segments().length - 1].baseOffset();
        }
        Map<Path, byte[]> written = new HashMap<>();
        for (Path p : indexFiles(dir)) {
            written.put(p, Files.readAllBytes(p));
            if (p.getFileName().toString().startsWith(FileNames.segmentFile(dir, active).getFileName().toString()
                    .replace(FileNames.LOG_SUFFIX, ""))) {
                continue; // the active segment's: the sealed ones' are damaged
            }
            boolean index = p.toString().endsWith(FileNames.INDEX_SUFFIX);
            byte[] b = written.get(p);
            switch (damage) {
                case "deleted" -> Files.delete(p);
                case "emptied" -> Files.write(p, new byte[0]);
                case "cut short" -> Files.write(p, Arrays.copyOf(b, b.length - 3));
                case "a byte of an entry flipped" -> {
                    byte[] c = b.clone();
                    c[c.length - 2] ^= 0x40;
                    Files.write(p, c);
                }
                default -> {
                    if (!index) {
                        Files.delete(p);
                    }
                }
            }
        }
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = PartitionLog.open("t", 0, dir, config, f.clock, FileIo.SYSTEM)) {
            assertThat(warnings.lines()).as("the indexes rebuilt").anyMatch(l -> l.contains("rebuilt the index"));
            f.assertReadsAsModel(log, kept, new Random(5));
        }
        for (Path p : indexFiles(dir)) {
            assertThat(p).as("rebuilt as the compaction wrote it").hasBinaryContent(written.get(p));
        }
        assertThat(indexFiles(dir)).hasSameSizeAs(written.keySet());
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = PartitionLog.open("t", 0, dir, config, f.clock, FileIo.SYSTEM)) {
            assertThat(warnings.lines()).as("a clean open trusts what it rebuilt").isEmpty();
            assertThat(HolesFixture.scan(log, 0, 5000, 1 << 20, new VerifiedFrame())).extracting(KafkoRecord::offset)
                    .containsExactlyElementsOf(kept.keySet());
        }
    }

    /** The real file system; copies the partition directory before each rename, deletion and directory fsync. */
    private static final class CrashingIo extends WrappingFileIo {
        volatile Path crashes;
        final List<Path> taken = new ArrayList<>();

        CrashingIo() {
            super((path, options, real) -> real);
        }

        private void step(Path dir) throws IOException {
            if (crashes != null) {
                Path copy = crashes.resolve("crash-" + taken.size());
                Logs.copyDir(dir, copy);
                taken.add(copy);
            }
        }

        @Override
        public void deleteIfExists(Path path) throws IOException {
            step(path.getParent());
            super.deleteIfExists(path);
        }

        @Override
        public void atomicMove(Path source, Path target) throws IOException {
            step(source.getParent());
            super.atomicMove(source, target);
        }

        @Override
        public void fsyncDirectory(Path dir) throws IOException {
            step(dir);
            super.fsyncDirectory(dir);
        }
    }

    @Test
    void aCrashAtAnyStepOfACompactionOverSegmentsWithHolesReopensWithEveryKeptRecord() throws IOException {
        Path dir = tmp.resolve("live");
        HolesFixture f = new HolesFixture(17);
        TopicConfig config = HolesFixture.config(Compression.ZSTD);
        CrashingIo io = new CrashingIo();
        NavigableMap<Long, HolesFixture.Sent> before;
        NavigableMap<Long, HolesFixture.Sent> after;
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, f.clock, io)) {
            f.append(log, 3000, 1000);
            f.seal(log, "tail-1");
            assertThat(f.compact(log, config)).isPositive();
            long firstTail = f.sent.lastKey();
            f.append(log, 1500, 1000);
            f.seal(log, "tail-2");
            before = f.kept(firstTail);
            assertThat(readModel(log, f).keySet()).containsExactlyElementsOf(before.keySet());
            CompactionPlan plan = log.compaction().prepare(config, f.clock.millis(), true, () -> false);
            io.crashes = tmp.resolve("crashes");
            assertThat(log.applyCompaction(plan, true)).isPositive();
            io.crashes = null;
            after = f.kept(f.sent.lastKey());
            assertThat(recordsOf(log).keySet()).containsExactlyElementsOf(after.keySet());
        }
        assertThat(io.taken).as("steps of the compaction").hasSizeGreaterThan(4);
        f.fewerReads = true; // a dozen directories: the reads of each offset are left to the other tests
        for (Path crashed : io.taken) {
            NavigableMap<Long, HolesFixture.Sent> first = null;
            for (int open = 0; open < 2; open++) {
                try (PartitionLog log = PartitionLog.open("t", 0, crashed, config, f.clock, FileIo.SYSTEM)) {
                    assertThat(log.endOffset()).isEqualTo(f.sent.lastKey() + 1);
                    NavigableMap<Long, HolesFixture.Sent> read = readModel(log, f);
                    assertThat(read.keySet()).as("%s: every record kept", crashed).containsAll(after.keySet());
                    assertThat(before.keySet()).as("%s: no record removed before comes back", crashed)
                            .containsAll(read.keySet());
                    if (first == null) {
                        first = read;
                        f.assertReadsAsModel(log, read, new Random(open));
                    } else {
                        assertThat(read.keySet()).as("%s: reopened", crashed).isEqualTo(first.keySet());
                    }
                }
            }
        }
    }

    /** The records of {@code log}, each checked against what was sent at its offset. */
    private static NavigableMap<Long, HolesFixture.Sent> readModel(PartitionLog log, HolesFixture f) {
        NavigableMap<Long, HolesFixture.Sent> out = new TreeMap<>();
        for (KafkoRecord r : HolesFixture.scan(log, log.logStartOffset(), 5000, 1 << 20, null)) {
            Map.Entry<Long, HolesFixture.Sent> e = Map.entry(r.offset(), f.sent.get(r.offset()));
            HolesFixture.assertRecord(r, e);
            out.put(r.offset(), e.getValue());
        }
        return out;
    }

    private static NavigableMap<Long, KafkoRecord> recordsOf(PartitionLog log) {
        NavigableMap<Long, KafkoRecord> out = new TreeMap<>();
        for (KafkoRecord r : HolesFixture.scan(log, log.logStartOffset(), 5000, 1 << 20, null)) {
            out.put(r.offset(), r);
        }
        return out;
    }

    /**
     * A segment file named inside the offsets of a segment with holes (a stray copy) holds those offsets from its base
     * on, as FORMAT.md says: a read that starts in the segment with holes stops at that base, whatever it read up to
     * there, and a lookup by time finds none of its records past that base. Reads of as many records as the offsets
     * left before that base ran on past it, since holes make a frame's records fewer than its offsets: they returned
     * the overlapping segment's records there, then went on past the stray file's offsets.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"NONE", "ZSTD"})
    void aReadStartingInASegmentWithHolesStopsAtTheBaseOfAStrayFileNamedInsideIt(Compression compression)
            throws IOException {
        Path dir = tmp.resolve("p");
        HolesFixture f = new HolesFixture(29);
        TopicConfig config = HolesFixture.config(compression);
        NavigableMap<Long, HolesFixture.Sent> kept = compactedLog(f, dir, config);
        long base;
        long next;
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, f.clock, FileIo.SYSTEM)) {
            base = log.segments()[0].baseOffset();
            next = log.segments()[1].baseOffset();
        }
        // the stray file: a segment of its own from the middle of the first one's offsets to the next one's base
        long stray = base + (next - base) / 2;
        assertThat(kept.subMap(base, true, stray, false)).as("kept records before the stray's base").isNotEmpty();
        assertThat(kept.subMap(stray, true, next, false)).as("kept records the stray hides").isNotEmpty();
        List<OutgoingRecord> batch = new ArrayList<>();
        for (long o = stray; o < next; o++) {
            HolesFixture.Sent s = new HolesFixture.Sent("s" + o, ("stray-" + o).getBytes(),
                    f.clock.millis() - 5_000 + o % 7, Headers.empty());
            batch.add(new OutgoingRecord(s.key().getBytes(), s.value(), s.headers(), s.timestamp()));
            f.sent.put(o, s);
            kept.put(o, s);
        }
        try (FrameEncoder encoder = new FrameEncoder("t-0", Compression.NONE, TopicConfig.MAX_RECORD_BYTES_LIMIT)) {
            int len = encoder.encode(batch, stray, f.clock.millis());
            byte[] file = new byte[FrameFormat.SEGMENT_HEADER_SIZE + len];
            System.arraycopy(SegmentFiles.header(stray), 0, file, 0, FrameFormat.SEGMENT_HEADER_SIZE);
            System.arraycopy(encoder.buffer(), 0, file, FrameFormat.SEGMENT_HEADER_SIZE, len);
            Files.write(FileNames.segmentFile(dir, stray), file);
        }
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = PartitionLog.open("t", 0, dir, config, f.clock, FileIo.SYSTEM)) {
            assertThat(warnings.lines()).anyMatch(l -> l.contains("overlaps the next segment"));
            assertThat(log.segments()[1].baseOffset()).isEqualTo(stray);
            long[] at = new long[1];
            List<KafkoRecord> got = HolesFixture.readFrom(log, base, 100_000, 1 << 20, new VerifiedFrame(), at);
            assertThat(got).as("a read from the first segment's base").extracting(KafkoRecord::offset)
                    .containsExactlyElementsOf(kept.subMap(base, true, stray, false).keySet());
            assertThat(at[0]).as("the next offset").isEqualTo(stray);
            f.assertReadsAsModel(log, kept, new Random(2));
        }
    }

    /**
     * A segment with holes that an open takes for the active one (the newest segment file was lost): a clean open
     * trusts its index files once they check out, a reader following the writer copies its frames with holes with a
     * {@code pread} ({@link TailCopies}), appends go on after them, and an open after a crash scans it whole.
     */
    @Test
    void aSegmentWithHolesLeftLastByALostNewestSegmentTakesAppendsAndReadsFromTailCopies() throws IOException {
        Path dir = tmp.resolve("p");
        HolesFixture f = new HolesFixture(31);
        TopicConfig config = HolesFixture.config(Compression.NONE, 1 << 20);
        long tail;
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, f.clock, FileIo.SYSTEM)) {
            f.append(log, 8000, 3000);
            f.seal(log, "tail-1");
            assertThat(f.compact(log, config)).isPositive();
            assertThat(log.segments()).hasSize(2);
            assertThat(log.segments()[0].size()).as("enough for tail copies").isGreaterThan(64 << 10);
            tail = log.segments()[1].baseOffset();
        }
        // the newest segment lost, with its index files: its record goes
        Files.delete(FileNames.segmentFile(dir, tail));
        Files.delete(FileNames.indexFile(dir, tail));
        Files.delete(FileNames.timeIndexFile(dir, tail));
        f.sent.remove(tail);
        NavigableMap<Long, HolesFixture.Sent> kept = f.kept(tail);
        TopicConfig noAgeRoll = config.toBuilder().segmentAge(Duration.ofDays(365)).build();
        f.fewerReads = true;
        try (PartitionLog log = PartitionLog.open("t", 0, dir, noAgeRoll, f.clock, FileIo.SYSTEM)) {
            assertThat(log.segments()).hasSize(1);
            assertThat(log.endOffset()).isEqualTo(tail);
            VerifiedFrame v = new VerifiedFrame();
            assertThat(log.read(0, 5, 1 << 20, v).records()).hasSize(5);
            assertThat(v.copy).as("a pread copy of the segment being written").isNotNull();
            f.assertReadsAsModel(log, kept, new Random(3));
            f.append(log, 2000, 3000);
            assertThat(log.segments()).hasSize(1);
            kept = f.kept(tail);
            f.assertReadsAsModel(log, kept, new Random(4));
            Logs.copyDir(dir, tmp.resolve("crashed"));
        }
        try (CapturedWarnings warnings = CapturedWarnings.ofLogLoader();
                PartitionLog log = PartitionLog.open("t", 0, dir, noAgeRoll, f.clock, FileIo.SYSTEM)) {
            assertThat(warnings.lines()).as("a clean open").isEmpty();
            f.assertReadsAsModel(log, kept, new Random(5));
        }
        try (PartitionLog log = PartitionLog.open("t", 0, tmp.resolve("crashed"), noAgeRoll, f.clock,
                FileIo.SYSTEM)) {
            f.assertReadsAsModel(log, kept, new Random(6));
        }
    }

    @Test
    void sizesCountedFromSegmentsWithHolesAreTheirFilesAndRetentionBySizeDeletesThemOldestFirst() throws IOException {
        Path dir = tmp.resolve("p");
        HolesFixture f = new HolesFixture(23);
        TopicConfig config = HolesFixture.config(Compression.NONE);
        NavigableMap<Long, HolesFixture.Sent> kept = compactedLog(f, dir, config);
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, f.clock, FileIo.SYSTEM)) {
            Segment[] segs = log.segments();
            long total = 0;
            for (Segment s : segs) {
                total += s.size();
                if (s != segs[segs.length - 1]) {
                    assertThat(Files.size(s.path())).as("%s", s.path()).isEqualTo(s.size());
                }
            }
            assertThat(log.sizeBytes()).isEqualTo(total);
            // a limit the log holds without its first segment: that one goes, the others stay
            TopicConfig bySize = config.toBuilder().retentionBytes(total - segs[0].size()).build();
            log.reconfigure(bySize, true);
            assertThat(log.applyRetention()).isEqualTo(1);
            assertThat(log.logStartOffset()).isEqualTo(segs[1].baseOffset());
            assertThat(log.sizeBytes()).isEqualTo(total - segs[0].size());
            f.assertReadsAsModel(log, kept.tailMap(segs[1].baseOffset(), true), new Random(1));
        }
    }
}
