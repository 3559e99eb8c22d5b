package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Header;
import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The decoder against an independent reading of the record layout (docs/FORMAT.md), over records sections
 * built byte by byte: every field on both sides of its one- and two-byte varint limits, in its fewest bytes or
 * padded with continuation bytes (0x80 0x00), bodies of 0 to 8 bytes, bodies whose last fields are cut off
 * (the body length saying so), and bytes replaced where the short-field reading decides (a body length, the
 * timestamp delta, a length or a header count) or anywhere. A section is read whole, from an offset with a
 * record limit, and in pieces through a cursor (as a poll through a large frame reads it); from a heap buffer
 * that ends with it (an inflated section), a read-only direct view of a mapping window that ends with it (a
 * read past either throws), and a heap buffer in which the rest of the frame's bytes and foreign ones follow
 * it (a read past it takes them in). Every read must return exactly the records the reference reads, their
 * keys, values and headers included, or fail with {@link IllegalArgumentException} where the reference fails.
 */
class FrameDecoderDifferentialTest {

    private static final long BASE = 5_000;
    private static final long FIRST_TS = 1_700_000_000_000L;
    private static final int SECTIONS_PER_SEED = 100;
    /** The bytes a damaged field is given: zero, and both sides of the one-byte limit and of the sign bit. */
    private static final int[] REPLACEMENTS = {0x00, 0x01, 0x7E, 0x7F, 0x80, 0x81, 0xC0, 0xFF};

    static IntStream seeds() {
        return IntStream.range(0, 100);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void randomSectionsDecodeAsTheReferenceReadsThemOrFailWhereItFails(int seed) {
        Random random = new Random(seed);
        for (int n = 0; n < SECTIONS_PER_SEED; n++) {
            Section s = Section.random(random);
            int index = n;
            Supplier<String> what = () -> "seed " + seed + " section " + index + ": " + s;
            for (Placement placement : Placement.values()) {
                ByteBuffer buf = placement.buffer(s, random);
                int start = placement.start(buf, s);
                Supplier<String> where = () -> what.get() + ", " + placement;
                whole(buf, start, s, where);
                long from = BASE - 1 + random.nextInt(s.count + 2);
                int max = 1 + random.nextInt(s.count + 1);
                limited(buf, start, s, from, max, () -> where.get() + ", from " + from + " max " + max);
                inPieces(buf, start, s, from, random, () -> where.get() + ", pieces from " + from);
            }
        }
    }

    static IntStream keyLengths() {
        return IntStream.of(-1, 0, 1, 126, 127);
    }

    /**
     * Every record shape with a key of {@code key} bytes on both sides of the short-field limits, each field in
     * its fewest bytes or padded.
     */
    private static List<Shape> shapes(int key) {
        List<Shape> shapes = new ArrayList<>();
        // the largest timestamp delta of one byte (zigzag 127: -64 ms), and the smallest of two
        for (long zz : new long[] {127, 128}) {
            for (int value : new int[] {-1, 0, 1, 126, 127, 128, 16_382, 16_383}) {
                for (int headers : value > 128 ? new int[] {0, 1} : new int[] {0, 1, 2, 127, 128}) {
                    for (Padded padded : Padded.values()) {
                        shapes.add(new Shape(zz, key, value, headers, padded));
                    }
                }
            }
        }
        return shapes;
    }

    @ParameterizedTest
    @MethodSource("keyLengths")
    void aRecordCutShortAtTheEndOfItsBufferDecodesAsTheReferenceReadsIt(int key) {
        for (Shape shape : shapes(key)) {
            everyCut(shape);
        }
    }

    private static void everyCut(Shape shape) {
        Written w = shape.write();
        TreeSet<Integer> cuts = new TreeSet<>();
        for (int c = 0; c <= w.body.length; c++) {
            // every length of a short body; at both ends of a long one, and around each of its fields
            if (w.body.length <= 64 || c <= 8 || c >= w.body.length - 8) {
                cuts.add(c);
            }
        }
        for (int f : w.decisive()) {
            for (int c = Math.max(0, f - 3); c <= Math.min(w.body.length, f + 3); c++) {
                cuts.add(c);
            }
        }
        for (int c : cuts) {
            checkEverywhere(Section.after(Arrays.copyOf(w.body, c), c), () -> shape + " cut to " + c);
        }
    }

    @ParameterizedTest
    @MethodSource("keyLengths")
    void aRecordWithAFieldReplacedDecodesAsTheReferenceReadsIt(int key) {
        for (Shape shape : shapes(key)) {
            everyReplacement(shape);
        }
    }

    private static void everyReplacement(Shape shape) {
        Written w = shape.write();
        TreeSet<Integer> positions = new TreeSet<>();
        for (int f : w.decisive()) {
            positions.add(f);
            positions.add(f + 1);
        }
        for (int i = 0; i < 4; i++) {
            positions.add(i);
            positions.add(w.body.length - 1 - i);
        }
        for (int at : positions) {
            if (at < 0 || at >= w.body.length) {
                continue;
            }
            for (int x : REPLACEMENTS) {
                byte[] body = w.body.clone();
                body[at] = (byte) x;
                checkEverywhere(Section.after(body, body.length), () -> shape + " byte " + at + " = " + x);
            }
        }
        for (int delta = -4; delta <= 4; delta++) {
            // a body length that leaves bytes of the body out, or takes in bytes past it
            int d = delta;
            checkEverywhere(Section.after(w.body, w.body.length + d), () -> shape + " body length " + d);
        }
    }

    private static void checkEverywhere(Section s, Supplier<String> what) {
        Random random = new Random(s.end);
        for (Placement placement : Placement.values()) {
            ByteBuffer buf = placement.buffer(s, random);
            whole(buf, placement.start(buf, s), s, () -> what.get() + ", " + placement + ": " + s);
        }
    }

    private static void whole(ByteBuffer buf, int start, Section s, Supplier<String> where) {
        limited(buf, start, s, Long.MIN_VALUE, Integer.MAX_VALUE, () -> where.get() + ", whole");
    }

    private static void limited(ByteBuffer buf, int start, Section s, long from, int max, Supplier<String> where) {
        List<Decoded> want = new ArrayList<>();
        boolean fails = s.reference().read(from, max, want);
        List<KafkoRecord> out = new ArrayList<>();
        try {
            int added = FrameDecoder.decodeSection(s.header(), buf, start, from, max, "t", 0, out);
            if (fails) {
                throw new AssertionError(where.get() + ": decoded " + out + ", the reference fails after " + want);
            }
            assertThat(added).as(where).isEqualTo(want.size());
            assertThat(decoded(out)).as(where).isEqualTo(want);
        } catch (IllegalArgumentException e) {
            if (!fails) {
                throw new AssertionError(where.get() + ": failed, the reference reads " + want, e);
            }
        } catch (RuntimeException e) {
            throw new AssertionError(where.get() + ": failed with " + e + ", not IllegalArgumentException", e);
        }
    }

    /** Polls through the frame a few records at a time, each poll starting from the cursor the last one left. */
    private static void inPieces(ByteBuffer buf, int start, Section s, long from, Random random,
            Supplier<String> where) {
        List<Decoded> want = new ArrayList<>();
        boolean fails = s.reference().read(from, Integer.MAX_VALUE, want);
        List<KafkoRecord> out = new ArrayList<>();
        int[] cursor = {0, 0};
        long next = from;
        boolean failed = false;
        try {
            // a read from past the frame's last offset still walks its body lengths, and adds nothing
            do {
                int added = FrameDecoder.decodeSection(s.header(), buf, start, next, 1 + random.nextInt(3), "t", 0,
                        out, cursor);
                if (added == 0) {
                    assertThat(next).as(where).isGreaterThanOrEqualTo(BASE + s.count);
                    break;
                }
                next = out.get(out.size() - 1).offset() + 1;
                assertThat(cursor[0]).as(where).isEqualTo((int) (next - BASE));
            } while (next < BASE + s.count);
        } catch (IllegalArgumentException e) {
            failed = true;
        } catch (RuntimeException e) {
            throw new AssertionError(where.get() + ": failed with " + e + ", not IllegalArgumentException", e);
        }
        assertThat(failed).as(() -> where.get() + ": fails").isEqualTo(fails);
        // the records before the failure, if any, are those the reference reads before it
        assertThat(decoded(out)).as(where).isEqualTo(want);
    }

    private static List<Decoded> decoded(List<KafkoRecord> records) {
        List<Decoded> out = new ArrayList<>();
        for (KafkoRecord r : records) {
            out.add(new Decoded(r.offset(), r.timestamp(), text(r.key()), text(r.value()), r.headers()));
            assertThat(((LogRecord) r).valueLength()).isEqualTo(r.value() == null ? -1 : r.value().length);
        }
        return out;
    }

    /** The bytes as one char each (compared exactly, and cheaply for 16 KiB), or null. */
    private static @Nullable String text(byte @Nullable [] b) {
        return b == null ? null : new String(b, StandardCharsets.ISO_8859_1);
    }

    /** A record as compared here; headers compare by key and value bytes. */
    private record Decoded(long offset, long timestamp, @Nullable String key, @Nullable String value,
            Headers headers) {

        @Override
        public String toString() {
            return "@" + offset + " ts " + timestamp + " key " + (key == null ? "null" : key.length())
                    + " value " + (value == null ? "null" : value.length()) + " " + headers;
        }
    }

    /** Where the records section lies, and what follows it. */
    private enum Placement {
        /** An inflated section: a heap buffer of exactly the section, from 0. */
        HEAP_EXACT {
            @Override
            ByteBuffer buffer(Section s, Random random) {
                return ByteBuffer.wrap(Arrays.copyOf(s.bytes, s.end)).order(ByteOrder.LITTLE_ENDIAN);
            }
        },
        /** A copy of the frame, after which come the rest of its bytes, if cut short, and foreign ones. */
        HEAP_FOLLOWED {
            @Override
            ByteBuffer buffer(Section s, Random random) {
                byte[] b = new byte[FrameFormat.HEADER_SIZE + s.bytes.length + 16];
                byte[] foreign = new byte[16];
                random.nextBytes(foreign);
                System.arraycopy(s.bytes, 0, b, FrameFormat.HEADER_SIZE, s.bytes.length);
                System.arraycopy(foreign, 0, b, b.length - 16, 16);
                return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
            }

            @Override
            int start(ByteBuffer buf, Section s) {
                return FrameFormat.HEADER_SIZE;
            }
        },
        /** A view of a mapping window that ends where the section ends, its frame at an odd position. */
        DIRECT_VIEW_ENDING {
            /** Reused: the records of one read are compared before the next read. */
            private final ThreadLocal<ByteBuffer> windows = new ThreadLocal<>();

            @Override
            ByteBuffer buffer(Section s, Random random) {
                int lead = 1 + 2 * random.nextInt(8);
                ByteBuffer window = windows.get();
                int needed = lead + FrameFormat.HEADER_SIZE + s.end + 16;
                if (window == null || window.capacity() < needed) {
                    window = ByteBuffer.allocateDirect(Math.max(needed, 1 << 16));
                    windows.set(window);
                }
                window.clear().position(lead + FrameFormat.HEADER_SIZE);
                window.put(s.bytes, 0, s.end);
                window.put(new byte[] {(byte) 0x80, 0x7F, 0, 1, 2, 3, 4, 5});
                return window.slice(0, lead + FrameFormat.HEADER_SIZE + s.end).asReadOnlyBuffer()
                        .order(ByteOrder.LITTLE_ENDIAN);
            }

            @Override
            int start(ByteBuffer buf, Section s) {
                return buf.capacity() - s.end;
            }
        };

        abstract ByteBuffer buffer(Section s, Random random);

        int start(ByteBuffer buf, Section s) {
            return 0;
        }
    }

    /** Which field of a {@link Shape} is written in one byte more than it needs. */
    enum Padded {
        NONE, KEY_LENGTH, VALUE_LENGTH
    }

    /** A record: its zigzag timestamp delta, key and value lengths (-1: null) and header count. */
    record Shape(long zz, int key, int value, int headers, Padded padded) {

        Written write() {
            Random random = new Random(zz * 31 + key * 997L + value * 7L + headers * 13L + padded.ordinal());
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            List<Integer> fields = new ArrayList<>();
            varint(b, zz, 0, fields);
            bytesField(b, random, key, padded == Padded.KEY_LENGTH ? 1 : 0, fields);
            bytesField(b, random, value, padded == Padded.VALUE_LENGTH ? 1 : 0, fields);
            varint(b, headers, 0, fields);
            for (int h = 0; h < headers; h++) {
                byte[] k = ("h" + h).getBytes(StandardCharsets.UTF_8);
                varint(b, k.length, 0, fields);
                b.writeBytes(k);
                bytesField(b, random, h % 4 - 1, 0, fields);
            }
            return new Written(b.toByteArray(), fields);
        }
    }

    /** A record's body, and where each of its varints starts. */
    record Written(byte[] body, List<Integer> fields) {

        /**
         * Where the varints a short-field reading decides on start (the timestamp delta, the key and value
         * lengths, the header count, and the first header's), and the last two (where a body ends).
         */
        List<Integer> decisive() {
            List<Integer> out = new ArrayList<>(fields.subList(0, Math.min(6, fields.size())));
            out.addAll(fields.subList(Math.max(0, fields.size() - 2), fields.size()));
            return out;
        }
    }

    /** A records section and the frame header fields its decoding reads. */
    private record Section(byte[] bytes, int end, int count, String shapes) {

        byte[] header() {
            byte[] h = new byte[FrameFormat.HEADER_SIZE];
            FrameFormat.putLong(h, FrameFormat.BASE_OFFSET_OFFSET, BASE);
            FrameFormat.putInt(h, FrameFormat.RECORD_COUNT_OFFSET, count);
            FrameFormat.putLong(h, FrameFormat.FIRST_TIMESTAMP_OFFSET, FIRST_TS);
            FrameFormat.putInt(h, FrameFormat.RECORDS_LENGTH_OFFSET, end);
            return h;
        }

        Reading reference() {
            return Reading.of(this);
        }

        @Override
        public String toString() {
            return count + " records, end " + end + " of " + bytes.length + " bytes " + shapes;
        }

        /** A valid record of 8 bytes, then one of {@code body} whose body length says {@code length}. */
        static Section after(byte[] body, int length) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            // 1 ms after the frame's first, a null key, an empty value, no headers
            writeIntLe(out, 4);
            out.writeBytes(new byte[] {2, 0, 1, 0});
            writeIntLe(out, length);
            out.writeBytes(body);
            byte[] bytes = out.toByteArray();
            int end = Math.min(bytes.length, 12 + Math.max(length, 0));
            return new Section(bytes, end, 2, HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, 64)));
        }

        static Section random(Random random) {
            int n = 1 + random.nextInt(random.nextInt(8) == 0 ? 40 : 6);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            // the positions of body lengths, and of the first byte of every varint
            List<Integer> bodyAt = new ArrayList<>();
            List<Integer> fieldAt = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                bodyAt.add(out.size());
                List<Integer> fields = new ArrayList<>();
                byte[] body = body(random, fields);
                if (random.nextInt(8) == 0) {
                    // its last field or two cut off, the body length saying so: the fields stop short of the end
                    body = Arrays.copyOf(body, Math.max(0, body.length - 1 - random.nextInt(3)));
                }
                for (int f : fields) {
                    if (f < body.length) {
                        fieldAt.add(out.size() + 4 + f);
                    }
                }
                int length = body.length;
                if (random.nextInt(12) == 0) {
                    length += random.nextInt(7) - 3;
                }
                writeIntLe(out, length);
                out.writeBytes(body);
            }
            byte[] bytes = out.toByteArray();
            StringBuilder shapes = new StringBuilder();
            int damage = random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(3);
            for (int d = 0; d < damage; d++) {
                int at;
                int kind = random.nextInt(4);
                if (kind == 0) {
                    at = bodyAt.get(random.nextInt(bodyAt.size()));
                    int was = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getInt(at);
                    int body = random.nextBoolean() ? random.nextInt(10) : was + random.nextInt(5) - 2;
                    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(at, body);
                } else {
                    at = kind < 3 && !fieldAt.isEmpty() ? fieldAt.get(random.nextInt(fieldAt.size()))
                            : random.nextInt(bytes.length);
                    bytes[at] = pick(random, bytes[at]);
                }
                shapes.append("damaged at ").append(at).append(' ');
            }
            int end = bytes.length;
            if (random.nextInt(10) == 0) {
                end = random.nextInt(bytes.length + 1);
                shapes.append("cut ");
            }
            int count = n;
            if (random.nextInt(15) == 0) {
                count = Math.max(1, n + random.nextInt(3) - 1);
                shapes.append("count ").append(count).append(' ');
            }
            return new Section(bytes, end, count, shapes.append(HexFormat.of().formatHex(bytes, 0,
                    Math.min(bytes.length, 96))).toString());
        }

        private static byte pick(Random random, byte was) {
            return switch (random.nextInt(4)) {
                case 0 -> (byte) REPLACEMENTS[random.nextInt(REPLACEMENTS.length)];
                case 1 -> (byte) (was + (random.nextBoolean() ? 1 : -1));
                case 2 -> (byte) (was ^ 1 << random.nextInt(8));
                default -> (byte) random.nextInt(256);
            };
        }

        /** One record's body, fields drawn mostly at the limits of their shortest encodings; adds their starts. */
        private static byte[] body(Random random, List<Integer> fields) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            if (random.nextInt(12) == 0) {
                // 0 to 8 bytes of anything
                byte[] tiny = new byte[random.nextInt(9)];
                random.nextBytes(tiny);
                for (int i = 0; i < tiny.length; i++) {
                    fields.add(i);
                }
                return tiny;
            }
            long[] deltas = {0, 1, -1, 63, -64, 64, -65, 8191, -8192, 8192, random.nextLong()};
            long delta = deltas[random.nextInt(deltas.length)];
            varint(b, (delta << 1) ^ (delta >> 63), padding(random), fields);
            int[] keys = {-1, 0, 1, 7, 125, 126, 127, 128, 300};
            bytesField(b, random, keys[random.nextInt(keys.length)], padding(random), fields);
            int[] values = {-1, 0, 1, 2, 126, 127, 128, 200, 16_381, 16_382, 16_383, 16_384, 20_000};
            int value = values[random.nextInt(values.length)];
            if (value > 200 && random.nextInt(4) != 0) {
                value = random.nextInt(200);
            }
            bytesField(b, random, value, padding(random), fields);
            int[] counts = {0, 0, 0, 1, 2, 3, 127, 128};
            int headers = counts[random.nextInt(counts.length)];
            varint(b, headers, padding(random), fields);
            for (int h = 0; h < headers; h++) {
                byte[] key = ("h" + random.nextInt(h + 1)).getBytes(StandardCharsets.UTF_8);
                if (random.nextInt(20) == 0) {
                    key = new byte[] {(byte) 0xC3};
                }
                varint(b, key.length, padding(random), fields);
                b.writeBytes(key);
                bytesField(b, random, random.nextInt(5) - 1, padding(random), fields);
            }
            return b.toByteArray();
        }

        /** Mostly none; else one or two continuation bytes more than the value needs. */
        private static int padding(Random random) {
            return random.nextInt(8) == 0 ? 1 + random.nextInt(2) : 0;
        }
    }

    /** A length + 1 (0 for null), then that many bytes. */
    private static void bytesField(ByteArrayOutputStream b, Random random, int length, int padding,
            List<Integer> fields) {
        varint(b, length + 1L, padding, fields);
        if (length > 0) {
            byte[] bytes = new byte[length];
            random.nextBytes(bytes);
            b.writeBytes(bytes);
        }
    }

    /** Unsigned LEB128 in its fewest bytes and {@code padding} more (continuation bytes), ten at most. */
    private static void varint(ByteArrayOutputStream b, long v, int padding, List<Integer> fields) {
        fields.add(b.size());
        int bytes = 1;
        while (bytes < 10 && v >>> (7 * bytes) != 0) {
            bytes++;
        }
        bytes = Math.min(10, bytes + padding);
        for (int i = 0; i < bytes; i++) {
            int group = (int) (v >>> (7 * i)) & 0x7F;
            b.write(i < bytes - 1 ? group | 0x80 : group);
        }
    }

    private static void writeIntLe(ByteArrayOutputStream out, int v) {
        out.write(v);
        out.write(v >>> 8);
        out.write(v >>> 16);
        out.write(v >>> 24);
    }

    /**
     * The reference: each record of a section read from the layout alone, byte by byte, as a decoded record,
     * or null for a record whose body fails; and the index of the first body length that fails (after which
     * nothing more can be read), or -1.
     */
    private record Reading(List<@Nullable Decoded> records, int bodyFailsAt) {

        static Reading of(Section s) {
            List<@Nullable Decoded> records = new ArrayList<>();
            int p = 0;
            for (int i = 0; i < s.count; i++) {
                if (s.end - p < 4) {
                    return new Reading(records, i);
                }
                long body = (s.bytes[p] & 0xFF) | (s.bytes[p + 1] & 0xFF) << 8 | (s.bytes[p + 2] & 0xFF) << 16
                        | (long) s.bytes[p + 3] << 24;
                if (body < 0 || p + 4 + body > s.end) {
                    return new Reading(records, i);
                }
                int bodyEnd = (int) (p + 4 + body);
                records.add(record(s.bytes, p + 4, bodyEnd, BASE + i));
                p = bodyEnd;
            }
            return new Reading(records, -1);
        }

        /**
         * Adds to {@code out} what a read from {@code from} of at most {@code max} records returns; whether it
         * fails after them. Records before {@code from} are skipped by their body length alone.
         */
        boolean read(long from, int max, List<Decoded> out) {
            for (int i = 0; out.size() < max; i++) {
                if (i == bodyFailsAt) {
                    return true;
                }
                if (i == records.size()) {
                    return false;
                }
                if (BASE + i < from) {
                    continue;
                }
                Decoded r = records.get(i);
                if (r == null) {
                    return true;
                }
                out.add(r);
            }
            return false;
        }

        private static @Nullable Decoded record(byte[] b, int from, int end, long offset) {
            int[] p = {from};
            try {
                long zz = varlong(b, p, end);
                long ts = FIRST_TS + ((zz >>> 1) ^ -(zz & 1));
                byte[] key = nullable(b, p, end);
                byte[] value = nullable(b, p, end);
                int count = varint(b, p, end);
                List<Header> headers = new ArrayList<>();
                for (int h = 0; h < count; h++) {
                    String k = new String(take(b, p, varint(b, p, end), end), StandardCharsets.UTF_8);
                    headers.add(new Header(k, nullable(b, p, end)));
                }
                if (p[0] != end) {
                    return null;
                }
                return new Decoded(offset, ts, text(key), text(value), Headers.of(headers));
            } catch (IllegalStateException e) {
                return null;
            }
        }

        private static byte @Nullable [] nullable(byte[] b, int[] p, int end) {
            int lengthPlusOne = varint(b, p, end);
            return lengthPlusOne == 0 ? null : take(b, p, lengthPlusOne - 1, end);
        }

        private static byte[] take(byte[] b, int[] p, int n, int end) {
            if (n > end - p[0]) {
                throw new IllegalStateException("past the body");
            }
            p[0] += n;
            return Arrays.copyOfRange(b, p[0] - n, p[0]);
        }

        private static int varint(byte[] b, int[] p, int end) {
            long v = varlong(b, p, end);
            if (v < 0 || v > Integer.MAX_VALUE) {
                throw new IllegalStateException("not an int");
            }
            return (int) v;
        }

        /** Unsigned LEB128 of at most ten bytes; bits past 64 are dropped. */
        private static long varlong(byte[] b, int[] p, int end) {
            long v = 0;
            for (int i = 0; i < 10; i++) {
                if (p[0] >= end) {
                    throw new IllegalStateException("past the body");
                }
                int x = b[p[0]++];
                v |= (long) (x & 0x7F) << (7 * i);
                if (x >= 0) {
                    return v;
                }
            }
            throw new IllegalStateException("longer than ten bytes");
        }
    }
}
