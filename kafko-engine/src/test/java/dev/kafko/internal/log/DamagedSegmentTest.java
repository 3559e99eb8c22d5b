package dev.kafko.internal.log;

import static dev.kafko.internal.log.Logs.assertRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.CorruptLogException;
import dev.kafko.KafkoRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Damage to sealed segments and to segment headers: lost offsets fail to read, never skipped; the log still opens. */
class DamagedSegmentTest {

    private static final long SEED = 4_711L;
    private static final int VALUE = 100;
    private static final int RECORDS = 80;
    private static final TopicConfig CONFIG = TopicConfig.builder().segmentBytes(4096).indexIntervalBytes(256).build();

    @TempDir
    Path dir;

    private Path src;
    /** Base offsets of the segments written, oldest first. */
    private long[] bases;

    @BeforeEach
    void writeLog() {
        src = dir.resolve("src");
        try (PartitionLog log = Logs.open(src, CONFIG)) {
            Logs.appendFrames(log, RECORDS / 2, 2, VALUE);
            bases = Arrays.stream(log.segments()).mapToLong(Segment::baseOffset).toArray();
        }
        assertThat(bases.length).isGreaterThan(2);
    }

    @Test
    void sealedSegmentCutAtAFrameBoundaryFailsReadsOfTheLostOffsetsNamingFileAndRange() throws IOException {
        Path d = copy("cut");
        Path first = FileNames.segmentFile(d, 0);
        List<int[]> frames = frames(Files.readAllBytes(first)); // {position, base offset}
        int[] cutAt = frames.get(frames.size() / 2);
        Files.write(first, Arrays.copyOf(Files.readAllBytes(first), cutAt[0]));
        Files.delete(FileNames.indexFile(d, 0));
        Files.delete(FileNames.timeIndexFile(d, 0));
        try (PartitionLog log = Logs.open(d, CONFIG)) {
            assertThat(log.endOffset()).isEqualTo(RECORDS);
            for (long o = cutAt[1]; o < bases[1]; o++) {
                long offset = o;
                assertThatThrownBy(() -> log.read(offset, 10, 1 << 20)).isInstanceOf(CorruptLogException.class)
                        .hasMessageContaining(first.toString())
                        .hasMessageContaining("offsets " + cutAt[1] + " to " + (bases[1] - 1));
            }
            List<KafkoRecord> kept = readRange(log, 0, cutAt[1]);
            assertThat(kept).hasSize(cutAt[1]);
            assertRecord(kept.get(cutAt[1] - 1), cutAt[1] - 1, VALUE);
            assertThat(Logs.readAll(log, bases[1], 7, 1 << 20)).hasSize((int) (RECORDS - bases[1]));
        }
        assertThat(FileNames.indexFile(d, 0)).as("no index claims the lost offsets").doesNotExist();
    }

    @Test
    void aSegmentFileDeletedByHandIsReportedAsMissingOffsetsNotAsDamageToTheIntactOneBeforeIt() throws IOException {
        Path d = copy("deleted");
        Files.delete(FileNames.segmentFile(d, bases[1]));
        Files.delete(FileNames.indexFile(d, bases[1]));
        Files.delete(FileNames.timeIndexFile(d, bases[1]));
        List<String> warnings;
        try (CapturedWarnings captured = CapturedWarnings.ofLogLoader(); PartitionLog log = Logs.open(d, CONFIG)) {
            long missingTo = bases[2] - 1;
            assertThatThrownBy(() -> log.read(bases[1], 10, 1 << 20)).isInstanceOf(CorruptLogException.class)
                    .hasMessageContaining("offsets " + bases[1] + " to " + missingTo + " are missing from the log")
                    .hasMessageContaining("a segment file was lost");
            assertThat(readRange(log, 0, (int) bases[1])).hasSize((int) bases[1]);
            assertRecord(log.read(bases[2], 1, 1).records().get(0), bases[2], VALUE);
            warnings = captured.lines();
        }
        assertThat(warnings)
                .anySatisfy(m -> assertThat(m).contains("offsets " + bases[1] + " to " + (bases[2] - 1)
                        + " are missing: " + FileNames.segmentFile(d, 0) + " ends intact"))
                .noneSatisfy(m -> assertThat(m).contains("is damaged"));
    }

    @Test
    void aFrameRenumberedWithAValidCrcEndsTheReadBeforeItInsteadOfReturningItsOffsets() throws IOException {
        for (int read : new int[] {1, 3, 1000}) {
            Path d = copy("renumbered-" + read);
            Path first = FileNames.segmentFile(d, 0);
            byte[] b = Files.readAllBytes(first);
            int[] victim = frames(b).get(2); // {position, base offset}: offsets 4 and 5
            int len = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getInt(victim[0]);
            byte[] frame = Arrays.copyOfRange(b, victim[0], victim[0] + len);
            FrameFormat.putLong(frame, FrameFormat.BASE_OFFSET_OFFSET, 1000);
            LogBridge.fixCrc(frame);
            System.arraycopy(frame, 0, b, victim[0], len);
            Files.write(first, b);
            Files.delete(FileNames.indexFile(d, 0));
            Files.delete(FileNames.timeIndexFile(d, 0));
            try (PartitionLog log = Logs.openWithoutSyncs(d, CONFIG)) {
                // a reader walking the segment from its start stops before the renumbered frame, whatever
                // it asks for at a time, and is never handed offset 1000 between 3 and 6
                long next = 0;
                while (next < victim[1]) {
                    List<KafkoRecord> r = log.read(next, read, 1 << 20).records();
                    assertThat(r).isNotEmpty();
                    for (KafkoRecord rec : r) {
                        assertRecord(rec, next++, VALUE);
                    }
                }
                assertThat(next).isEqualTo(victim[1]);
                long at = next;
                assertThatThrownBy(() -> log.read(at, read, 1 << 20)).isInstanceOf(CorruptLogException.class)
                        .hasMessageContaining(first.toString());
                // the open reported the rest of the segment lost; the next segment reads as before
                assertRecord(log.read(bases[1], 1, 1).records().get(0), bases[1], VALUE);
            }
        }
    }

    @Test
    void sealedSegmentCutToItsHeaderFailsEveryReadOfItsOffsets() throws IOException {
        Path d = copy("header-only");
        Path first = FileNames.segmentFile(d, 0);
        Files.write(first, Arrays.copyOf(Files.readAllBytes(first), FrameFormat.SEGMENT_HEADER_SIZE));
        try (PartitionLog log = Logs.open(d, CONFIG)) {
            assertThatThrownBy(() -> log.read(0, 10, 1 << 20)).isInstanceOf(CorruptLogException.class)
                    .hasMessageContaining(first.toString()).hasMessageContaining("offsets 0 to " + (bases[1] - 1));
            assertRecord(log.read(bases[1], 1, 1).records().get(0), bases[1], VALUE);
        }
    }

    @Test
    void everyBitFlipOfAFrameHeaderInASealedSegmentFailsOrReadsExactlyTheRequestedOffset() throws IOException {
        System.out.println("seed " + SEED);
        Random rnd = new Random(SEED);
        byte[] pristine = Files.readAllBytes(FileNames.segmentFile(src, 0));
        List<int[]> frames = frames(pristine);
        int corrupt = 0;
        for (int round = 0; round < 1; round++) {
            int victim = frames.get(rnd.nextInt(frames.size()))[0];
            // length, CRC, magic, version, attributes, base offset, record count
            for (int bit = 0; bit < 24 * 8; bit++) {
                Path d = copy("flip-" + round + "-" + bit);
                Files.delete(d.resolve(FileNames.CLEAN_SHUTDOWN_FILE));
                byte[] b = pristine.clone();
                b[victim + bit / 8] ^= (byte) (1 << (bit % 8));
                Files.write(FileNames.segmentFile(d, 0), b);
                corrupt += readEveryOffset(d, bases[1] + 1);
            }
        }
        System.out.println("frame header flips: " + corrupt + " offsets reported corrupt");
        assertThat(corrupt).isPositive();
    }

    @Test
    void everyBitFlipOfASealedSegmentHeaderLeavesTheRestOfThePartitionReadable() throws IOException {
        Path sealed = FileNames.segmentFile(src, bases[1]);
        byte[] pristine = Files.readAllBytes(sealed);
        for (int bit = 0; bit < FrameFormat.SEGMENT_HEADER_SIZE * 8; bit++) {
            Path d = copy("sealed-header-" + bit);
            byte[] b = pristine.clone();
            b[bit / 8] ^= (byte) (1 << (bit % 8));
            Files.write(FileNames.segmentFile(d, bases[1]), b);
            boolean reserved = bit / 8 == 6 || bit / 8 == 7;
            try (PartitionLog log = Logs.openWithoutSyncs(d, CONFIG)) {
                assertThat(log.endOffset()).isEqualTo(RECORDS);
                assertThat(readRange(log, 0, bases[1])).hasSize((int) bases[1]);
                assertThat(Logs.readAll(log, bases[2], 5, 1 << 20)).hasSize((int) (RECORDS - bases[2]));
                for (long o = bases[1]; o < bases[2]; o++) {
                    long offset = o;
                    if (reserved) {
                        assertRecord(log.read(offset, 1, 1).records().get(0), offset, VALUE);
                    } else {
                        assertThatThrownBy(() -> log.read(offset, 1, 1)).as("flipped header bit %d", bit)
                                .isInstanceOf(CorruptLogException.class).hasMessageContaining(sealed.getFileName()
                                        .toString()).hasMessageContaining("segment header");
                    }
                }
            }
        }
    }

    @Test
    void everyBitFlipOfTheActiveSegmentHeaderIsRepairedDurablyFromTheFileName() throws IOException {
        long activeBase = bases[bases.length - 1];
        byte[] pristine = Files.readAllBytes(FileNames.segmentFile(src, activeBase));
        for (int bit = 0; bit < FrameFormat.SEGMENT_HEADER_SIZE * 8; bit++) {
            Path d = copy("active-header-" + bit);
            Path active = FileNames.segmentFile(d, activeBase);
            byte[] b = pristine.clone();
            b[bit / 8] ^= (byte) (1 << (bit % 8));
            Files.write(active, b);
            try (PartitionLog log = Logs.openWithoutSyncs(d, CONFIG)) {
                assertThat(log.endOffset()).isEqualTo(RECORDS);
                assertThat(Arrays.copyOf(Files.readAllBytes(active), FrameFormat.SEGMENT_HEADER_SIZE))
                        .as("header on disk after open, bit %d flipped", bit)
                        .isEqualTo(bit / 8 == 6 || bit / 8 == 7 ? Arrays.copyOf(b, FrameFormat.SEGMENT_HEADER_SIZE)
                                : SegmentFiles.header(activeBase));
                log.append(Logs.record(RECORDS, VALUE));
                List<KafkoRecord> all = Logs.readAll(log);
                assertThat(all).hasSize(RECORDS + 1);
                assertRecord(all.get(RECORDS), RECORDS, VALUE);
            }
        }
    }

    @Test
    void aZeroedHeaderOfTheActiveSegmentIsRewrittenAndItsFramesKept() throws IOException {
        long activeBase = bases[bases.length - 1];
        Path active = FileNames.segmentFile(src, activeBase);
        byte[] b = Files.readAllBytes(active);
        Arrays.fill(b, 0, FrameFormat.SEGMENT_HEADER_SIZE, (byte) 0);
        Files.write(active, b);
        try (PartitionLog log = Logs.open(src, CONFIG)) {
            assertThat(log.endOffset()).as("every intact frame behind the zeroed header kept").isEqualTo(RECORDS);
            assertThat(Arrays.copyOf(Files.readAllBytes(active), FrameFormat.SEGMENT_HEADER_SIZE))
                    .isEqualTo(SegmentFiles.header(activeBase));
            List<KafkoRecord> all = Logs.readAll(log);
            assertThat(all).hasSize(RECORDS);
            assertRecord(all.get(RECORDS - 1), RECORDS - 1, VALUE);
        }
    }

    @Test
    void activeSegmentWithoutAFrameGetsItsDamagedHeaderRewritten() throws IOException {
        // a crash right after a roll left the new segment holding only its header, and one bit of it flipped
        Path active = FileNames.segmentFile(src, RECORDS);
        byte[] header = SegmentFiles.header(RECORDS);
        header[3] ^= 0x10;
        Files.write(active, header);
        Files.delete(src.resolve(FileNames.CLEAN_SHUTDOWN_FILE));
        try (PartitionLog log = Logs.open(src, CONFIG)) {
            assertThat(log.endOffset()).isEqualTo(RECORDS);
            assertThat(Files.readAllBytes(active)).isEqualTo(SegmentFiles.header(RECORDS));
            log.append(Logs.record(RECORDS, VALUE));
            assertRecord(log.read(RECORDS, 1, 1).records().get(0), RECORDS, VALUE);
            assertThat(Logs.readAll(log)).hasSize(RECORDS + 1);
        }
    }

    @Test
    void activeSegmentWithADamagedHeaderAndADamagedFirstFrameRefusesToOpen() throws IOException {
        long activeBase = bases[bases.length - 1];
        Path active = FileNames.segmentFile(src, activeBase);
        byte[] b = Files.readAllBytes(active);
        b[9] ^= 0x01; // base offset in the segment header
        b[FrameFormat.SEGMENT_HEADER_SIZE + 12] ^= 0x01; // base offset in the first frame's header
        Files.write(active, b);
        assertThatThrownBy(() -> Logs.open(src, CONFIG)).isInstanceOf(CorruptLogException.class)
                .hasMessageContaining(active.toString()).hasMessageContaining("segment header");
    }

    /** Reads {@code [from, to)} three records at a time, each read starting exactly where asked. */
    private static List<KafkoRecord> readRange(PartitionLog log, long from, long to) {
        List<KafkoRecord> out = new ArrayList<>();
        while (from < to) {
            List<KafkoRecord> r = log.read(from, (int) Math.min(3, to - from), 1 << 20).records();
            assertThat(r).isNotEmpty();
            assertThat(r.get(0).offset()).isEqualTo(from);
            r.forEach(rec -> assertRecord(rec, rec.offset(), VALUE));
            out.addAll(r);
            from += r.size();
        }
        return out;
    }

    /**
     * Reads every offset below {@code to} one by one; returns how many failed. Every record returned
     * starts at the offset asked for.
     */
    private static int readEveryOffset(Path d, long to) {
        int corrupt = 0;
        try (PartitionLog log = Logs.openWithoutSyncs(d, CONFIG)) {
            for (long o = log.logStartOffset(); o < to; o++) {
                try {
                    ReadResult r = log.read(o, 1000, 1 << 20);
                    assertThat(r.records()).as("a read at %d below the end returns records", o).isNotEmpty();
                    assertThat(r.records().get(0).offset()).as("first offset of a read at %d", o).isEqualTo(o);
                    for (KafkoRecord rec : r.records()) {
                        assertRecord(rec, rec.offset(), VALUE);
                    }
                } catch (CorruptLogException e) {
                    corrupt++;
                }
            }
        }
        return corrupt;
    }

    /** A frame damaged inside a sealed segment: the warning names where its frames end and the offsets lost. */
    @Test
    void aDamagedFrameIsWarnedOfWithWhereTheFramesEndAndTheOffsetsLost() throws IOException {
        Path d = copy("flipped");
        Path first = FileNames.segmentFile(d, 0);
        byte[] b = Files.readAllBytes(first);
        int[] victim = frames(b).get(3); // {position, base offset}
        b[victim[0] + FrameFormat.BASE_OFFSET_OFFSET + 20] ^= 0x55; // inside the frame, past its length
        Files.write(first, b);
        Files.delete(FileNames.indexFile(d, 0));
        Files.delete(FileNames.timeIndexFile(d, 0));
        List<String> warnings;
        try (CapturedWarnings captured = CapturedWarnings.ofLogLoader(); PartitionLog log = Logs.open(d, CONFIG)) {
            assertThat(readRange(log, 0, victim[1])).hasSize(victim[1]);
            warnings = captured.lines();
        }
        assertThat(warnings).anySatisfy(m -> assertThat(m)
                .contains(first + " is damaged: its frames end at position " + victim[0] + " and offset " + victim[1]
                        + ", but the next segment begins at offset " + bases[1] + " (")
                .contains("); offsets " + victim[1] + " to " + (bases[1] - 1) + " are lost (reads of them fail with"
                        + " CorruptLogException)"));
        assertThat(warnings).noneSatisfy(m -> assertThat(m).contains("after its last frame"));
    }

    /** Bytes after the last frame of a sealed segment that still ends where the next begins: ignored, nothing lost. */
    @Test
    void bytesAfterTheLastFrameAreWarnedOfWithTheirCountAndPositionAndLoseNoOffset() throws IOException {
        Path d = copy("trailing");
        Path first = FileNames.segmentFile(d, 0);
        byte[] b = Files.readAllBytes(first);
        byte[] longer = Arrays.copyOf(b, b.length + 11);
        Arrays.fill(longer, b.length, longer.length, (byte) 0x7f);
        Files.write(first, longer);
        Files.delete(FileNames.indexFile(d, 0));
        Files.delete(FileNames.timeIndexFile(d, 0));
        List<String> warnings;
        try (CapturedWarnings captured = CapturedWarnings.ofLogLoader(); PartitionLog log = Logs.open(d, CONFIG)) {
            assertThat(readRange(log, 0, (int) bases[1])).hasSize((int) bases[1]);
            assertRecord(log.read(bases[1] - 1, 1, 1 << 20).records().get(0), bases[1] - 1, VALUE);
            warnings = captured.lines();
        }
        assertThat(warnings).anySatisfy(m -> assertThat(m)
                .contains(first + " holds 11 bytes after its last frame at position " + b.length + " (")
                .contains("; they are ignored, and no offset is lost"));
        assertThat(warnings).noneSatisfy(m -> assertThat(m).containsAnyOf("is damaged", "overlaps", "are missing"));
    }

    /** A segment file named inside the one before it: the warning names the offsets read from it instead. */
    @Test
    void aSegmentNamedInsideTheOneBeforeItIsWarnedOfWithTheOffsetsItTakesOver() throws IOException {
        Path d = copy("overlap");
        byte[] b = Files.readAllBytes(FileNames.segmentFile(d, 0));
        int[] from = frames(b).get(4); // {position, base offset}
        byte[] stray = new byte[FrameFormat.SEGMENT_HEADER_SIZE + b.length - from[0]];
        System.arraycopy(SegmentFiles.header(from[1]), 0, stray, 0, FrameFormat.SEGMENT_HEADER_SIZE);
        System.arraycopy(b, from[0], stray, FrameFormat.SEGMENT_HEADER_SIZE, b.length - from[0]);
        Files.write(FileNames.segmentFile(d, from[1]), stray); // the same frames: every offset still reads
        List<String> warnings;
        try (CapturedWarnings captured = CapturedWarnings.ofLogLoader(); PartitionLog log = Logs.open(d, CONFIG)) {
            assertThat(readRange(log, 0, (int) bases[1])).hasSize((int) bases[1]);
            warnings = captured.lines();
        }
        assertThat(warnings).anySatisfy(m -> assertThat(m)
                .contains(FileNames.segmentFile(d, 0) + " overlaps the next segment: its frames run to offset "
                        + bases[1] + ", past the next segment's base offset " + from[1] + "; its offsets " + from[1]
                        + " to " + (bases[1] - 1) + " are not read from it but from the next segment"));
    }

    private Path copy(String name) throws IOException {
        Path d = dir.resolve(name);
        Logs.copyDir(src, d);
        return d;
    }

    /** The {position, base offset} of every frame of a segment file. */
    private static List<int[]> frames(byte[] segment) {
        ByteBuffer b = ByteBuffer.wrap(segment).order(ByteOrder.LITTLE_ENDIAN);
        List<int[]> frames = new ArrayList<>();
        int pos = FrameFormat.SEGMENT_HEADER_SIZE;
        while (pos < segment.length) {
            frames.add(new int[] {pos, (int) b.getLong(pos + FrameFormat.BASE_OFFSET_OFFSET)});
            pos += b.getInt(pos);
        }
        assertThat(frames).hasSizeGreaterThan(3);
        return frames;
    }
}
