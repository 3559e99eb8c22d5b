package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Compression;
import dev.kafko.Header;
import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The decoder reads a record whose fields are short (one-byte timestamp delta, key length and header count, a
 * value length of one or two bytes) from one long and two more reads, and any other record field by field. Both
 * must give the same records, and fail alike: every shape on either side of each field's one-byte and two-byte
 * limits round-trips through the encoder, and damaged records sections decode exactly as an independent reading of
 * the format in this test says, or fail where it fails.
 */
class FrameDecoderShapesTest {

    private static final long NOW = 1_700_000_000_000L;

    static Stream<Integer> keyLengths() {
        return Stream.of(-1, 0, 1, 125, 126, 127, 128, 300);
    }

    static Stream<Integer> valueLengths() {
        return Stream.of(-1, 0, 1, 126, 127, 128, 16_382, 16_383, 16_384, 70_000);
    }

    @ParameterizedTest
    @MethodSource("keyLengths")
    void everyKeyLengthRoundTrips(int keyLength) {
        roundTrip(IntStream.of(-1, 0, 5, 127, 16_382, 16_383).mapToObj(v -> record(keyLength, v, 0, NOW)).toList());
    }

    @ParameterizedTest
    @MethodSource("valueLengths")
    void everyValueLengthRoundTrips(int valueLength) {
        roundTrip(IntStream.of(-1, 0, 126, 127).mapToObj(k -> record(k, valueLength, 0, NOW)).toList());
    }

    @Test
    void headerCountsAndTimestampDeltasOnBothSidesOfOneByte() {
        List<OutgoingRecord> records = new ArrayList<>();
        // zigzag deltas: 63 and -64 take one byte, 64 and -65 two; the first record sets the frame's timestamp
        for (long delta : new long[] {0, 1, 63, -64, 64, -65, 100_000, -NOW}) {
            for (int headers : new int[] {0, 1, 3, 127, 128}) {
                records.add(record(10, 20, headers, NOW + delta));
            }
        }
        roundTrip(records);
    }

    private static void roundTrip(List<OutgoingRecord> records) {
        byte[] frame = LogBridge.encode(Compression.NONE, records, 1_000, NOW);
        for (ByteBuffer buf : buffers(frame)) {
            int at = buf.capacity() - frame.length;
            List<KafkoRecord> out = new ArrayList<>();
            int added = FrameDecoder.decode(buf, at, frame.length, Long.MIN_VALUE, Integer.MAX_VALUE, "t", 0, out);
            assertThat(added).isEqualTo(records.size());
            for (int i = 0; i < records.size(); i++) {
                OutgoingRecord sent = records.get(i);
                KafkoRecord got = out.get(i);
                assertThat(got.offset()).isEqualTo(1_000 + i);
                assertThat(got.timestamp()).isEqualTo(sent.timestamp());
                assertThat(got.key()).isEqualTo(sent.key());
                assertThat(got.value()).isEqualTo(sent.value());
                assertThat(got.headers()).isEqualTo(sent.headers());
            }
            // a reader that starts inside the frame and takes a few at a time gets the same records
            List<KafkoRecord> part = new ArrayList<>();
            int[] cursor = {0, 0};
            long from = 1_000 + records.size() / 2;
            byte[] header = Arrays.copyOf(frame, FrameFormat.HEADER_SIZE);
            while (from < 1_000 + records.size()) {
                FrameDecoder.decodeSection(header, buf, at + FrameFormat.HEADER_SIZE, from, 2, "t", 0, part, cursor);
                from = part.get(part.size() - 1).offset() + 1;
            }
            assertThat(part).extracting(KafkoRecord::offset)
                    .containsExactlyElementsOf(out.subList(records.size() / 2, records.size()).stream()
                            .map(KafkoRecord::offset).toList());
        }
    }

    /** The frame in a heap buffer, and at an odd position of a read-only direct one (as a mapping is read). */
    static List<ByteBuffer> buffers(byte[] frame) {
        ByteBuffer direct = ByteBuffer.allocateDirect(frame.length + 3).order(ByteOrder.LITTLE_ENDIAN);
        direct.position(3);
        direct.put(frame);
        direct.clear();
        return List.of(ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN),
                direct.asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN));
    }

    private static OutgoingRecord record(int keyLength, int valueLength, int headerCount, long timestamp) {
        Header[] headers = new Header[headerCount];
        for (int h = 0; h < headerCount; h++) {
            headers[h] = new Header("h" + h, h % 3 == 2 ? null : bytes(h % 200, h));
        }
        return OutgoingRecord.of(bytes(keyLength, 1), bytes(valueLength, 2), Headers.of(headers), timestamp);
    }

    private static byte @Nullable [] bytes(int length, int seed) {
        if (length < 0) {
            return null;
        }
        byte[] b = new byte[length];
        new Random(seed * 31L + length).nextBytes(b);
        return b;
    }

    /** Fixed seeds: each damages a valid records section a different way. */
    static IntStream seeds() {
        return IntStream.range(0, 400);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void damagedSectionsDecodeAsTheFormatSaysOrFail(int seed) {
        Random random = new Random(seed);
        List<OutgoingRecord> records = new ArrayList<>();
        int n = 1 + random.nextInt(6);
        for (int i = 0; i < n; i++) {
            int[] keys = {-1, 0, 3, 126, 127, 200};
            int[] values = {-1, 0, 5, 127, 128, 16_383, 16_384};
            records.add(record(keys[random.nextInt(keys.length)], values[random.nextInt(values.length)],
                    random.nextInt(4) == 0 ? random.nextInt(3) : 0, NOW + (random.nextBoolean() ? 0 : random.nextInt(200))));
        }
        byte[] frame = LogBridge.encode(Compression.NONE, records, 0, NOW);
        // damage only the records section: the header was checked before the decoder runs
        int hits = 1 + random.nextInt(4);
        for (int h = 0; h < hits; h++) {
            int at = FrameFormat.HEADER_SIZE + random.nextInt(Math.min(frame.length - FrameFormat.HEADER_SIZE, 600));
            frame[at] = switch (random.nextInt(4)) {
                case 0 -> (byte) random.nextInt(256);
                case 1 -> (byte) 0x80;
                case 2 -> (byte) 0;
                default -> (byte) (frame[at] ^ 1 << random.nextInt(8));
            };
        }
        List<Decoded> expected;
        try {
            expected = reference(frame);
        } catch (IllegalArgumentException e) {
            expected = null;
        }
        for (ByteBuffer buf : buffers(frame)) {
            int at = buf.capacity() - frame.length;
            List<KafkoRecord> out = new ArrayList<>();
            if (expected == null) {
                assertThatThrownBy(() -> FrameDecoder.decode(buf, at, frame.length, Long.MIN_VALUE, Integer.MAX_VALUE,
                        "t", 0, out)).isInstanceOf(IllegalArgumentException.class);
                continue;
            }
            FrameDecoder.decode(buf, at, frame.length, Long.MIN_VALUE, Integer.MAX_VALUE, "t", 0, out);
            assertThat(out.stream().map(Decoded::of).toList()).isEqualTo(expected);
        }
    }

    /** A record as compared here: its fields, with arrays as lists. */
    private record Decoded(long offset, long timestamp, @Nullable List<Byte> key, @Nullable List<Byte> value,
            List<String> headers) {

        static Decoded of(KafkoRecord r) {
            List<String> headers = new ArrayList<>();
            for (Header h : r.headers()) {
                headers.add(h.key() + "=" + (h.value() == null ? "null" : Arrays.toString(h.value())));
            }
            return new Decoded(r.offset(), r.timestamp(), list(r.key()), list(r.value()), headers);
        }
    }

    private static @Nullable List<Byte> list(byte @Nullable [] b) {
        if (b == null) {
            return null;
        }
        List<Byte> out = new ArrayList<>(b.length);
        for (byte x : b) {
            out.add(x);
        }
        return out;
    }

    /** The records section of an uncompressed frame, read straight from the layout in docs/FORMAT.md. */
    private static List<Decoded> reference(byte[] frame) {
        ByteBuffer b = ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN);
        long base = b.getLong(FrameFormat.BASE_OFFSET_OFFSET);
        int count = b.getInt(FrameFormat.RECORD_COUNT_OFFSET);
        long first = b.getLong(FrameFormat.FIRST_TIMESTAMP_OFFSET);
        int[] p = {FrameFormat.HEADER_SIZE};
        List<Decoded> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int body = take(frame, p, 4, frame.length).getInt();
            long end = (long) p[0] + body;
            if (body < 0 || end > frame.length) {
                throw new IllegalArgumentException("body");
            }
            int e = (int) end;
            long zz = varlong(frame, p, e);
            long ts = first + ((zz >>> 1) ^ -(zz & 1));
            byte[] key = nullable(frame, p, e);
            byte[] value = nullable(frame, p, e);
            long headerCount = varint(frame, p, e);
            List<String> headers = new ArrayList<>();
            for (long h = 0; h < headerCount; h++) {
                String k = new String(take(frame, p, varint(frame, p, e), e).array(), StandardCharsets.UTF_8);
                byte[] v = nullable(frame, p, e);
                headers.add(k + "=" + (v == null ? "null" : Arrays.toString(v)));
            }
            if (p[0] != e) {
                throw new IllegalArgumentException("trailing bytes");
            }
            out.add(new Decoded(base + i, ts, list(key), list(value), headers));
        }
        return out;
    }

    private static byte @Nullable [] nullable(byte[] frame, int[] p, int end) {
        int lengthPlusOne = varint(frame, p, end);
        return lengthPlusOne == 0 ? null : take(frame, p, lengthPlusOne - 1, end).array();
    }

    private static ByteBuffer take(byte[] frame, int[] p, int n, int end) {
        if (n < 0 || n > end - p[0]) {
            throw new IllegalArgumentException("past the record");
        }
        ByteBuffer out = ByteBuffer.wrap(Arrays.copyOfRange(frame, p[0], p[0] + n)).order(ByteOrder.LITTLE_ENDIAN);
        p[0] += n;
        return out;
    }

    /** An unsigned varint that must fit an int. */
    private static int varint(byte[] frame, int[] p, int end) {
        long v = varlong(frame, p, end);
        if (v < 0 || v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("varint out of range");
        }
        return (int) v;
    }

    /** Unsigned LEB128 of at most 10 bytes. */
    private static long varlong(byte[] frame, int[] p, int end) {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (p[0] >= end) {
                throw new IllegalArgumentException("varint past the record");
            }
            byte x = frame[p[0]++];
            v |= (long) (x & 0x7F) << shift;
            if (x >= 0) {
                return v;
            }
        }
        throw new IllegalArgumentException("varint longer than 10 bytes");
    }
}
