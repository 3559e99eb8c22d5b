package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.CorruptLogException;
import dev.kafko.Headers;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Timestamp lookups ({@code offsetsForTimes}, {@code seekToTimestamp}) at edges no other test reached (found by
 * mutation testing, B116): damage that a clean open does not look for fails the lookup with
 * {@code CorruptLogException} as a read of the same offsets does, never an answer from data it could not check
 * (its {@code checkHeader()} and {@code verifyCrc()} calls could be removed unnoticed); and a lookup racing an
 * append, which sees the segment's new newest timestamp but not yet the frame that holds it, finds nothing in that
 * segment rather than reading past its published end.
 */
class TimestampLookupEdgesTest {

    private static final int VALUE = 100;
    private static final int RECORDS = 160;
    private static final long T0 = 1_000_000L;
    private static final TopicConfig CONFIG = TopicConfig.builder().segmentBytes(4096).indexIntervalBytes(256).build();

    @TempDir
    Path dir;

    /** Base offsets of the segments written, oldest first. */
    private long[] bases;

    /** Records of 2 a frame, each with timestamp {@code T0 + its offset}, over several segments; closed cleanly. */
    @BeforeEach
    void writeLog() {
        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            for (long o = 0; o < RECORDS; o += 2) {
                List<OutgoingRecord> batch = new ArrayList<>();
                for (long r = o; r < o + 2; r++) {
                    batch.add(new OutgoingRecord(("k" + r).getBytes(StandardCharsets.UTF_8), Logs.value(r, VALUE),
                            Headers.empty(), T0 + r));
                }
                log.append(batch);
            }
            bases = Arrays.stream(log.segments()).mapToLong(Segment::baseOffset).toArray();
        }
        assertThat(bases.length).isGreaterThan(3);
    }

    @Test
    void aTimestampLookupIntoASealedSegmentWithADamagedHeaderFailsAsItsReadsDo() throws IOException {
        Path sealed = FileNames.segmentFile(dir, bases[1]);
        byte[] b = Files.readAllBytes(sealed);
        b[0] ^= 0x01; // the segment header's magic
        Files.write(sealed, b);
        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            long inside = bases[1] + 3;
            assertThatThrownBy(() -> log.read(inside, 1, 1)).isInstanceOf(CorruptLogException.class)
                    .hasMessageContaining("segment header");
            assertThatThrownBy(() -> log.offsetForTimestamp(T0 + inside)).isInstanceOf(CorruptLogException.class)
                    .hasMessageContaining(sealed.getFileName().toString()).hasMessageContaining("segment header");
            // the segments around it answer as before
            assertThat(log.offsetForTimestamp(T0 + 3)).isEqualTo(3);
            assertThat(log.offsetForTimestamp(T0 + bases[2] + 1)).isEqualTo(bases[2] + 1);
        }
    }

    @Test
    void aTimestampLookupThatMeetsAFrameWithAFlippedValueBitFailsInsteadOfAnsweringFromIt() throws IOException {
        Path sealed = FileNames.segmentFile(dir, bases[1]);
        byte[] b = Files.readAllBytes(sealed);
        long victim = bases[1] + 4; // the first record of a frame in the middle of the sealed segment
        int at = indexOf(b, ("v" + victim + ";").getBytes(StandardCharsets.UTF_8));
        b[at + 20] ^= 0x04; // a byte of its value, behind the tag: the frame still decodes, under a wrong CRC
        Files.write(sealed, b);
        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            assertThatThrownBy(() -> log.read(victim, 1, 1 << 20)).isInstanceOf(CorruptLogException.class)
                    .hasMessageContaining("CRC32C mismatch");
            assertThatThrownBy(() -> log.offsetForTimestamp(T0 + victim)).isInstanceOf(CorruptLogException.class)
                    .hasMessageContaining(sealed.toString()).hasMessageContaining("CRC32C mismatch");
            // a lookup that stops at an intact frame before it, or starts in a later segment, is not disturbed
            assertThat(log.offsetForTimestamp(T0 + victim - 1)).isEqualTo(victim - 1);
            assertThat(log.offsetForTimestamp(T0 + bases[2])).isEqualTo(bases[2]);
        }
    }

    @Test
    void aLookupThatSeesTheNewestTimestampBeforeTheFrameHoldingItFindsNothingThereInsteadOfFailing() {
        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            // a small frame first, so that the active segment holds one (the log may roll for it) and takes the next
            log.append(List.of(new OutgoingRecord(null, new byte[1], Headers.empty(), T0 + RECORDS)));
            Segment active = log.segments()[log.segments().length - 1];
            int published = active.size();
            long next = log.endOffset();
            log.append(List.of(new OutgoingRecord(null, new byte[1], Headers.empty(), T0 + 10 * RECORDS)));
            assertThat(log.segments()[log.segments().length - 1]).isSameAs(active);
            // what a reader between the append's two release writes sees: the segment's size before the frame, its
            // newest timestamp after it (Segment.publish writes the size first, and the lookup reads it first)
            Segment between = new Segment(active.baseOffset(), active.file(), new OffsetIndex(), 256, published, next,
                    active.maxTimestamp(), Long.MIN_VALUE, 0);
            assertThat(between.maxTimestamp()).isEqualTo(T0 + 10 * RECORDS);
            assertThat(TimestampLookup.offsetFor(between, T0 + 10 * RECORDS, Logs.TOPIC, 0)).isEqualTo(-1);
            assertThat(log.offsetForTimestamp(T0 + 10 * RECORDS)).isEqualTo(next);
        }
    }

    private static int indexOf(byte[] in, byte[] what) {
        for (int i = 0; i + what.length <= in.length; i++) {
            if (Arrays.equals(in, i, i + what.length, what, 0, what.length)) {
                return i;
            }
        }
        throw new AssertionError("not found");
    }
}
