package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Compression;
import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How much heap the encoder takes: little for an idle partition, about the frame's size for a big batch. */
class FrameEncoderTest {

    @Test
    void aFreshEncoderHoldsOneKibibyte() {
        assertThat(new FrameEncoder("t-0", Compression.NONE, 1 << 20).buffer()).hasSize(1024);
    }

    @Test
    void aBigBatchGrowsTheBufferOnceToAboutItsSizeNotToTheNextPowerOfTwo() {
        for (Compression compression : new Compression[] {Compression.NONE, Compression.LZ4}) {
            FrameEncoder encoder = new FrameEncoder("t-0", compression, 2 << 20);
            byte[] value = new byte[1 << 20];
            List<OutgoingRecord> batch = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                batch.add(OutgoingRecord.of(null, value));
            }
            int length = encoder.encode(batch, 0, 1_000);
            assertThat(length).isGreaterThan(compression == Compression.NONE ? 40 << 20 : 0);
            // growing record by record doubled it to 64 MiB, copying each time: about 3x the batch at the last copy
            assertThat(encoder.buffer().length).as(compression.name()).isLessThan((40 << 20) + (1 << 20));
            encoder.trim();
            // dropped without allocating (trim runs after the frame is published: see OutOfMemoryAfterPublishTest)
            assertThat(encoder.buffer()).isEmpty();
            // and grown again by the next encode
            assertThat(encoder.encode(OutgoingRecord.of(null, new byte[10]), 40, 1_000)).isPositive();
            assertThat(encoder.buffer().length).isBetween(1, 1024);
        }
    }

    /**
     * Header keys are written as UTF-8 by hand: the characters at each end of the one-, two-, three- and four-byte
     * forms come back as String.getBytes(UTF_8) writes them, a lone surrogate as '?'.
     */
    @Test
    void headerKeysOnEveryUtf8LengthBoundaryComeBackAsWritten(@TempDir Path dir) {
        String[] keys = {"a\u007f", "\u0080", "\u07ff", "\u0800", "\u20ac\uffff", "x\uD83D\uDE00y", "\uDBFF\uDFFF",
            "end\uD83D", "\uDE00lone", "\uD83D\uD83D\uDE00"};
        try (PartitionLog log = Logs.open(dir, TopicConfig.DEFAULTS)) {
            for (String key : keys) {
                log.append(OutgoingRecord.of(null, new byte[] {1}, Headers.of(key, new byte[] {2}), 1_000));
            }
            List<KafkoRecord> read = Logs.readAll(log);
            assertThat(read).hasSize(keys.length);
            for (int i = 0; i < keys.length; i++) {
                String expected = new String(keys[i].getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
                assertThat(read.get(i).headers().get(0).key()).as("key %d", i).isEqualTo(expected);
                assertThat(read.get(i).headers().get(0).value()).containsExactly(2);
            }
        }
    }
}
