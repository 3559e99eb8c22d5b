package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Compression;
import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The frames a {@link CompactionWriter} writes at its edges: a frame's count at its largest, a file at its limit, and
 * the timestamps its holes and gap frames carry for the records they replace.
 */
class CompactionWriterEdgesTest {

    @TempDir
    Path dir;

    /** A kept record of {@code offset}, written at {@code timestamp}. */
    private static KafkoRecord record(long offset, long timestamp) {
        return record(offset, timestamp, new byte[] {2});
    }

    private static KafkoRecord record(long offset, long timestamp, byte[] value) {
        return new KafkoRecord() {
            public String topic() {
                return "t";
            }

            public int partition() {
                return 0;
            }

            public long offset() {
                return offset;
            }

            public long timestamp() {
                return timestamp;
            }

            public byte[] key() {
                return new byte[] {1};
            }

            public byte[] value() {
                return value;
            }

            public Headers headers() {
                return Headers.empty();
            }
        };
    }

    /** A kept record of {@code offset} that a run counts as {@code size} bytes (its encoded size). */
    private static KafkoRecord sized(long offset, long size) {
        for (int length = 0; length < size; length++) {
            byte[] value = new byte[length];
            if (FrameEncoder.encodedSize(new OutgoingRecord(new byte[] {1}, value, Headers.empty(), 7)) == size) {
                return record(offset, 7, value);
            }
        }
        throw new AssertionError("no record of " + size + " bytes");
    }

    /** Writes with {@code writes} into a new file of at most {@code limit} bytes; returns the file. */
    private Path write(String name, long limit, Consumer<CompactionWriter> writes) throws IOException {
        Path file = dir.resolve(name);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                FrameEncoder encoder = new FrameEncoder("t-0", Compression.NONE, 1 << 20)) {
            CompactionWriter out = new CompactionWriter(ch, encoder, 0, limit);
            writes.accept(out);
            assertThat(out.finish()).as("the size finish returns").isEqualTo(Files.size(file));
        }
        return file;
    }

    /**
     * Each frame of the file as "base+count first..max" ("gap base+count first..max" for a gap frame, "holes ..." for
     * one with holes).
     */
    private static List<String> frames(Path file) throws IOException {
        byte[] b = Files.readAllBytes(file);
        List<String> out = new ArrayList<>();
        for (int pos = FrameFormat.SEGMENT_HEADER_SIZE; pos < b.length; ) {
            byte[] h = Arrays.copyOfRange(b, pos, pos + FrameFormat.HEADER_SIZE);
            out.add((FrameFormat.isGap(h) ? "gap " : FrameFormat.hasHoles(h) ? "holes " : "")
                    + FrameFormat.getLong(h, FrameFormat.BASE_OFFSET_OFFSET) + "+"
                    + FrameFormat.getInt(h, FrameFormat.RECORD_COUNT_OFFSET) + " "
                    + FrameFormat.getLong(h, FrameFormat.FIRST_TIMESTAMP_OFFSET) + ".."
                    + FrameFormat.getLong(h, FrameFormat.MAX_TIMESTAMP_OFFSET));
            pos += FrameFormat.getInt(h, FrameFormat.LENGTH_OFFSET);
        }
        return out;
    }

    @Test
    void holesThatWouldTakeAFrameOnePastTheLargestCountEndItsRunBeforeTheNextKeptRecord() throws IOException {
        int max = Integer.MAX_VALUE;
        // the run from 0, holes to max - 1: a kept record at max would make the frame cover max + 1 offsets
        Path file = write("0.log.tmp", Integer.MAX_VALUE, out -> {
            out.keep(record(0, 10));
            out.gap(1, max - 1, 20, 30);
            out.keep(record(max, 40));
        });
        assertThat(frames(file)).containsExactly("0+1 10..10", "gap 1+2147483646 20..30", "2147483647+1 40..40");

        // one offset fewer: the kept record still fits the frame's count, at its largest
        file = write("1.log.tmp", Integer.MAX_VALUE, out -> {
            out.keep(record(0, 10));
            out.gap(1, max - 2, 20, 30);
            out.keep(record(max - 1L, 40));
        });
        assertThat(frames(file)).containsExactly("holes 0+2147483647 10..40");
    }

    @Test
    void aFileOfExactlyItsLimitIsWrittenAndOneByteLessIsTooLarge() throws IOException {
        Consumer<CompactionWriter> writes = out -> {
            out.keep(record(0, 10));
            out.gap(1, 3, 11, 13);
        };
        long size = Files.size(write("0.log.tmp", Integer.MAX_VALUE, writes));
        assertThat(frames(write("1.log.tmp", size, writes))).containsExactly("0+1 10..10", "gap 1+3 11..13");
        assertThatThrownBy(() -> write("2.log.tmp", size - 1, writes)).isInstanceOf(CompactionWriter.TooLarge.class)
                .hasMessageContaining("longer than " + (size - 1) + " bytes");
    }

    @Test
    void holesAndGapFramesCarryTheNewestTimestampOfTheRecordsTheyReplace() throws IOException {
        Path file = write("0.log.tmp", Integer.MAX_VALUE, out -> {
            out.gap(0, 2, 1, 2); // before the first kept record: a gap frame
            out.keep(record(2, 10));
            out.gap(3, 1, 500, 500); // between two kept records: a hole, newer than both
            out.gap(4, 1, 300, 300);
            out.keep(record(5, 20));
            out.gap(6, 2, 60, 70); // after the last: a gap frame of their own timestamps
            out.gap(8, 1, 65, 65);
        });
        assertThat(frames(file)).containsExactly("gap 0+2 1..2", "holes 2+4 10..500", "gap 6+3 60..70");
    }

    @Test
    void offsetsAnOldFrameHeldAsHolesTakeThatFramesNewestTimestamp() throws IOException {
        Path file = write("0.log.tmp", Integer.MAX_VALUE, out -> {
            out.frameRead(900);
            out.keep(record(0, 10));
            out.keep(record(4, 20)); // offsets 1 to 3 were a hole of the old frame
            out.frameRead(800);
            out.gap(9, 1, 30, 30); // offsets 5 to 8, a hole of this frame, then a removed record: one gap frame
        });
        assertThat(frames(file)).containsExactly("holes 0+5 10..900", "gap 5+5 800..800");
    }

    @Test
    void aRunEndsAtAFramesRecordLimitAndTheNextRecordBeginsAFrameOfItsOwn() throws IOException {
        Path file = write("0.log.tmp", Integer.MAX_VALUE, out -> {
            for (long o = 0; o <= Compaction.FRAME_RECORDS; o++) {
                out.keep(record(o, 7));
            }
        });
        assertThat(frames(file)).containsExactly("0+" + Compaction.FRAME_RECORDS + " 7..7",
                Compaction.FRAME_RECORDS + "+1 7..7");
    }
    @Test
    void aRunEndsOnceItsBytesReachAFramesExactlyCountingFourBytesForEachRecordWithHolesBeforeIt()
            throws IOException {
        int each = 1024;
        int records = Compaction.FRAME_BYTES / each;
        // records of 1 KiB back to back: the last one brings the run to exactly a frame's bytes and ends it
        Path file = write("0.log.tmp", Integer.MAX_VALUE, out -> {
            for (long o = 0; o <= records; o++) {
                out.keep(sized(o, each));
            }
        });
        assertThat(frames(file)).containsExactly("0+" + records + " 7..7", records + "+1 7..7");

        // a hole before each but the first: those records count their hole's four bytes too
        file = write("1.log.tmp", Integer.MAX_VALUE, out -> {
            out.keep(sized(0, each));
            for (long o = 2; o <= 2L * records; o += 2) {
                out.gap(o - 1, 1, 7, 7);
                out.keep(sized(o, each - 4));
            }
        });
        int offsets = 2 * records - 1;
        assertThat(frames(file)).containsExactly("holes 0+" + offsets + " 7..7", "gap " + offsets + "+1 7..7",
                (offsets + 1) + "+1 7..7");
    }

    @Test
    void holesFarFromTheFirstOffsetStayInTheirFrame() throws IOException {
        long base = 1L << 30; // a run's count is measured from its own base, not from offset 0
        Path file = write("0.log.tmp", Integer.MAX_VALUE, out -> {
            out.gap(0, (int) base, 1, 1);
            out.keep(record(base, 10));
            out.gap(base + 1, 5, 20, 20);
            out.keep(record(base + 6, 30));
        });
        assertThat(frames(file)).containsExactly("gap 0+" + base + " 1..1", "holes " + base + "+7 10..30");
    }

    @Test
    void gapFramesTakeUpToTheLargestCountAndNoMore() throws IOException {
        int max = Integer.MAX_VALUE;
        // removed offsets that add up to exactly the largest count: one gap frame
        Path file = write("0.log.tmp", Integer.MAX_VALUE, out -> {
            out.gap(0, max - 5, 1, 2);
            out.gap(max - 5L, 5, 3, 4);
        });
        assertThat(frames(file)).containsExactly("gap 0+" + max + " 1..4");

        // one offset more, from offset 0: a second gap frame
        file = write("1.log.tmp", Integer.MAX_VALUE, out -> {
            out.gap(0, max - 5, 1, 2);
            out.gap(max - 5L, 6, 3, 4);
        });
        assertThat(frames(file)).containsExactly("gap 0+" + (max - 5) + " 1..2", "gap " + (max - 5) + "+6 3..4");
    }
}
