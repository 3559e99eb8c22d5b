package dev.kafko.spring.test;

import dev.kafko.KafkoRecord;
import java.nio.charset.StandardCharsets;
import org.assertj.core.api.Condition;
import org.assertj.core.condition.AllOf;
import org.jspecify.annotations.Nullable;

/**
 * AssertJ {@link Condition}s on a {@link KafkoRecord}, kafko's counterpart of spring-kafka-test's
 * {@code KafkaConditions}. A record's key and value are the stored bytes: the {@code String} forms compare them with
 * the string's UTF-8 bytes, the {@code byte[]} forms byte for byte; {@code null} stands for a record without one
 * (write {@code key((String) null)}). A {@code null} record, such as {@code KafkoTemplate.receive} returns when it
 * finds none, has none of them; they are conditions of a {@code @Nullable KafkoRecord}, so that Kotlin takes them for
 * a {@code KafkoRecord?} as for a {@code KafkoRecord}.
 *
 * <pre>{@code
 * KafkoRecord record = KafkoTestUtils.singleRecord(consumer, Duration.ofSeconds(5));
 * assertThat(record).has(key("o-1")).has(partition(2)).has(header("source", "web"));
 * assertThat(records).haveExactly(1, value("{\"id\":\"o-1\",\"total\":42}"));
 * }</pre>
 *
 * Needs {@code org.assertj:assertj-core} on the test class path (Boot's {@code spring-boot-starter-test} brings it).
 */
public final class KafkoConditions {

    private KafkoConditions() {
    }

    /** A record whose key is the string's UTF-8 bytes ({@code null}: a record without a key). */
    public static Condition<@Nullable KafkoRecord> key(@Nullable String key) {
        return of(RecordCheck.key(utf8(key)));
    }

    /** A record whose key is these bytes ({@code null}: a record without a key). */
    public static Condition<@Nullable KafkoRecord> key(byte @Nullable [] key) {
        return of(RecordCheck.key(key));
    }

    /** A record whose value is the string's UTF-8 bytes ({@code null}: a record without a value, a tombstone). */
    public static Condition<@Nullable KafkoRecord> value(@Nullable String value) {
        return of(RecordCheck.value(utf8(value)));
    }

    /** A record whose value is these bytes ({@code null}: a record without a value, a tombstone). */
    public static Condition<@Nullable KafkoRecord> value(byte @Nullable [] value) {
        return of(RecordCheck.value(value));
    }

    /** A record with both this key and this value, as {@link #key(String)} and {@link #value(String)} compare them. */
    public static Condition<@Nullable KafkoRecord> keyValue(@Nullable String key, @Nullable String value) {
        return AllOf.allOf(key(key), value(value));
    }

    /** A record of this partition. */
    public static Condition<@Nullable KafkoRecord> partition(int partition) {
        return of(RecordCheck.partition(partition));
    }

    /** A record at this offset. */
    public static Condition<@Nullable KafkoRecord> offset(long offset) {
        return of(RecordCheck.offset(offset));
    }

    /** A record with this timestamp (milliseconds since the epoch; kafko has one kind of timestamp: the send's). */
    public static Condition<@Nullable KafkoRecord> timestamp(long timestamp) {
        return of(RecordCheck.timestamp(timestamp));
    }

    /**
     * A record whose last header of this name has the string's UTF-8 bytes as its value ({@code null}: a header of
     * that name with no value; a record without a header of that name never has it).
     */
    public static Condition<@Nullable KafkoRecord> header(String name, @Nullable String value) {
        return of(RecordCheck.header(name, utf8(value)));
    }

    /**
     * A record whose last header of this name has these bytes as its value ({@code null}: a header of that name with
     * no value; a record without a header of that name never has it).
     */
    public static Condition<@Nullable KafkoRecord> header(String name, byte @Nullable [] value) {
        return of(RecordCheck.header(name, value));
    }

    private static Condition<@Nullable KafkoRecord> of(RecordCheck check) {
        return new Condition<>(check::test, "a record with " + check.expected());
    }

    static byte @Nullable [] utf8(@Nullable String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }
}
