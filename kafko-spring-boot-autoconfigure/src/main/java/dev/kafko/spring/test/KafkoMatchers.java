package dev.kafko.spring.test;

import static dev.kafko.spring.test.KafkoConditions.utf8;

import dev.kafko.KafkoRecord;
import org.hamcrest.Description;
import org.hamcrest.Matcher;
import org.hamcrest.TypeSafeDiagnosingMatcher;
import org.jspecify.annotations.Nullable;

/**
 * Hamcrest {@link Matcher}s of a {@link KafkoRecord}, kafko's counterpart of spring-kafka-test's
 * {@code KafkaMatchers}; they compare as {@link KafkoConditions} does (the {@code String} forms by UTF-8 bytes), and
 * a mismatch shows what the record has and where it is:
 *
 * <pre>{@code
 * assertThat(record, allOf(hasKey("o-1"), hasPartition(2)));
 * // Expected: a record with key "o-1" ... but: key "o-2" (orders-1@7)
 * }</pre>
 *
 * Needs {@code org.hamcrest:hamcrest} on the test class path (Boot's {@code spring-boot-starter-test} brings it).
 */
public final class KafkoMatchers {

    private KafkoMatchers() {
    }

    /** A record whose key is the string's UTF-8 bytes ({@code null}: a record without a key). */
    public static Matcher<KafkoRecord> hasKey(@Nullable String key) {
        return of(RecordCheck.key(utf8(key)));
    }

    /** A record whose key is these bytes ({@code null}: a record without a key). */
    public static Matcher<KafkoRecord> hasKey(byte @Nullable [] key) {
        return of(RecordCheck.key(key));
    }

    /** A record whose value is the string's UTF-8 bytes ({@code null}: a record without a value, a tombstone). */
    public static Matcher<KafkoRecord> hasValue(@Nullable String value) {
        return of(RecordCheck.value(utf8(value)));
    }

    /** A record whose value is these bytes ({@code null}: a record without a value, a tombstone). */
    public static Matcher<KafkoRecord> hasValue(byte @Nullable [] value) {
        return of(RecordCheck.value(value));
    }

    /** A record of this partition. */
    public static Matcher<KafkoRecord> hasPartition(int partition) {
        return of(RecordCheck.partition(partition));
    }

    /** A record at this offset. */
    public static Matcher<KafkoRecord> hasOffset(long offset) {
        return of(RecordCheck.offset(offset));
    }

    /** A record with this timestamp (milliseconds since the epoch). */
    public static Matcher<KafkoRecord> hasTimestamp(long timestamp) {
        return of(RecordCheck.timestamp(timestamp));
    }

    /** A record whose last header of this name has the string's UTF-8 bytes as its value (see {@link KafkoConditions#header}). */
    public static Matcher<KafkoRecord> hasHeader(String name, @Nullable String value) {
        return of(RecordCheck.header(name, utf8(value)));
    }

    /** A record whose last header of this name has these bytes as its value (see {@link KafkoConditions#header}). */
    public static Matcher<KafkoRecord> hasHeader(String name, byte @Nullable [] value) {
        return of(RecordCheck.header(name, value));
    }

    private static Matcher<KafkoRecord> of(RecordCheck check) {
        return new RecordMatcher(check);
    }

    private static final class RecordMatcher extends TypeSafeDiagnosingMatcher<KafkoRecord> {

        private final RecordCheck check;

        RecordMatcher(RecordCheck check) {
            this.check = check;
        }

        @Override
        protected boolean matchesSafely(KafkoRecord record, Description mismatch) {
            if (check.test(record)) {
                return true;
            }
            mismatch.appendText(check.found(record));
            return false;
        }

        @Override
        public void describeTo(Description description) {
            description.appendText("a record with " + check.expected());
        }
    }
}
