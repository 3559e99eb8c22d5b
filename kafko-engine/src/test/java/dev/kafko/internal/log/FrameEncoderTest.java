package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Compression;
import dev.kafko.OutgoingRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

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
            assertThat(encoder.buffer()).hasSize(1024);
        }
    }
}
