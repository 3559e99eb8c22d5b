package dev.kafko.spring.test;

import dev.kafko.Header;
import dev.kafko.KafkoRecord;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One thing a test expects of a record: what {@link KafkoConditions} and {@link KafkoMatchers} both check, so that
 * the AssertJ and the Hamcrest forms never disagree.
 *
 * @param expected what the record should have, as a failure message says it ({@code key "o-1"})
 * @param field    the same part of a record, as the failure message shows the record's
 * @param part     the part of the record compared: a {@code byte[]}, a {@code Long}, an {@code Integer}, or
 *                 {@link #ABSENT} for a header the record does not have
 * @param wanted   what it must equal (byte for byte for bytes)
 */
record RecordCheck(String expected, String field, Function<KafkoRecord, @Nullable Object> part,
                   @Nullable Object wanted) {

    /** The part of a record without the header asked for: a header of that name with a null value is not none. */
    private static final Object ABSENT = new Object();

    /** Bytes shown as text up to this length; longer ones are cut with their length. */
    private static final int SHOWN = 64;

    static RecordCheck key(byte @Nullable [] key) {
        return new RecordCheck("key " + show(key), "key", KafkoRecord::key, key);
    }

    static RecordCheck value(byte @Nullable [] value) {
        return new RecordCheck("value " + show(value), "value", KafkoRecord::value, value);
    }

    static RecordCheck partition(int partition) {
        return new RecordCheck("partition " + partition, "partition", KafkoRecord::partition, partition);
    }

    static RecordCheck offset(long offset) {
        return new RecordCheck("offset " + offset, "offset", KafkoRecord::offset, offset);
    }

    static RecordCheck timestamp(long timestamp) {
        return new RecordCheck("timestamp " + timestamp, "timestamp", KafkoRecord::timestamp, timestamp);
    }

    static RecordCheck header(String name, byte @Nullable [] value) {
        Objects.requireNonNull(name, "name");
        return new RecordCheck("last header '" + name + "' " + show(value), "last header '" + name + "'",
                record -> {
                    Header header = record.headers().lastHeader(name);
                    return header == null ? ABSENT : header.value();
                }, value);
    }

    /** Whether the record has it; a {@code null} record has nothing. */
    boolean test(@Nullable KafkoRecord record) {
        return record != null && Objects.deepEquals(part.apply(record), wanted);
    }

    /**
     * What the record has instead, for a Hamcrest mismatch: {@code key "o-2" (orders-1@7)} (Hamcrest's own says "was
     * null" of a null record).
     */
    String found(KafkoRecord record) {
        Object actual = part.apply(record);
        String shown = actual == ABSENT ? "none"
                : actual == null || actual instanceof byte[] ? show((byte[]) actual) : String.valueOf(actual);
        return field + " " + shown + " (" + record.topic() + "-" + record.partition() + "@" + record.offset() + ")";
    }

    /**
     * Null, UTF-8 text in quotes, or hexadecimal bytes; the first {@value #SHOWN} of them (text: up to the character
     * the cut falls in), with the length after.
     */
    static String show(byte @Nullable [] bytes) {
        if (bytes == null) {
            return "null";
        }
        int length = Math.min(bytes.length, SHOWN);
        String more = bytes.length > SHOWN ? "... (" + bytes.length + " bytes)" : "";
        // a cut inside a character leaves that character out (not the end of the input: no error), so that long
        // text in any script is shown as text; bytes that are no UTF-8 are an error wherever they are
        CharBuffer text = CharBuffer.allocate(length);
        CoderResult decoded = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(bytes, 0, length), text, length == bytes.length);
        text.flip();
        if (!decoded.isError() && text.chars().noneMatch(c -> Character.isISOControl(c) && c != '\n' && c != '\t')) {
            return '"' + text.toString() + '"' + more;
        }
        StringBuilder hex = new StringBuilder("0x");
        for (int i = 0; i < length; i++) {
            hex.append(Character.forDigit((bytes[i] >> 4) & 0xF, 16)).append(Character.forDigit(bytes[i] & 0xF, 16));
        }
        return hex + more;
    }
}
