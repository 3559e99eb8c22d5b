package dev.kafko.spring.test;

import static dev.kafko.spring.test.KafkoConditions.header;
import static dev.kafko.spring.test.KafkoConditions.key;
import static dev.kafko.spring.test.KafkoConditions.keyValue;
import static dev.kafko.spring.test.KafkoConditions.offset;
import static dev.kafko.spring.test.KafkoConditions.partition;
import static dev.kafko.spring.test.KafkoConditions.timestamp;
import static dev.kafko.spring.test.KafkoConditions.value;
import static dev.kafko.spring.test.KafkoMatchers.hasHeader;
import static dev.kafko.spring.test.KafkoMatchers.hasKey;
import static dev.kafko.spring.test.KafkoMatchers.hasOffset;
import static dev.kafko.spring.test.KafkoMatchers.hasPartition;
import static dev.kafko.spring.test.KafkoMatchers.hasTimestamp;
import static dev.kafko.spring.test.KafkoMatchers.hasValue;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.not;

import dev.kafko.Consumer;
import dev.kafko.Header;
import dev.kafko.Headers;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.assertj.core.api.Condition;
import org.hamcrest.Matcher;
import org.hamcrest.StringDescription;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link KafkoConditions} and {@link KafkoMatchers} over records read back from a log: each one matches the record that
 * has what it names and no other, the string forms compare UTF-8 bytes, {@code null} stands for a missing key or
 * value, and a failure says what was expected and what the record has.
 */
class KafkoConditionsAndMatchersTest {

    private static final long TIME = 1_700_000_000_123L;
    private static final byte[] BINARY = {0, (byte) 0xff, 7};

    @TempDir
    static Path dir;
    private static Kafko kafko;
    /** Partition 1: "o-1"/"paid" with headers, a tombstone of "o-1", one of binary key, value and header; 0: one. */
    private static final List<KafkoRecord> records = new ArrayList<>();

    @BeforeAll
    static void writeAndReadBack() {
        kafko = Kafko.open(dir);
        kafko.createTopic("orders", TopicConfig.builder().partitions(2).build());
        var producer = kafko.producer("orders");
        producer.sendBatch(List.of(
                OutgoingRecord.of("o-1".getBytes(UTF_8), "paid".getBytes(UTF_8),
                        Headers.of(new Header("source", "app".getBytes(UTF_8)), new Header("source", "web".getBytes(UTF_8)),
                                new Header("trace", null)), TIME),
                OutgoingRecord.of("o-1".getBytes(UTF_8), null, Headers.empty(), TIME + 1),
                OutgoingRecord.of(BINARY, BINARY, Headers.of(new Header("sig", BINARY.clone())), TIME + 2)), new int[] {1, 1, 1}).join();
        producer.sendTo(0, null, "x".repeat(100).getBytes(UTF_8)).join();
        try (Consumer consumer = kafko.consumer("orders")) {
            while (records.size() < 4) {
                records.addAll(consumer.poll(Duration.ofSeconds(5)));
            }
        }
        records.sort((a, b) -> a.partition() != b.partition() ? b.partition() - a.partition()
                : Long.compare(a.offset(), b.offset()));
    }

    @AfterAll
    static void close() {
        kafko.close();
    }

    private static KafkoRecord paid() {
        return records.get(0);
    }

    private static KafkoRecord tombstone() {
        return records.get(1);
    }

    private static KafkoRecord binary() {
        return records.get(2);
    }

    private static KafkoRecord keyless() {
        return records.get(3);
    }

    @Test
    void eachConditionMatchesTheRecordThatHasWhatItNamesOnly() {
        assertThat(paid()).has(key("o-1")).has(value("paid")).has(keyValue("o-1", "paid")).has(partition(1))
                .has(offset(0)).has(timestamp(TIME)).has(header("source", "web")).has(header("trace", (String) null));
        assertThat(paid()).doesNotHave(key("o-2")).doesNotHave(value("PAID")).doesNotHave(keyValue("o-1", "open"))
                .doesNotHave(keyValue("o-2", "paid")).doesNotHave(partition(0)).doesNotHave(offset(1))
                .doesNotHave(timestamp(TIME + 1)).doesNotHave(header("source", "app"))
                .doesNotHave(header("trace", "")).doesNotHave(header("missing", (String) null))
                .doesNotHave(key((String) null)).doesNotHave(value((String) null));
        assertThat(tombstone()).has(value((String) null)).has(value((byte[]) null)).has(key("o-1")).has(offset(1))
                .doesNotHave(value("")).doesNotHave(header("source", "web"));
        assertThat(binary()).has(key(BINARY.clone())).has(value(BINARY.clone()))
                .doesNotHave(key(new byte[] {0, (byte) 0xff})).doesNotHave(value(new byte[0]));
        assertThat(keyless()).has(key((String) null)).has(key((byte[]) null)).has(partition(0))
                .doesNotHave(key(""));
        assertThat(records).haveExactly(2, key("o-1")).haveExactly(1, value("paid"))
                .haveExactly(3, partition(1));
    }

    @Test
    void eachMatcherMatchesTheRecordThatHasWhatItNamesOnly() {
        assertThat(paid(), allOf(hasKey("o-1"), hasValue("paid"), hasPartition(1), hasOffset(0), hasTimestamp(TIME),
                hasHeader("source", "web"), hasHeader("trace", (String) null)));
        assertThat(paid(), allOf(not(hasKey("o-2")), not(hasValue("PAID")), not(hasPartition(0)), not(hasOffset(1)),
                not(hasTimestamp(TIME + 1)), not(hasHeader("source", "app")), not(hasHeader("missing", (String) null)),
                not(hasKey((String) null))));
        assertThat(tombstone(), allOf(hasValue((String) null), hasValue((byte[]) null), not(hasValue(""))));
        assertThat(binary(), allOf(hasKey(BINARY.clone()), hasValue(BINARY.clone()), not(hasKey(new byte[0]))));
        assertThat(keyless(), allOf(hasKey((String) null), not(hasKey(""))));
        assertThat(null, not(hasKey((String) null)));
    }

    @Test
    void aFailedConditionSaysWhatTheRecordShouldHave() {
        assertThatThrownBy(() -> assertThat(paid()).has(key("o-2")))
                .isInstanceOf(AssertionError.class).hasMessageContaining("a record with key \"o-2\"");
        assertThatThrownBy(() -> assertThat(paid()).has(header("source", "app")))
                .hasMessageContaining("a record with last header 'source' \"app\"");
        Condition<KafkoRecord> binaryKey = key(BINARY);
        assertThat(binaryKey.description().value()).isEqualTo("a record with key 0x00ff07");
    }

    @Test
    void aMismatchShowsWhatTheRecordHasAndWhereItIs() {
        assertThat(mismatch(hasKey("o-2"), paid())).isEqualTo("key \"o-1\" (orders-1@0)");
        assertThat(mismatch(hasValue("paid"), tombstone())).isEqualTo("value null (orders-1@1)");
        assertThat(mismatch(hasValue("x"), binary())).isEqualTo("value 0x00ff07 (orders-1@2)");
        assertThat(mismatch(hasValue("x"), keyless()))
                .isEqualTo("value \"" + "x".repeat(64) + "\"... (100 bytes) (orders-0@0)");
        assertThat(mismatch(hasHeader("missing", "a"), paid())).isEqualTo("last header 'missing' none (orders-1@0)");
        assertThat(mismatch(hasHeader("trace", "a"), paid())).isEqualTo("last header 'trace' null (orders-1@0)");
        assertThat(mismatch(hasPartition(0), paid())).isEqualTo("partition 1 (orders-1@0)");
        assertThat(mismatch(hasOffset(5), paid())).isEqualTo("offset 0 (orders-1@0)");
        assertThat(mismatch(hasTimestamp(5), paid())).isEqualTo("timestamp " + TIME + " (orders-1@0)");
        StringDescription expected = new StringDescription();
        hasKey("o-2").describeTo(expected);
        assertThat(expected.toString()).isEqualTo("a record with key \"o-2\"");
    }

    @Test
    void bytesThatAreNotTextAreShownInHexadecimalAndLongOnesCut() {
        assertThat(RecordCheck.show(null)).isEqualTo("null");
        assertThat(RecordCheck.show(new byte[0])).isEqualTo("\"\"");
        assertThat(RecordCheck.show("é\n".getBytes(UTF_8))).isEqualTo("\"é\n\"");
        assertThat(RecordCheck.show(new byte[] {'a', 1})).isEqualTo("0x6101");
        assertThat(RecordCheck.show(new byte[] {(byte) 0xc3})).isEqualTo("0xc3");
        assertThat(RecordCheck.show("y".repeat(64).getBytes(UTF_8))).as("64 bytes: all of them")
                .isEqualTo("\"" + "y".repeat(64) + "\"");
        byte[] longBinary = new byte[70];
        assertThat(RecordCheck.show(longBinary)).isEqualTo("0x" + "00".repeat(64) + "... (70 bytes)");
    }

    /** B256: a text whose 64th byte fell inside a character was shown in hexadecimal, as binary data is. */
    @Test
    void longTextIsShownAsTextWhereverItsCutFalls() {
        String accented = "a" + "é".repeat(40); // 81 bytes: the 64th is the first of an é
        assertThat(RecordCheck.show(accented.getBytes(UTF_8)))
                .isEqualTo("\"a" + "é".repeat(31) + "\"... (81 bytes)");
        String japanese = "注文".repeat(20); // 3 bytes a character: 64 bytes end one byte into the 22nd
        assertThat(RecordCheck.show(japanese.getBytes(UTF_8)))
                .isEqualTo("\"" + japanese.substring(0, 21) + "\"... (120 bytes)");
        String emoji = "😀".repeat(20); // 4 bytes a character: 64 bytes end on one
        assertThat(RecordCheck.show(("ab" + emoji).getBytes(UTF_8)))
                .isEqualTo("\"ab" + "😀".repeat(15) + "\"... (82 bytes)");
        byte[] notText = new byte[70]; // text, then bytes that begin no character, before and after the cut
        Arrays.fill(notText, 0, 61, (byte) 'a');
        Arrays.fill(notText, 61, 70, (byte) 0x80);
        assertThat(RecordCheck.show(notText)).as("still bytes")
                .isEqualTo("0x" + "61".repeat(61) + "80".repeat(3) + "... (70 bytes)");
        assertThat(RecordCheck.show(Arrays.copyOf("注".getBytes(UTF_8), 2))).as("cut short at its end: no text")
                .isEqualTo("0xe6b3");
        assertThat(mismatch(hasValue("x"), valued(japanese)))
                .isEqualTo("value \"" + japanese.substring(0, 21) + "\"... (120 bytes) (orders-1@0)");
    }

    @Test
    void aHeaderOfBytesComparesItsBytes() {
        assertThat(binary()).has(header("sig", BINARY.clone())).doesNotHave(header("sig", new byte[] {0, (byte) 0xff}))
                .doesNotHave(header("sig", (byte[]) null)).doesNotHave(header("other", BINARY.clone()));
        assertThat(paid()).has(header("trace", (byte[]) null)).has(header("source", "web".getBytes(UTF_8)))
                .doesNotHave(header("source", "app".getBytes(UTF_8))).doesNotHave(header("missing", (byte[]) null));
        assertThat(binary(), allOf(hasHeader("sig", BINARY.clone()), not(hasHeader("sig", new byte[0]))));
        assertThat(paid(), allOf(hasHeader("trace", (byte[]) null), not(hasHeader("missing", (byte[]) null))));
        assertThat(mismatch(hasHeader("sig", new byte[0]), binary())).isEqualTo("last header 'sig' 0x00ff07 (orders-1@2)");
        assertThat(header("sig", BINARY).description().value()).isEqualTo("a record with last header 'sig' 0x00ff07");
        assertThatThrownBy(() -> header(null, BINARY)).isInstanceOf(NullPointerException.class).hasMessage("name");
        assertThatThrownBy(() -> hasHeader(null, BINARY)).isInstanceOf(NullPointerException.class).hasMessage("name");
    }

    @Test
    void aHeaderWithoutAName() {
        assertThatThrownBy(() -> header(null, "v")).isInstanceOf(NullPointerException.class).hasMessage("name");
        assertThatThrownBy(() -> hasHeader(null, "v")).isInstanceOf(NullPointerException.class).hasMessage("name");
    }

    /** A record of partition 1 at offset 0 of "orders" with this value and nothing else. */
    private static KafkoRecord valued(String value) {
        return new KafkoRecord() {
            @Override
            public String topic() {
                return "orders";
            }

            @Override
            public int partition() {
                return 1;
            }

            @Override
            public long offset() {
                return 0;
            }

            @Override
            public long timestamp() {
                return TIME;
            }

            @Override
            public byte @Nullable [] key() {
                return null;
            }

            @Override
            public byte[] value() {
                return value.getBytes(UTF_8);
            }

            @Override
            public Headers headers() {
                return Headers.empty();
            }
        };
    }

    private static String mismatch(Matcher<KafkoRecord> matcher, KafkoRecord record) {
        assertThat(matcher.matches(record)).isFalse();
        StringDescription description = new StringDescription();
        matcher.describeMismatch(record, description);
        return description.toString();
    }
}
