package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kafko.Compression;
import dev.kafko.Header;
import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The decoder's bounds checks, each at its exact boundary: a records section built byte by byte whose last field
 * ends exactly at the end of the section (and of the buffer: a read one byte past it would throw
 * {@link IndexOutOfBoundsException} where the decoder must say the record is malformed), a length one past what is
 * left, a varint of exactly 10 bytes and one of 11, a length varint of exactly {@code Integer.MAX_VALUE}, a value
 * length in three bytes, a reader's cursor at the end of the frame and one past the offset asked. Each case asserts
 * the records decoded or the exact {@link IllegalArgumentException} (whose message the caller puts in the
 * {@code CorruptLogException} it reports). Also the inflating path of {@link FrameDecoder#section} from every kind
 * of buffer a read hands it.
 */
class FrameDecoderBoundsTest {

    private static final long BASE = 1_000;
    private static final long FIRST_TS = 1_700_000_000_000L;
    /** The smallest whole record: a body of a timestamp delta of 0, a null key, a null value and no headers. */
    private static final byte[] EMPTY_RECORD = {4, 0, 0, 0, 0, 0, 0, 0};

    /** A frame of {@code count} records whose records section is {@code section}, uncompressed. */
    private static byte[] frame(int count, byte[]... section) {
        ByteArrayOutputStream s = new ByteArrayOutputStream();
        for (byte[] part : section) {
            s.writeBytes(part);
        }
        byte[] records = s.toByteArray();
        byte[] f = new byte[FrameFormat.HEADER_SIZE + records.length];
        FrameFormat.putInt(f, FrameFormat.LENGTH_OFFSET, f.length);
        FrameFormat.putShort(f, FrameFormat.MAGIC_OFFSET, FrameFormat.FRAME_MAGIC);
        f[FrameFormat.VERSION_OFFSET] = FrameFormat.FRAME_VERSION;
        FrameFormat.putLong(f, FrameFormat.BASE_OFFSET_OFFSET, BASE);
        FrameFormat.putInt(f, FrameFormat.RECORD_COUNT_OFFSET, count);
        FrameFormat.putLong(f, FrameFormat.FIRST_TIMESTAMP_OFFSET, FIRST_TS);
        FrameFormat.putLong(f, FrameFormat.MAX_TIMESTAMP_OFFSET, FIRST_TS);
        FrameFormat.putInt(f, FrameFormat.RECORDS_LENGTH_OFFSET, records.length);
        System.arraycopy(records, 0, f, FrameFormat.HEADER_SIZE, records.length);
        return f;
    }

    /** A record: its body length, then {@code body}. */
    private static byte[] record(int... body) {
        return recordClaiming(body.length, body);
    }

    /** A record whose body length field says {@code length}, followed by {@code body}. */
    private static byte[] recordClaiming(int length, int... body) {
        ByteBuffer b = ByteBuffer.allocate(4 + body.length).order(ByteOrder.LITTLE_ENDIAN).putInt(length);
        for (int x : body) {
            b.put((byte) x);
        }
        return b.array();
    }

    private static byte[] bytes(int... b) {
        byte[] out = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            out[i] = (byte) b[i];
        }
        return out;
    }

    /**
     * The frame in a heap buffer that ends with it, and in a read-only direct buffer that ends with it at an odd
     * position (as a mapping window is read): a read past the section throws {@link IndexOutOfBoundsException}.
     */
    private static List<ByteBuffer> endingWith(byte[] frame) {
        return FrameDecoderShapesTest.buffers(frame);
    }

    /** The frame followed by {@code after} in one heap buffer (the next frame's bytes): a read past it takes them. */
    private static ByteBuffer followedBy(byte[] frame, int... after) {
        byte[] b = Arrays.copyOf(frame, frame.length + after.length);
        for (int i = 0; i < after.length; i++) {
            b[frame.length + i] = (byte) after[i];
        }
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static List<ByteBuffer> everywhere(byte[] frame) {
        List<ByteBuffer> out = new ArrayList<>(endingWith(frame));
        out.add(followedBy(frame, 0, 0, 0, 0, 0, 0, 0, 0));
        out.add(followedBy(frame, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80));
        return out;
    }

    /** Every placement of the frame fails with exactly this message. */
    private static void failsWith(byte[] frame, String message) {
        for (ByteBuffer buf : everywhere(frame)) {
            int pos = buf.isDirect() ? 3 : 0;
            assertThatThrownBy(() -> FrameDecoder.decode(buf, pos, frame.length, Long.MIN_VALUE, Integer.MAX_VALUE,
                    "t", 0, new ArrayList<>())).as("%s", buf).isExactlyInstanceOf(IllegalArgumentException.class)
                    .hasMessage(message);
        }
    }

    /** Every placement of the frame decodes to the same records; returns them. */
    private static List<KafkoRecord> decodes(byte[] frame) {
        List<KafkoRecord> first = null;
        for (ByteBuffer buf : everywhere(frame)) {
            int pos = buf.isDirect() ? 3 : 0;
            List<KafkoRecord> out = new ArrayList<>();
            int added = FrameDecoder.decode(buf, pos, frame.length, Long.MIN_VALUE, Integer.MAX_VALUE, "t", 0, out);
            assertThat(added).isEqualTo(out.size());
            if (first == null) {
                first = out;
            } else {
                assertThat(out.stream().map(FrameDecoderBoundsTest::fields).toList()).as("%s", buf)
                        .isEqualTo(first.stream().map(FrameDecoderBoundsTest::fields).toList());
            }
        }
        return first;
    }

    /** A record's fields, comparable across buffers. */
    private static String fields(KafkoRecord r) {
        StringBuilder b = new StringBuilder().append(r.offset()).append(' ').append(r.timestamp()).append(' ')
                .append(Arrays.toString(r.key())).append(' ').append(Arrays.toString(r.value()));
        for (Header h : r.headers()) {
            b.append(' ').append(h.key()).append('=').append(Arrays.toString(h.value()));
        }
        return b.toString();
    }

    // --- the body length: what is left of the section

    @Test
    void aBodyEndingExactlyAtTheSectionEndDecodes() {
        // the last record's 8 bytes are all that is left: its length, its body of 4
        List<KafkoRecord> out = decodes(frame(2, EMPTY_RECORD, EMPTY_RECORD));
        assertThat(out).extracting(KafkoRecord::offset).containsExactly(BASE, BASE + 1);
        assertThat(out.get(1).key()).isNull();
        assertThat(out.get(1).value()).isNull();
        assertThat(out.get(1).timestamp()).isEqualTo(FIRST_TS);
        // the same with a body of 5 (an empty key): 9 bytes left
        byte[] emptyKey = record(0, 1, 0, 0);
        assertThat(decodes(frame(2, EMPTY_RECORD, emptyKey)).get(1).key()).isEmpty();
    }

    @Test
    void aBodyOneBytePastTheSectionIsOutOfBoundsWhateverFollows() {
        // 3 bytes of body left, 4 claimed: the byte after the section (a header count of 0) would complete it
        failsWith(frame(1, recordClaiming(4, 0, 0, 0)), "record 0 has a body length 4 out of bounds");
        failsWith(frame(2, EMPTY_RECORD, recordClaiming(4, 0, 0, 0)), "record 1 has a body length 4 out of bounds");
    }

    @Test
    void fewerThanFourBytesLeftRunPastTheSection() {
        for (int left = 0; left < 4; left++) {
            failsWith(frame(2, EMPTY_RECORD, new byte[left]), "record 1 of 2 runs past the records section");
        }
    }

    @Test
    void exactlyFourBytesLeftAreABodyLength() {
        // a length of 5 with nothing after it: out of bounds, said with the length read
        failsWith(frame(2, EMPTY_RECORD, recordClaiming(5)), "record 1 has a body length 5 out of bounds");
        failsWith(frame(1, recordClaiming(1)), "record 0 has a body length 1 out of bounds");
        // a length of 0: an empty body, which has no timestamp delta
        failsWith(frame(2, EMPTY_RECORD, recordClaiming(0)), "varint runs past the record");
        failsWith(frame(1, recordClaiming(0)), "varint runs past the record");
    }

    @Test
    void aNegativeBodyLengthIsOutOfBounds() {
        failsWith(frame(1, recordClaiming(-1, 0, 0, 0, 0)), "record 0 has a body length -1 out of bounds");
    }

    // --- varints that end exactly at the body's end, or run past it

    @Test
    void aVarintWhoseLastByteIsTheBodysLastRunsPastIt() {
        // the key length starts a two-byte varint in the body's last byte
        failsWith(frame(1, record(0, 0x80)), "varint runs past the record");
        // the header count is missing: the body ends after the value length
        failsWith(frame(1, record(0, 0, 0)), "varint runs past the record");
        // the value length starts a varint in the last byte, after an empty key
        failsWith(frame(1, record(0, 1, 0x81)), "varint runs past the record");
        // the same with 8 bytes or more in the body (the short-field reading)
        failsWith(frame(1, record(0, 6, 1, 2, 3, 4, 5, 0x80)), "varint runs past the record");
    }

    @Test
    void aTimestampDeltaOfTenBytesDecodesAndOfElevenFails() {
        int[] ten = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0, 0, 0};
        List<KafkoRecord> out = decodes(frame(1, record(ten)));
        assertThat(out).hasSize(1);
        assertThat(out.get(0).timestamp()).isEqualTo(FIRST_TS);
        // a delta of -1 (zigzag 1) in ten bytes
        ten[0] = 0x81;
        assertThat(decodes(frame(1, record(ten))).get(0).timestamp()).isEqualTo(FIRST_TS - 1);
        int[] eleven = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0, 0, 0};
        failsWith(frame(1, record(eleven)), "varint longer than 10 bytes");
    }

    @Test
    void aLengthVarintOfIntegerMaxValueIsInRangeAndRunsPastTheRecord() {
        // key length + 1 = 2^31 - 1: a key of 2^31 - 2 bytes, which the body does not hold
        failsWith(frame(1, record(0, 0xFF, 0xFF, 0xFF, 0xFF, 0x07, 0, 0)),
                "a length of 2147483646 runs past the record");
        // 2^31: out of an int's range
        failsWith(frame(1, record(0, 0x80, 0x80, 0x80, 0x80, 0x08, 0, 0)), "varint out of range: 2147483648");
        // a header count of 2^31 - 1: its first header's key runs past
        failsWith(frame(1, record(0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x07, 5)), "a length of 5 runs past the record");
    }

    @Test
    void aKeyOrValueOneBytePastTheBodyRunsPastTheRecord() {
        // an empty key... then a value of 2 bytes with 1 left
        failsWith(frame(1, record(0, 1, 3, 9)), "a length of 2 runs past the record");
        // a key of 9 bytes in a body of 4
        failsWith(frame(1, record(0, 10, 0, 0)), "a length of 9 runs past the record");
        // a key exactly as long as what is left before the value length and header count
        List<KafkoRecord> out = decodes(frame(1, record(0, 3, 'a', 'b', 0, 0)));
        assertThat(out.get(0).key()).isEqualTo(new byte[] {'a', 'b'});
        assertThat(out.get(0).value()).isNull();
    }

    @Test
    void trailingBytesAreCounted() {
        failsWith(frame(1, record(0, 0, 0, 0, 7, 7)), "record at offset 1000 has 2 unexpected trailing bytes");
        failsWith(frame(1, record(0, 0, 0, 0, 7)), "record at offset 1000 has 1 unexpected trailing bytes");
    }

    // --- value lengths in three bytes: the short-field reading takes one or two

    @Test
    void aValueLengthInThreeBytesIsReadFieldByField() {
        // 0x81 0x80 0x00: an empty value, padded to three bytes; then no headers
        List<KafkoRecord> out = decodes(frame(1, record(0, 0, 0x81, 0x80, 0x00, 0)));
        assertThat(out.get(0).value()).isEmpty();
        assertThat(out.get(0).headers()).isEqualTo(Headers.empty());
        // 0x80 0x80 0x00: a null value in three bytes; the body ends before the header count
        failsWith(frame(1, record(0, 0, 0x80, 0x80, 0x00)), "varint runs past the record");
        failsWith(frame(1, record(0, 0, 0x81, 0x80, 0x00)), "varint runs past the record");
    }

    /**
     * A value length of two bytes is the low 7 bits of the first and the second shifted by 7: a record with a
     * 200-byte value and one header of nearly 15 MB whose last byte is 0, so that a length misread from those two
     * bytes (as if the second were shifted by 15 and the first by 8 more) could land on it and see a record of no
     * headers there. The record decodes as written.
     */
    @Test
    void aTwoByteValueLengthBeforeAHugeHeaderIsReadAsWritten() {
        int valueLength = 200; // + 1 = 201: 0xC9 0x01
        int headerValueLength = 14_974_843; // + 1 in four bytes
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(0); // timestamp delta
        body.write(0); // null key
        body.write(0xC9);
        body.write(0x01);
        body.writeBytes(new byte[valueLength]);
        body.write(1); // one header
        body.write(0); // its key: empty
        int n = headerValueLength + 1;
        body.write(n & 0x7F | 0x80);
        body.write(n >>> 7 & 0x7F | 0x80);
        body.write(n >>> 14 & 0x7F | 0x80);
        body.write(n >>> 21);
        byte[] headerValue = new byte[headerValueLength];
        Arrays.fill(headerValue, (byte) 0x55);
        headerValue[headerValueLength - 1] = 0;
        body.writeBytes(headerValue);
        byte[] b = body.toByteArray();
        byte[] rec = ByteBuffer.allocate(4 + b.length).order(ByteOrder.LITTLE_ENDIAN).putInt(b.length).put(b).array();
        byte[] frame = frame(1, rec);
        List<KafkoRecord> out = new ArrayList<>();
        assertThat(FrameDecoder.decode(frame, 0, frame.length, Long.MIN_VALUE, Integer.MAX_VALUE, "t", 0, out))
                .isEqualTo(1);
        assertThat(out.get(0).value()).hasSize(valueLength);
        assertThat(out.get(0).headers().size()).isEqualTo(1);
        assertThat(out.get(0).headers().get(0).value()).hasSize(headerValueLength);
    }

    // --- a reader's cursor

    @Test
    void aCursorAtTheEndOfTheFrameReadsNothing() {
        byte[] frame = frame(2, EMPTY_RECORD, EMPTY_RECORD);
        byte[] header = Arrays.copyOf(frame, FrameFormat.HEADER_SIZE);
        ByteBuffer buf = ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN);
        int[] cursor = {0, 0};
        List<KafkoRecord> out = new ArrayList<>();
        assertThat(FrameDecoder.decodeSection(header, buf, FrameFormat.HEADER_SIZE, BASE, 10, "t", 0, out, cursor))
                .isEqualTo(2);
        assertThat(cursor).containsExactly(2, 2 * EMPTY_RECORD.length);
        // the reader comes back for the next offset: the cursor it was given is past the last record
        assertThat(FrameDecoder.decodeSection(header, buf, FrameFormat.HEADER_SIZE, BASE + 2, 10, "t", 0, out, cursor))
                .isZero();
        assertThat(cursor).containsExactly(2, 2 * EMPTY_RECORD.length);
        assertThat(out).hasSize(2);
        // one record at a time
        int[] one = {0, 0};
        assertThat(FrameDecoder.decodeSection(header, buf, FrameFormat.HEADER_SIZE, BASE, 1, "t", 0, out, one))
                .isEqualTo(1);
        assertThat(one).containsExactly(1, EMPTY_RECORD.length);
        assertThat(FrameDecoder.decodeSection(header, buf, FrameFormat.HEADER_SIZE, BASE + 1, 1, "t", 0, out, one))
                .isEqualTo(1);
        assertThat(one).containsExactly(2, 2 * EMPTY_RECORD.length);
        assertThat(out).extracting(KafkoRecord::offset).containsExactly(BASE, BASE + 1, BASE, BASE + 1);
    }

    @Test
    void aCursorOutsideTheFrameOrPastTheOffsetAskedIsRefused() {
        byte[] frame = frame(2, EMPTY_RECORD, EMPTY_RECORD);
        byte[] header = Arrays.copyOf(frame, FrameFormat.HEADER_SIZE);
        ByteBuffer buf = ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN);
        int end = 2 * EMPTY_RECORD.length;
        int[][] outside = {{-1, 0}, {3, end}, {0, -1}, {2, end + 1}};
        for (int[] c : outside) {
            assertThatThrownBy(() -> FrameDecoder.decodeSection(header, buf, FrameFormat.HEADER_SIZE, BASE + 2, 10,
                    "t", 0, new ArrayList<>(), c.clone())).as("cursor %s", Arrays.toString(c))
                    .isExactlyInstanceOf(IllegalArgumentException.class).hasMessageEndingWith("is outside the frame");
        }
        // at record 1, asked for record 0: the reader would skip it
        assertThatThrownBy(() -> FrameDecoder.decodeSection(header, buf, FrameFormat.HEADER_SIZE, BASE, 10, "t", 0,
                new ArrayList<>(), new int[] {1, EMPTY_RECORD.length}))
                .isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage("cursor at record 1, position 8 is outside the frame");
        // at record 1, asked for record 1, or for an offset below the frame: the records from there
        List<KafkoRecord> out = new ArrayList<>();
        FrameDecoder.decodeSection(header, buf, FrameFormat.HEADER_SIZE, BASE + 1, 10, "t", 0, out,
                new int[] {1, EMPTY_RECORD.length});
        assertThat(out).extracting(KafkoRecord::offset).containsExactly(BASE + 1);
        // asked from below the frame (Long.MIN_VALUE) with a cursor at record 1: record 0 would be skipped
        assertThatThrownBy(() -> FrameDecoder.decodeSection(header, buf, FrameFormat.HEADER_SIZE, Long.MIN_VALUE, 10,
                "t", 0, new ArrayList<>(), new int[] {1, EMPTY_RECORD.length}))
                .isExactlyInstanceOf(IllegalArgumentException.class);
    }

    // --- the records section of a compressed frame

    private static List<OutgoingRecord> someRecords() {
        List<OutgoingRecord> records = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            byte[] value = new byte[100 + i];
            Arrays.fill(value, (byte) i);
            records.add(OutgoingRecord.of(("k" + i).getBytes(), value,
                    Headers.of(new Header("h", new byte[] {(byte) i})), FIRST_TS + i));
        }
        return records;
    }

    /** {@code got} are the records sent from index {@code first} on, at their offsets. */
    private static void assertSame(List<OutgoingRecord> sent, int first, List<KafkoRecord> got) {
        for (int i = 0; i < got.size(); i++) {
            OutgoingRecord r = sent.get(first + i);
            assertThat(got.get(i).offset()).isEqualTo(BASE + first + i);
            assertThat(got.get(i).key()).isEqualTo(r.key());
            assertThat(got.get(i).value()).isEqualTo(r.value());
            assertThat(got.get(i).headers()).isEqualTo(r.headers());
            assertThat(got.get(i).timestamp()).isEqualTo(r.timestamp());
        }
    }

    @Test
    void aCompressedFrameInflatesFromEveryKindOfBuffer() {
        for (Compression c : new Compression[] {Compression.LZ4, Compression.ZSTD}) {
            assumeTrue(c.isAvailable(), c + " is not on the class path");
            List<OutgoingRecord> sent = someRecords();
            byte[] frame = LogBridge.encode(c, sent, BASE, FIRST_TS);
            assertThat(Compression.fromId(frame[FrameFormat.ATTRIBUTES_OFFSET] & FrameFormat.CODEC_MASK)).isEqualTo(c);
            // a byte array, the frame at 5
            byte[] array = new byte[frame.length + 9];
            System.arraycopy(frame, 0, array, 5, frame.length);
            List<KafkoRecord> out = new ArrayList<>();
            assertThat(FrameDecoder.decode(array, 5, frame.length, Long.MIN_VALUE, Integer.MAX_VALUE, "t", 0, out))
                    .isEqualTo(sent.size());
            assertThat(out).hasSize(sent.size());
            assertSame(sent, 0, out);
            // a heap buffer that is a slice of a larger array (its array offset 7), the frame at 5 within it
            byte[] larger = new byte[frame.length + 20];
            System.arraycopy(frame, 0, larger, 12, frame.length);
            ByteBuffer slice = ByteBuffer.wrap(larger, 7, frame.length + 10).slice().order(ByteOrder.LITTLE_ENDIAN);
            assertThat(slice.arrayOffset()).isEqualTo(7);
            out.clear();
            assertThat(FrameDecoder.decode(slice, 5, frame.length, Long.MIN_VALUE, Integer.MAX_VALUE, "t", 0, out))
                    .isEqualTo(sent.size());
            assertThat(out).hasSize(sent.size());
            assertSame(sent, 0, out);
            // a read-only direct buffer (a mapping), the frame at 3, other bytes after it
            ByteBuffer direct = ByteBuffer.allocateDirect(frame.length + 11).order(ByteOrder.LITTLE_ENDIAN);
            direct.position(3);
            direct.put(frame);
            direct.put(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
            direct.clear();
            out.clear();
            assertThat(FrameDecoder.decode(direct.asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN), 3, frame.length,
                    BASE + 5, 3, "t", 0, out)).isEqualTo(3);
            assertThat(out).hasSize(3);
            assertSame(sent, 5, out);
        }
    }

    @Test
    void anUnknownCodecOrAMismatchedRecordsLengthIsMalformed() {
        byte[] frame = frame(1, EMPTY_RECORD);
        frame[FrameFormat.ATTRIBUTES_OFFSET] = 5;
        failsWith(frame, "unknown codec id 5");
        byte[] longer = frame(1, EMPTY_RECORD);
        FrameFormat.putInt(longer, FrameFormat.RECORDS_LENGTH_OFFSET, EMPTY_RECORD.length + 1);
        failsWith(longer, "records length 9 does not match frame length 52");
    }
}
