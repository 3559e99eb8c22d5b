package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Compression;
import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The frames a compaction writes where removed offsets are too many for one frame's count. */
class CompactionWriterTest {

    @TempDir
    Path dir;

    /** A kept record of {@code offset}. */
    private static KafkoRecord record(long offset) {
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
                return 1000 + offset;
            }

            public byte[] key() {
                return new byte[] {1};
            }

            public byte[] value() {
                return new byte[] {2};
            }

            public Headers headers() {
                return Headers.empty();
            }
        };
    }

    /** Each frame of the file as "base+count" ("gap base+count" for a gap frame). */
    private static List<String> frames(Path file) throws IOException {
        byte[] b = Files.readAllBytes(file);
        List<String> out = new ArrayList<>();
        for (int pos = FrameFormat.SEGMENT_HEADER_SIZE; pos < b.length; ) {
            byte[] h = java.util.Arrays.copyOfRange(b, pos, pos + FrameFormat.HEADER_SIZE);
            out.add((FrameFormat.isGap(h) ? "gap " : "") + FrameFormat.getLong(h, FrameFormat.BASE_OFFSET_OFFSET) + "+"
                    + FrameFormat.getInt(h, FrameFormat.RECORD_COUNT_OFFSET));
            pos += FrameFormat.getInt(h, FrameFormat.LENGTH_OFFSET);
        }
        return out;
    }

    @Test
    void removedOffsetsBeyondAFramesCountEndItsRunAndGoInGapFramesThatStartWhereTheRunEnds() throws IOException {
        Path file = dir.resolve("0.log.tmp");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                FrameEncoder encoder = new FrameEncoder("t-0", Compression.NONE, 1 << 20)) {
            CompactionWriter out = new CompactionWriter(ch, encoder, 0, Integer.MAX_VALUE);
            out.keep(record(0));
            out.gap(1, 2_000_000_000, 5, 5); // a hole, if a kept record came next in this frame
            out.gap(2_000_000_001, 500_000_000, 6, 6); // too many for the frame: the run ends
            out.keep(record(2_500_000_001L));
            out.finish();
        }
        assertThat(frames(file)).containsExactly("0+1", "gap 1+2000000000", "gap 2000000001+500000000",
                "2500000001+1");
    }
}
