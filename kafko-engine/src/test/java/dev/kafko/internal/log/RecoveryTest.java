package dev.kafko.internal.log;

import static dev.kafko.internal.log.Logs.assertRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Compression;
import dev.kafko.CorruptLogException;
import dev.kafko.KafkoRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FaultyFileIo;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class RecoveryTest {

    private static final long SEED = 7_331L;
    private static final int VALUE = 30;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"NONE", "ZSTD"})
    void truncatingTheLastFramesAtEveryByteRecoversExactlyTheCompletePrefix(Compression codec) throws IOException {
        TopicConfig config = TopicConfig.builder().compression(codec).segmentBytes(64 * 1024).build();
        Path src = dir.resolve("src");
        List<long[]> frames = new ArrayList<>(); // {end position, end offset}
        try (PartitionLog log = Logs.open(src, config)) {
            for (int f = 0; f < 12; f++) {
                long base = log.endOffset();
                log.append(Logs.batch(base, 1 + f % 3, VALUE));
                frames.add(new long[] {log.sizeBytes(), log.endOffset()});
            }
        }
        byte[] segment = Files.readAllBytes(FileNames.segmentFile(src, 0));
        assertThat((long) segment.length).isEqualTo(frames.get(frames.size() - 1)[0]);
        long firstCut = frames.get(frames.size() - 3)[0];
        for (long cut = firstCut; cut <= segment.length; cut++) {
            Path d = dir.resolve("cut" + cut);
            Files.createDirectories(d);
            Files.write(FileNames.segmentFile(d, 0), java.util.Arrays.copyOf(segment, (int) cut));
            long expectedEnd = 0;
            for (long[] f : frames) {
                if (f[0] <= cut) {
                    expectedEnd = f[1];
                }
            }
            try (PartitionLog log = Logs.openWithoutSyncs(d, config)) {
                assertThat(log.endOffset()).as("end after a cut at byte %d", cut).isEqualTo(expectedEnd);
                List<KafkoRecord> all = Logs.readAll(log);
                for (int i = 0; i < all.size(); i++) {
                    assertRecord(all.get(i), i, VALUE);
                }
                if (cut % 5 == 0 || cut == segment.length) {
                    // the recovered log takes appends right after the kept prefix
                    log.append(Logs.record(expectedEnd, VALUE));
                    assertRecord(log.read(expectedEnd, 1, 1).records().get(0), expectedEnd, VALUE);
                }
            }
        }
    }

    @Test
    void crashCopyOfALiveLogKeepsEveryAppendedRecord() throws IOException {
        TopicConfig config = TopicConfig.builder().segmentBytes(64 * 1024).build();
        Path live = dir.resolve("live");
        Path crashed = dir.resolve("crashed");
        try (PartitionLog log = Logs.open(live, config)) {
            Logs.appendFrames(log, 300, 3, 100);
            // as kill -9 leaves it: no marker, the active segment followed by zeros allocated ahead
            Logs.copyDir(live, crashed);
            assertThat(Files.exists(crashed.resolve(FileNames.CLEAN_SHUTDOWN_FILE))).isFalse();
            assertThat(Files.size(FileNames.segmentFile(crashed, log.segments()[log.segmentCount() - 1].baseOffset())))
                    .isGreaterThan(log.segments()[log.segmentCount() - 1].size());
        }
        try (PartitionLog log = Logs.open(crashed, config)) {
            assertThat(log.endOffset()).isEqualTo(900);
            List<KafkoRecord> all = Logs.readAll(log);
            for (int i = 0; i < 900; i++) {
                assertRecord(all.get(i), i, 100);
            }
        }
    }

    @Test
    void aTornLastFrameIsReportedApartFromTheZerosAllocatedAheadOfIt() throws IOException {
        Path live = dir.resolve("live");
        Path crashed = dir.resolve("crashed");
        try (PartitionLog log = Logs.open(live, TopicConfig.DEFAULTS)) {
            Logs.appendFrames(log, 20, 2, 50);
            Logs.copyDir(live, crashed);
        }
        Path seg = FileNames.segmentFile(crashed, 0);
        byte[] bytes = Files.readAllBytes(seg);
        int last = bytes.length - 1;
        while (bytes[last] == 0) {
            last--;
        }
        bytes[last] ^= 0x10; // the last frame's last byte: its CRC no longer matches
        Files.write(seg, bytes);
        List<String> warnings = new ArrayList<>();
        java.util.logging.Logger jul = java.util.logging.Logger.getLogger(LogLoader.class.getName());
        java.util.logging.Handler h = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                if (r.getLevel() == java.util.logging.Level.WARNING) {
                    warnings.add(java.text.MessageFormat.format(r.getMessage(), r.getParameters()));
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        java.util.logging.Level level = jul.getLevel();
        jul.setLevel(java.util.logging.Level.ALL); // other suites quiet the engine's loggers for the whole JVM
        jul.addHandler(h);
        try (PartitionLog log = Logs.open(crashed, TopicConfig.DEFAULTS)) {
            assertThat(log.endOffset()).isEqualTo(38);
        } finally {
            jul.removeHandler(h);
            jul.setLevel(level);
        }
        int zeros = bytes.length - last - 1;
        assertThat(zeros).as("zeros were allocated ahead").isPositive();
        assertThat(warnings).singleElement().satisfies(w -> assertThat(w).contains("holding a CRC32C mismatch")
                .contains("the " + zeros
                        + " bytes after them were zeros allocated ahead"));
    }

    @Test
    void cleanMarkerSkipsTheScanWhileAnUncleanOpenCutsACorruptTail() throws IOException {
        Path a = dir.resolve("a");
        try (PartitionLog log = Logs.open(a, TopicConfig.DEFAULTS)) {
            Logs.appendFrames(log, 5, 2, 50);
        }
        Path seg = FileNames.segmentFile(a, 0);
        byte[] bytes = Files.readAllBytes(seg);
        bytes[bytes.length - 3] ^= 0x10; // inside the value of the last record
        Files.write(seg, bytes);
        Path b = dir.resolve("b");
        Logs.copyDir(a, b);
        Files.delete(b.resolve(FileNames.CLEAN_SHUTDOWN_FILE));

        try (PartitionLog clean = Logs.open(a, TopicConfig.DEFAULTS)) {
            // the marker vouched for the file, so no scan ran: the damage surfaces when read
            assertThat(clean.endOffset()).isEqualTo(10);
            assertThat(Files.exists(a.resolve(FileNames.CLEAN_SHUTDOWN_FILE))).as("kept until the first append")
                    .isTrue();
            assertThat(clean.read(0, 8, 1 << 20).records()).hasSize(8);
            assertThatThrownBy(() -> clean.read(8, 2, 1 << 20)).isInstanceOf(CorruptLogException.class)
                    .hasMessageContaining(seg.getFileName().toString()).hasMessageContaining("position");
        }
        try (PartitionLog unclean = Logs.open(b, TopicConfig.DEFAULTS)) {
            assertThat(unclean.endOffset()).isEqualTo(8);
            assertThat(Logs.readAll(unclean)).hasSize(8);
        }
    }

    @Test
    void cleanMarkerStaysUntilTheFirstAppendSoAnIdleOpenAndCloseWriteNothing() throws IOException {
        Path marker = dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE);
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            Logs.appendFrames(log, 3, 2, 50);
        }
        FaultyFileIo io = new FaultyFileIo();
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, TopicConfig.DEFAULTS, Clock.systemUTC(), io)) {
            assertThat(log.endOffset()).isEqualTo(6);
            assertThat(Logs.readAll(log)).hasSize(6);
            log.applyRetention();
        }
        assertThat(io.writes()).as("writes of an idle open and close").isZero();
        assertThat(io.forces()).as("fsyncs of an idle open and close").isZero();
        assertThat(io.moves()).isZero();
        assertThat(Files.exists(marker)).isTrue();

        Path crashed = dir.resolve("crashed");
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, TopicConfig.DEFAULTS, Clock.systemUTC(), io)) {
            log.append(Logs.record(6, 50));
            // gone, durably, before the first byte was written: a crash from here on reopens with a scan
            assertThat(Files.exists(marker)).isFalse();
            assertThat(io.directorySyncs()).isEqualTo(1);
            Files.createDirectories(crashed);
            for (String f : new String[] {"00000000000000000000.log", "00000000000000000000.index",
                    "00000000000000000000.timeindex"}) {
                Files.copy(dir.resolve(f), crashed.resolve(f));
            }
        }
        try (PartitionLog log = Logs.open(crashed, TopicConfig.DEFAULTS)) {
            assertThat(log.endOffset()).isEqualTo(7);
            List<KafkoRecord> all = Logs.readAll(log);
            assertRecord(all.get(6), 6, 50);
        }
    }

    @Test
    void closeAfterAppendsCostsOneSegmentFsyncAndOneDirectoryFsync() throws IOException {
        FaultyFileIo io = new FaultyFileIo();
        PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, TopicConfig.DEFAULTS, Clock.systemUTC(), io);
        Logs.appendFrames(log, 4, 2, 50);
        long forces = io.forces();
        long dirSyncs = io.directorySyncs();
        log.close();
        assertThat(io.forces() - forces).isEqualTo(2);
        assertThat(io.directorySyncs() - dirSyncs).isEqualTo(1);
        assertThat(Files.exists(dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE))).isTrue();
        assertThat(IndexFiles.load(FileIo.SYSTEM, dir, 0)).isNotNull();
        try (PartitionLog reopened = Logs.open(dir, TopicConfig.DEFAULTS)) {
            assertThat(reopened.endOffset()).isEqualTo(8);
        }
    }

    @Test
    void lostOrTornIndexFilesBehindACleanMarkerCostAScanNotARecord() throws IOException {
        try (PartitionLog log = Logs.open(dir, TopicConfig.builder().indexIntervalBytes(64).build())) {
            Logs.appendFrames(log, 20, 2, 50);
        }
        // as a power loss may leave index files that were renamed but never fsynced
        Files.write(FileNames.indexFile(dir, 0), new byte[0]);
        Files.write(FileNames.timeIndexFile(dir, 0), new byte[30]);
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            assertThat(log.endOffset()).isEqualTo(40);
            assertThat(Files.exists(dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE))).as("no longer true").isFalse();
            List<KafkoRecord> all = Logs.readAll(log);
            for (int i = 0; i < 40; i++) {
                assertRecord(all.get(i), i, 50);
            }
        }
    }

    @Test
    void corruptFrameInsideASealedSegmentIsReportedWhenReadAndNeverCut() throws IOException {
        TopicConfig config = TopicConfig.builder().segmentBytes(4096).build();
        try (PartitionLog log = Logs.open(dir, config)) {
            Logs.appendFrames(log, 40, 2, 100);
            assertThat(log.segmentCount()).isGreaterThan(2);
        }
        Files.delete(dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE));
        Path first = FileNames.segmentFile(dir, 0);
        byte[] b = Files.readAllBytes(first);
        int victim = b.length - 20; // inside the value of the last record of the first segment
        b[victim] ^= 0x40;
        Files.write(first, b);
        try (PartitionLog log = Logs.open(dir, config)) {
            assertThat(log.endOffset()).as("a sealed segment is never cut").isEqualTo(80);
            Segment[] segs = log.segments();
            long lastOfFirst = segs[1].baseOffset() - 1;
            assertThat(Files.size(first)).isEqualTo(b.length);
            assertThatThrownBy(() -> log.read(lastOfFirst, 1, 1)).isInstanceOf(CorruptLogException.class)
                    .hasMessageContaining(first.toString()).hasMessageContaining("position");
            assertRecord(log.read(0, 1, 1).records().get(0), 0, 100);
            assertRecord(log.read(segs[1].baseOffset(), 1, 1).records().get(0), segs[1].baseOffset(), 100);
        }
    }

    @Test
    void missingOrDamagedIndexesAreRebuiltOnOpen() throws IOException {
        TopicConfig config = TopicConfig.builder().segmentBytes(8 * 1024).indexIntervalBytes(512).build();
        List<OffsetIndex> before = new ArrayList<>();
        try (PartitionLog log = Logs.open(dir, config)) {
            Logs.appendFrames(log, 200, 2, 60);
            assertThat(log.segmentCount()).isGreaterThan(4);
            for (Segment s : log.segments()) {
                before.add(s.index());
            }
        }
        long[] bases = bases();
        Files.delete(FileNames.indexFile(dir, bases[0]));
        flipByte(FileNames.indexFile(dir, bases[1]), 50);
        Files.write(FileNames.timeIndexFile(dir, bases[2]), new byte[7]);
        flipByte(FileNames.indexFile(dir, bases[bases.length - 1]), 48);
        try (PartitionLog log = Logs.open(dir, config)) {
            Segment[] segs = log.segments();
            for (int i = 0; i < segs.length; i++) {
                assertThat(segs[i].index().sameEntries(before.get(i))).as("index of segment %d", i).isTrue();
                assertThat(segs[i].index().count()).isGreaterThan(1);
            }
            List<KafkoRecord> all = Logs.readAll(log, 0, 7, 300);
            assertThat(all).hasSize(400);
            assertRecord(all.get(399), 399, 60);
        }
        // the rebuilt files were written back and now pass their checks
        for (long b : bases) {
            assertThat(IndexFiles.load(FileIo.SYSTEM, dir, b)).isNotNull();
        }
    }

    @Test
    void randomBitFlipsNeverYieldAWrongRecord() throws IOException {
        System.out.println("seed " + SEED);
        Random rnd = new Random(SEED);
        TopicConfig config = TopicConfig.builder().segmentBytes(4096).indexIntervalBytes(256).build();
        Path src = dir.resolve("src");
        try (PartitionLog log = Logs.open(src, config)) {
            Logs.appendFrames(log, 60, 2, 40);
        }
        List<Path> files;
        try (Stream<Path> s = Files.list(src)) {
            files = s.filter(p -> !p.getFileName().toString().equals(FileNames.CLEAN_SHUTDOWN_FILE)).sorted().toList();
        }
        int corrupt = 0;
        int shorter = 0;
        for (int round = 0; round < 60; round++) {
            Path d = dir.resolve("r" + round);
            Logs.copyDir(src, d);
            if (round % 2 == 0) {
                Files.delete(d.resolve(FileNames.CLEAN_SHUTDOWN_FILE));
            }
            Path victim = d.resolve(files.get(rnd.nextInt(files.size())).getFileName());
            byte[] b = Files.readAllBytes(victim);
            b[rnd.nextInt(b.length)] ^= (byte) (1 << rnd.nextInt(8));
            Files.write(victim, b);
            try (PartitionLog log = Logs.openWithoutSyncs(d, config)) {
                long next = log.logStartOffset();
                try {
                    while (next < log.endOffset()) {
                        ReadResult r = log.read(next, 5, 500);
                        for (KafkoRecord rec : r.records()) {
                            assertRecord(rec, rec.offset(), 40);
                        }
                        assertThat(r.records()).isNotEmpty();
                        assertThat(r.records().get(0).offset()).isEqualTo(next);
                        next = r.nextOffset();
                    }
                    if (log.endOffset() < 120) {
                        shorter++;
                    }
                } catch (CorruptLogException e) {
                    corrupt++;
                }
            } catch (CorruptLogException e) {
                corrupt++;
            }
        }
        System.out.println("bit flips: " + corrupt + " reported corrupt, " + shorter + " recovered to a shorter prefix");
        assertThat(corrupt + shorter).isPositive();
    }

    @Test
    void emptySegmentFileLeftByACrashDuringARollIsReinitialised() throws IOException {
        TopicConfig config = TopicConfig.builder().segmentBytes(4096).build();
        long end;
        try (PartitionLog log = Logs.open(dir, config)) {
            Logs.appendFrames(log, 20, 2, 100);
            end = log.endOffset();
        }
        Files.delete(dir.resolve(FileNames.CLEAN_SHUTDOWN_FILE));
        Files.write(FileNames.segmentFile(dir, end), new byte[5]);
        try (PartitionLog log = Logs.open(dir, config)) {
            assertThat(log.endOffset()).isEqualTo(end);
            log.append(Logs.record(end, 100));
            assertRecord(log.read(end, 1, 1).records().get(0), end, 100);
            assertThat(Logs.readAll(log)).hasSize((int) end + 1);
        }
    }

    private long[] bases() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(FileNames::isSegmentFile)
                    .mapToLong(FileNames::baseOffsetOf).sorted().toArray();
        }
    }

    private static void flipByte(Path file, int pos) throws IOException {
        byte[] b = Files.readAllBytes(file);
        b[pos] ^= 0x01;
        Files.write(file, b);
    }
}
