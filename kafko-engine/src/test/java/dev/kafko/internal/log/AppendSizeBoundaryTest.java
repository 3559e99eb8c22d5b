package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Compression;
import dev.kafko.Header;
import dev.kafko.Headers;
import dev.kafko.OutgoingRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A batch exactly as large as {@link AppendSizes#MAX_APPEND_BYTES} (what a producer checks and accepts) is one
 * frame: the encoder's own refusal must not be tighter than the producer's check.
 */
class AppendSizeBoundaryTest {

    /** A batch whose exact encoded size is {@code total}, its last record carrying {@code headers} small headers. */
    static List<OutgoingRecord> batchOfExactly(long total, int headers, byte[] shared) {
        List<Header> hs = new ArrayList<>();
        for (int i = 0; i < headers; i++) {
            hs.add(new Header("h", new byte[] {1}));
        }
        OutgoingRecord last = OutgoingRecord.of(null, null, Headers.of(hs), 1_000);
        List<OutgoingRecord> batch = new ArrayList<>();
        long rest = total - AppendSizes.encodedSize(last);
        while (rest > 0) {
            long full = AppendSizes.encodedSize(OutgoingRecord.of(null, shared, Headers.empty(), 1_000));
            if (rest - full >= 64) {
                batch.add(OutgoingRecord.of(null, shared, Headers.empty(), 1_000));
                rest -= full;
                continue;
            }
            // the rest in one record whose value makes the sum exact
            int v = (int) rest;
            while (AppendSizes.encodedSize(OutgoingRecord.of(null, new byte[v], Headers.empty(), 1_000)) > rest) {
                v--;
            }
            OutgoingRecord r = OutgoingRecord.of(null, new byte[v], Headers.empty(), 1_000);
            assertThat(AppendSizes.encodedSize(r)).isEqualTo(rest);
            batch.add(r);
            rest = 0;
        }
        batch.add(last);
        long exact = 0;
        for (OutgoingRecord r : batch) {
            exact += AppendSizes.encodedSize(r) - 1 + AppendSizes.timestampDeltaBytes(batch.get(0), r);
        }
        assertThat(exact).isEqualTo(total);
        return batch;
    }

    @Test
    void aBatchOfExactlyTheMostOneAppendHoldsIsEncodedWhateverItsLastRecordsHeaders() {
        byte[] shared = new byte[1 << 20];
        List<OutgoingRecord> batch = batchOfExactly(AppendSizes.MAX_APPEND_BYTES, 20, shared);
        FrameEncoder encoder = new FrameEncoder("t-0", Compression.NONE, 2 << 20);
        int length = encoder.encode(batch, 0, 1_000);
        assertThat(length).isEqualTo(FrameFormat.HEADER_SIZE + AppendSizes.MAX_APPEND_BYTES);
    }

    /** The largest batch, compressible to almost nothing or not at all, is one frame and reads back whole. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"LZ4, true", "LZ4, false", "ZSTD, true"})
    void theLargestBatchCompressedReadsBack(Compression compression, boolean compressible,
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        byte[] shared = new byte[1 << 20];
        if (!compressible) {
            new java.util.Random(11).nextBytes(shared);
        }
        List<OutgoingRecord> batch = batchOfExactly(AppendSizes.MAX_APPEND_BYTES, 20, shared);
        dev.kafko.TopicConfig config = dev.kafko.TopicConfig.builder().compression(compression).maxRecordBytes(2 << 20)
                .segmentBytes(64 << 20).build();
        try (PartitionLog log = Logs.openWithoutSyncs(dir, config)) {
            log.append(OutgoingRecord.of(null, new byte[] {1}));
            assertThat(log.append(batch)).isEqualTo(1);
            log.append(OutgoingRecord.of(null, new byte[] {2}));
            assertThat(log.segmentCount()).isEqualTo(compressible ? 1 : 3);
            long o = 1;
            while (o < 1 + batch.size()) {
                List<dev.kafko.KafkoRecord> got = log.read(o, 100, 1 << 20).records();
                for (dev.kafko.KafkoRecord r : got) {
                    assertThat(r.offset()).isEqualTo(o);
                    if (o == 1 + batch.size()) {
                        break;
                    }
                    OutgoingRecord w = batch.get((int) (o - 1));
                    assertThat(r.value()).isEqualTo(w.value());
                    assertThat(r.headers().size()).isEqualTo(w.headers().size());
                    o++;
                }
            }
            assertThat(log.read(o, 1, 1).records().get(0).value()).containsExactly(2);
        }
    }
}
