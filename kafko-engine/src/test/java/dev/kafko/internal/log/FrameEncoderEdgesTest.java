package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Compression;
import dev.kafko.Header;
import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.RecordTooLargeException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * The encoder's edges: refused input, the header fields of every frame kind, the size a record is checked at,
 * buffers sized exactly to the bound of what is written, and the buffers it keeps or drops.
 */
class FrameEncoderEdgesTest {

    private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);

    @Test
    void anEmptyBatchIsRefusedWithItsReason() {
        FrameEncoder e = new FrameEncoder("t-0", Compression.NONE, 1 << 20);
        assertThatThrownBy(() -> e.encode(List.of(), 0, 1_000)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one record");
        assertThatThrownBy(() -> e.encodeWithHoles(List.of(), new int[] {0}, 0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("begins with a record");
    }

    @Test
    void aFrameWithHolesMustBeginWithARecord() {
        FrameEncoder e = new FrameEncoder("t-0", Compression.NONE, 1 << 20);
        assertThatThrownBy(() -> e.encodeWithHoles(List.of(rec(1_000)), new int[] {1}, 0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("begins with a record");
    }

    @Test
    void aFrameWithHolesCoveringMoreThanAnIntOfOffsetsIsRefused() {
        FrameEncoder e = new FrameEncoder("t-0", Compression.NONE, 1 << 20);
        List<OutgoingRecord> kept = List.of(rec(1_000), rec(1_000), rec(1_000));
        int[] holes = {0, Integer.MAX_VALUE - 3, 1};
        // 3 records and MAX_VALUE - 2 holes: one offset too many
        assertThatThrownBy(() -> e.encodeWithHoles(kept, holes, 0, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most " + Integer.MAX_VALUE + " offsets, was " + (Integer.MAX_VALUE + 1L));
        // exactly MAX_VALUE offsets fit
        int[] fit = {0, Integer.MAX_VALUE - 4, 1};
        int length = e.encodeWithHoles(kept, fit, 7, 0);
        byte[] f = e.buffer();
        assertThat(FrameFormat.getInt(f, FrameFormat.RECORD_COUNT_OFFSET)).isEqualTo(Integer.MAX_VALUE);
        assertThat(FrameFormat.hasHoles(f)).isTrue();
        assertThat(length).isEqualTo(e.length());
    }

    @Test
    void aFrameWithHolesCarriesTheHolesFlagOnlyWhenItHasHoles() {
        FrameEncoder e = new FrameEncoder("t-0", Compression.NONE, 1 << 20);
        e.encodeWithHoles(List.of(rec(1_000), rec(1_005)), new int[] {0, 0}, 10, 0);
        assertThat(FrameFormat.hasHoles(e.buffer())).isFalse();
        assertThat(FrameFormat.getInt(e.buffer(), FrameFormat.RECORD_COUNT_OFFSET)).isEqualTo(2);
        e.encodeWithHoles(List.of(rec(1_000), rec(1_005)), new int[] {0, 2}, 10, 0);
        assertThat(FrameFormat.hasHoles(e.buffer())).isTrue();
        assertThat(FrameFormat.getInt(e.buffer(), FrameFormat.RECORD_COUNT_OFFSET)).isEqualTo(4);
        List<KafkoRecord> out = decode(e);
        assertThat(out).extracting(KafkoRecord::offset).containsExactly(10L, 13L);
    }

    @Test
    void aFrameWithHolesKeepsTheRemovedRecordsNewestTimestampWhenItIsTheNewest() {
        FrameEncoder e = new FrameEncoder("t-0", Compression.NONE, 1 << 20);
        e.encodeWithHoles(List.of(rec(1_000), rec(1_005)), new int[] {0, 1}, 0, 2_000);
        assertThat(e.maxTimestamp()).isEqualTo(2_000);
        assertThat(FrameFormat.getLong(e.buffer(), FrameFormat.MAX_TIMESTAMP_OFFSET)).isEqualTo(2_000);
        assertThat(FrameFormat.getLong(e.buffer(), FrameFormat.FIRST_TIMESTAMP_OFFSET)).isEqualTo(1_000);
        e.encodeWithHoles(List.of(rec(1_000), rec(1_005)), new int[] {0, 1}, 0, 10);
        assertThat(e.maxTimestamp()).isEqualTo(1_005);
    }

    @Test
    void aGapCoversAtLeastOneOffset() {
        FrameEncoder e = new FrameEncoder("t-0", Compression.NONE, 1 << 20);
        // a record frame first: the gap's header fields overwrite every one of its own
        e.encode(List.of(rec(1_000), rec(1_001)), 0, 0);
        assertThatThrownBy(() -> e.encodeGap(5, 0, 1, 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one offset, was 0");
        assertThat(e.encodeGap(5, 1, 100, 200)).isEqualTo(FrameFormat.HEADER_SIZE);
        byte[] f = e.buffer();
        assertThat(FrameFormat.isGap(f)).isTrue();
        assertThat(FrameFormat.plausibleHeader(f, 0, FrameFormat.HEADER_SIZE)).isTrue();
        assertThat(FrameFormat.getInt(f, FrameFormat.LENGTH_OFFSET)).isEqualTo(FrameFormat.HEADER_SIZE);
        assertThat(FrameFormat.getLong(f, FrameFormat.BASE_OFFSET_OFFSET)).isEqualTo(5);
        assertThat(FrameFormat.getInt(f, FrameFormat.RECORD_COUNT_OFFSET)).isEqualTo(1);
        assertThat(FrameFormat.getLong(f, FrameFormat.FIRST_TIMESTAMP_OFFSET)).isEqualTo(100);
        assertThat(FrameFormat.getLong(f, FrameFormat.MAX_TIMESTAMP_OFFSET)).isEqualTo(200);
        assertThat(FrameFormat.getInt(f, FrameFormat.CRC_OFFSET))
                .isEqualTo(FrameFormat.frameCrc(new CRC32C(), f, 0, FrameFormat.HEADER_SIZE));
        assertThat(FrameFormat.getInt(f, FrameFormat.RECORDS_LENGTH_OFFSET)).isZero();
        assertThat(e.length()).isEqualTo(FrameFormat.HEADER_SIZE);
        assertThat(e.maxTimestamp()).isEqualTo(200);
    }

    @Test
    void aBatchFrameCarriesItsFirstAndNewestTimestampsTheClockFillingTheMissingOnes() {
        for (Compression c : new Compression[] {Compression.NONE, Compression.LZ4}) {
            FrameEncoder e = new FrameEncoder("t-0", c, 1 << 20);
            List<OutgoingRecord> batch = List.of(
                    OutgoingRecord.of(KEY, new byte[] {1}, Headers.empty(), OutgoingRecord.NO_TIMESTAMP),
                    rec(9_000), rec(3_000), OutgoingRecord.of(null, null));
            int length = e.encode(batch, 42, 5_000);
            byte[] f = e.buffer();
            assertThat(FrameFormat.getInt(f, FrameFormat.LENGTH_OFFSET)).isEqualTo(length);
            assertThat(FrameFormat.getLong(f, FrameFormat.BASE_OFFSET_OFFSET)).isEqualTo(42);
            assertThat(FrameFormat.getInt(f, FrameFormat.RECORD_COUNT_OFFSET)).isEqualTo(4);
            assertThat(FrameFormat.getLong(f, FrameFormat.FIRST_TIMESTAMP_OFFSET)).isEqualTo(5_000);
            assertThat(FrameFormat.getLong(f, FrameFormat.MAX_TIMESTAMP_OFFSET)).isEqualTo(9_000);
            assertThat(e.maxTimestamp()).isEqualTo(9_000);
            assertThat(f[FrameFormat.ATTRIBUTES_OFFSET]).isEqualTo((byte) c.id());
            assertThat(FrameFormat.getInt(f, FrameFormat.CRC_OFFSET))
                    .isEqualTo(FrameFormat.frameCrc(new CRC32C(), f, 0, length));
            List<KafkoRecord> out = decode(e);
            assertThat(out).extracting(KafkoRecord::offset).containsExactly(42L, 43L, 44L, 45L);
            assertThat(out).extracting(KafkoRecord::timestamp).containsExactly(5_000L, 9_000L, 3_000L, 5_000L);
            assertThat(out.get(3).key()).isNull();
            assertThat(out.get(3).value()).isNull();
        }
    }

    @Test
    void aSingleRecordFrameTakesTheClockWhenItHasNoTimestamp() {
        FrameEncoder e = new FrameEncoder("t-0", Compression.NONE, 1 << 20);
        e.encode(OutgoingRecord.of(KEY, new byte[] {1}), 3, 7_000);
        assertThat(e.maxTimestamp()).isEqualTo(7_000);
        assertThat(FrameFormat.getLong(e.buffer(), FrameFormat.FIRST_TIMESTAMP_OFFSET)).isEqualTo(7_000);
        assertThat(decode(e).get(0).timestamp()).isEqualTo(7_000);
        e.encode(rec(6_000), 4, 7_000);
        assertThat(e.maxTimestamp()).isEqualTo(6_000);
    }

    /** What a record is checked at is its encoding with a one-byte timestamp delta, whatever its delta is. */
    @Test
    void encodedSizeIsTheRecordsBytesInAFrameWithAOneByteTimestampDelta() {
        List<OutgoingRecord> shapes = List.of(
                OutgoingRecord.of(null, null),
                OutgoingRecord.of(new byte[126], new byte[127]),
                OutgoingRecord.of(new byte[127], new byte[16_383]),
                OutgoingRecord.of(null, new byte[16_384], Headers.of(new Header("\u20ac" + "a".repeat(130), null),
                        new Header("\u00e9\uD83D\uDE00", new byte[200]), new Header("lone\uD83D", new byte[0]))));
        for (OutgoingRecord r : shapes) {
            FrameEncoder e = new FrameEncoder("t-0", Compression.NONE, 1 << 20);
            int length = e.encode(OutgoingRecord.of(r.key(), r.value(), r.headers(), 1_000), 0, 1_000);
            assertThat(FrameEncoder.encodedSize(r)).as(r.toString()).isEqualTo(length - FrameFormat.HEADER_SIZE);
            assertThat(decode(e).get(0).headers()).isEqualTo(expectedHeaders(r.headers()));
        }
        // 128 headers: the count takes two bytes
        List<Header> many = new ArrayList<>();
        for (int i = 0; i < 128; i++) {
            many.add(new Header("h", null));
        }
        OutgoingRecord r = OutgoingRecord.of(null, null, Headers.of(many), 1_000);
        FrameEncoder e = new FrameEncoder("t-0", Compression.NONE, 1 << 20);
        assertThat(FrameEncoder.encodedSize(r)).isEqualTo(e.encode(r, 0, 1_000) - FrameFormat.HEADER_SIZE);
        assertThat(decode(e).get(0).headers().size()).isEqualTo(128);
    }

    @Test
    void timestampDeltaBytesFollowsTheZigZagVarintOfTheDelta() {
        OutgoingRecord first = rec(1_000_000);
        assertThat(FrameEncoder.timestampDeltaBytes(first, rec(1_000_000))).isEqualTo(1);
        assertThat(FrameEncoder.timestampDeltaBytes(first, rec(1_000_063))).isEqualTo(1);
        assertThat(FrameEncoder.timestampDeltaBytes(first, rec(1_000_064))).isEqualTo(2);
        assertThat(FrameEncoder.timestampDeltaBytes(first, rec(1_000_000 - 64))).isEqualTo(1);
        assertThat(FrameEncoder.timestampDeltaBytes(first, rec(1_000_000 - 65))).isEqualTo(2);
        assertThat(FrameEncoder.timestampDeltaBytes(first, rec(1_000_000 + 8_192))).isEqualTo(3);
        assertThat(FrameEncoder.timestampDeltaBytes(rec(0), rec(Long.MAX_VALUE))).isEqualTo(10);
        OutgoingRecord clock = OutgoingRecord.of(null, new byte[1]);
        assertThat(FrameEncoder.timestampDeltaBytes(clock, clock)).isEqualTo(1);
        // only one of them known: the most
        assertThat(FrameEncoder.timestampDeltaBytes(clock, first)).isEqualTo(10);
        assertThat(FrameEncoder.timestampDeltaBytes(first, clock)).isEqualTo(10);
        // and each agrees with the bytes the frame gives the delta
        for (long ts : new long[] {1_000_000, 1_000_063, 1_000_064, 1_000_000 - 65, 1_008_192}) {
            FrameEncoder e = new FrameEncoder("t-0", Compression.NONE, 1 << 20);
            OutgoingRecord r = rec(ts);
            int length = e.encode(List.of(first, r), 0, 0);
            long expected = 2 * FrameEncoder.encodedSize(first) - 2 + FrameEncoder.timestampDeltaBytes(first, r) + 1;
            assertThat(length - FrameFormat.HEADER_SIZE).as("ts %d", ts).isEqualTo(expected);
        }
    }

    @Test
    void aRecordOfExactlyMaxRecordBytesIsWrittenWhateverItsTimestampDeltaAndOneMoreIsRefused() {
        OutgoingRecord probe = OutgoingRecord.of(KEY, new byte[500], Headers.empty(), 1_000);
        int max = (int) FrameEncoder.encodedSize(probe);
        FrameEncoder e = new FrameEncoder("t-0", Compression.NONE, max);
        // a delta of many bytes is not counted against the record
        OutgoingRecord far = OutgoingRecord.of(KEY, new byte[500], Headers.empty(), 1_000 + (1L << 40));
        assertThat(e.encode(List.of(probe, far), 0, 0)).isPositive();
        OutgoingRecord over = OutgoingRecord.of(KEY, new byte[501], Headers.empty(), 1_000);
        assertThatThrownBy(() -> e.encode(List.of(probe, over), 0, 0)).isInstanceOf(RecordTooLargeException.class)
                .hasMessageContaining("a record of " + (max + 1) + " bytes").hasMessageContaining("maxRecordBytes " + max)
                .hasMessageContaining("t-0");
        // the encoder is whole after the refusal
        e.encode(probe, 9, 0);
        assertThat(decode(e)).singleElement().satisfies(r -> assertThat(r.offset()).isEqualTo(9));
    }

    /**
     * A fresh buffer grows to exactly what the bound of a large record asks (more than twice 1 KiB): a bound that
     * counted less than a record takes would write past the buffer's end.
     */
    @Test
    void aBufferGrownToTheBoundOfARecordHoldsIt() {
        Headers headers = Headers.of(new Header("\u20ac".repeat(700), new byte[300]), new Header("h", null));
        for (OutgoingRecord r : List.of(OutgoingRecord.of(new byte[2_100], new byte[900], headers, 1_000),
                OutgoingRecord.of(null, new byte[3_000], Headers.empty(), 1_000),
                OutgoingRecord.of(new byte[3_000], null, Headers.empty(), 1_000))) {
            FrameEncoder single = new FrameEncoder("t-0", Compression.NONE, 1 << 20);
            int length = single.encode(r, 0, 0);
            assertThat(decode(single)).singleElement().satisfies(d -> {
                assertThat(d.value()).isEqualTo(r.value());
                assertThat(d.key()).isEqualTo(r.key());
            });
            assertThat(length - FrameFormat.HEADER_SIZE).isEqualTo(FrameEncoder.encodedSize(r));
            for (Compression c : new Compression[] {Compression.NONE, Compression.LZ4}) {
                FrameEncoder batch = new FrameEncoder("t-0", c, 1 << 20);
                batch.encode(List.of(r, r, r), 0, 0);
                assertThat(decode(batch)).hasSize(3).allSatisfy(d -> assertThat(d.value()).isEqualTo(r.value()));
            }
        }
    }

    @Test
    void aBufferOfExactlyTheKeptSizeIsKeptAndOneByteMoreIsDropped() {
        int kept = 4 << 20;
        FrameEncoder e = new FrameEncoder("t-0", Compression.NONE, kept);
        e.encode(sizedForBound(kept), 0, 0);
        assertThat(e.buffer()).hasSize(kept);
        e.trim();
        assertThat(e.buffer()).hasSize(kept);
        FrameEncoder over = new FrameEncoder("t-0", Compression.NONE, kept + 1);
        over.encode(sizedForBound(kept + 1), 0, 0);
        assertThat(over.buffer()).hasSize(kept + 1);
        over.trim();
        assertThat(over.buffer()).isEmpty();
    }

    @Test
    void aBufferGrownOutsideABatchAtLeastDoubles() {
        FrameEncoder e = new FrameEncoder("t-0", Compression.NONE, 1 << 20);
        // needs 1,100 bytes of a 1 KiB buffer: doubled, so that frames a little larger each do not copy every time
        e.encode(sizedForBound(1_100), 0, 0);
        assertThat(e.buffer()).hasSize(2_048);
        e.encode(sizedForBound(2_049), 1, 0);
        assertThat(e.buffer()).hasSize(4_096);
    }

    @Test
    void aSingleRecordFrameIsCompressedWithItsCodecAndAClosedEncoderHoldsNoBuffer() {
        for (Compression c : new Compression[] {Compression.NONE, Compression.LZ4, Compression.ZSTD}) {
            FrameEncoder e = new FrameEncoder("t-0", c, 1 << 20);
            e.encode(rec(1_000), 5, 0);
            assertThat(e.buffer()[FrameFormat.ATTRIBUTES_OFFSET]).isEqualTo((byte) c.id());
            assertThat(decode(e)).singleElement().satisfies(r -> assertThat(r.value()).containsExactly(1, 2, 3));
            e.close();
            assertThat(e.buffer()).as(c.name()).isEmpty();
        }
    }

    /** A record with no key and a value sized so that the frame buffer its bound asks for is {@code bytes} long. */
    private static OutgoingRecord sizedForBound(int bytes) {
        // bound = 4 + 10 + 5 + 5 + 5 + value; the frame buffer needs the header besides
        return OutgoingRecord.of(null, new byte[bytes - FrameFormat.HEADER_SIZE - 29], Headers.empty(), 1_000);
    }

    private static OutgoingRecord rec(long timestamp) {
        return OutgoingRecord.of(KEY, new byte[] {1, 2, 3}, Headers.empty(), timestamp);
    }

    private static Headers expectedHeaders(Headers written) {
        List<Header> out = new ArrayList<>();
        for (int i = 0; i < written.size(); i++) {
            Header h = written.get(i);
            out.add(new Header(new String(h.key().getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8), h.value()));
        }
        return Headers.of(out);
    }

    private static List<KafkoRecord> decode(FrameEncoder e) {
        byte[] frame = Arrays.copyOf(e.buffer(), e.length());
        assertThat(FrameFormat.plausibleHeader(frame, 0, frame.length)).isTrue();
        assertThat(FrameFormat.getInt(frame, FrameFormat.CRC_OFFSET))
                .isEqualTo(FrameFormat.frameCrc(new CRC32C(), frame, 0, frame.length));
        List<KafkoRecord> out = new ArrayList<>();
        FrameDecoder.decode(frame, 0, frame.length, Long.MIN_VALUE, Integer.MAX_VALUE, "t", 0, out);
        return out;
    }
}
