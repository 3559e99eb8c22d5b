package dev.kafko.spring.support;

import static dev.kafko.spring.support.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Header;
import dev.kafko.Headers;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.AbstractMessageConverter;
import org.springframework.messaging.converter.CompositeMessageConverter;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.converter.StringMessageConverter;
import org.springframework.util.MimeTypeUtils;

/**
 * {@link RecordMessageConverter}'s public methods that the integration tests reach only in part: the value bytes
 * with their type header, a Spring converter that writes text, the plain payload of a {@code byte[]} parameter and a
 * payload that already is of the type asked for. (Found by mutation testing: each test fails with the change it names.)
 */
class RecordMessageConverterTest {

    private final RecordMessageConverter converter = new RecordMessageConverter(
            new CompositeMessageConverter(List.of(new StringMessageConverter(), new TextConverter())));

    @Test
    void theValueBytesOfAnObjectAddItsTypeHeaderAndThoseOfTextOrBytesAddNone() {
        List<Header> headers = new ArrayList<>();

        assertThat(converter.valueBytes("text", headers)).isEqualTo("text".getBytes(StandardCharsets.UTF_8));
        assertThat(converter.valueBytes(new byte[] {1, 2}, headers)).containsExactly(1, 2);
        assertThat(converter.valueBytes(null, headers)).isNull();
        assertThat(headers).isEmpty();
        assertThat(converter.valueBytes(new Price(12), headers))
                .isEqualTo("Price 12".getBytes(StandardCharsets.UTF_8));
        assertThat(headers).singleElement().satisfies(h -> {
            assertThat(h.key()).isEqualTo(KafkoHeaders.TYPE);
            assertThat(h.valueAsString()).isEqualTo(Price.class.getName());
        });
    }

    /**
     * As Kafka's {@code ByteBufferSerializer} (kafka-clients 4.x) writes one: the bytes from index 0 to the limit,
     * whatever the position; unlike it, the buffer's position is left where it was (the serializer rewinds it).
     */
    @Test
    void aByteBufferIsWrittenAsItsBytesFromZeroToTheLimitWithoutATypeHeaderAndIsLeftAsItWas() {
        byte[] array = {5, 6, 7, 8, 9};
        ByteBuffer heap = ByteBuffer.wrap(array, 1, 3);
        ByteBuffer readOnly = ByteBuffer.wrap(array).asReadOnlyBuffer().position(2);
        ByteBuffer direct = ByteBuffer.allocateDirect(8).put(array).flip().position(4);
        ByteBuffer slice = ByteBuffer.wrap(array, 1, 3).slice();
        List<Header> headers = new ArrayList<>();

        assertThat(converter.valueBytes(heap, headers)).containsExactly(5, 6, 7, 8);
        assertThat(converter.valueBytes(readOnly, headers)).containsExactly(5, 6, 7, 8, 9);
        assertThat(converter.valueBytes(direct, headers)).containsExactly(5, 6, 7, 8, 9);
        assertThat(converter.valueBytes(slice, headers)).containsExactly(6, 7, 8);
        assertThat(converter.keyBytes(ByteBuffer.wrap(array))).isEqualTo(array);
        assertThat(converter.typeHeader(heap)).isNull();
        assertThat(headers).isEmpty();
        assertThat(List.of(heap.position(), heap.limit(), readOnly.position(), direct.position(), direct.limit()))
                .containsExactly(1, 4, 2, 4, 5);
        assertThat(converter.recordHeaders(new MessageHeaders(Map.of("raw", ByteBuffer.wrap(array, 0, 2)))))
                .singleElement().satisfies(h -> assertThat(h.value()).containsExactly(5, 6));
    }

    @Test
    void anObjectNoConverterWritesWithJacksonPresentIsRefusedNamingTheConverterNotAskingForJackson() {
        RecordMessageConverter strings = new RecordMessageConverter(new StringMessageConverter());
        assertThatThrownBy(() -> strings.valueBytes(new Price(6))).isInstanceOf(MessageConversionException.class)
                .hasMessage("No converter turns a " + Price.class.getName() + " into bytes: the template's converter"
                        + " (" + StringMessageConverter.class.getName() + ") writes none; send String or byte[], or"
                        + " give the template a converter that writes it");
    }

    @Test
    void aSpringConverterThatWritesTextGivesItsUtf8AndOneThatWritesAnythingElseFailsNamingBothTypes() {
        assertThat(converter.valueBytes(new Price(3))).isEqualTo("Price 3".getBytes(StandardCharsets.UTF_8));
        assertThat(converter.keyBytes(new Price(4))).isEqualTo("Price 4".getBytes(StandardCharsets.UTF_8));

        RecordMessageConverter numbers = new RecordMessageConverter(
                new CompositeMessageConverter(List.of(new NumberConverter())));
        assertThatThrownBy(() -> numbers.valueBytes(new Price(5))).isInstanceOf(MessageConversionException.class)
                .hasMessageContaining(Price.class.getName()).hasMessageContaining(Integer.class.getName());
    }

    @Test
    void thePlainPayloadOfARecordWithoutHeadersIsItsTextOrItsBytesAndNothingForAnyOtherType() {
        byte[] value = "v".getBytes(StandardCharsets.UTF_8);
        Message<Object> plain = converter.toPayloadMessage(record(value, Headers.of(List.of())));

        assertThat(converter.plainPayload(plain, String.class)).isEqualTo("v");
        assertThat(converter.plainPayload(plain, byte[].class)).isSameAs(value);
        assertThat(converter.plainPayload(plain, Object.class)).isNull();
        assertThat(converter.plainPayload(plain, Integer.class)).isNull();
        assertThat(converter.plainPayload(converter.toPayloadMessage(record(value, Headers.of("h", value))),
                byte[].class)).isNull();
    }

    @Test
    void aPayloadThatAlreadyIsOfTheTypeAskedForIsReturnedAsItIsAndATombstoneIsNull() {
        byte[] value = {9};
        Message<Object> message = converter.toMessage(record(value, Headers.of(List.of())), Map.of());

        assertThat(converter.fromMessage(message, byte[].class, null)).isSameAs(value);
        assertThat(converter.fromMessage(message, Object.class, null)).isSameAs(value);
        assertThat(converter.fromMessage(converter.toMessage(record(null, Headers.of(List.of())), Map.of()),
                byte[].class, null)).isNull();
    }

    record Price(int amount) {
    }

    /** Writes a {@link Price} as the text "Price n" (a String payload, not bytes). */
    private static final class TextConverter extends AbstractMessageConverter {
        TextConverter() {
            super(MimeTypeUtils.TEXT_PLAIN);
        }

        @Override
        protected boolean supports(Class<?> clazz) {
            return clazz == Price.class;
        }

        @Override
        protected Object convertToInternal(Object payload, @Nullable MessageHeaders headers,
                                           @Nullable Object conversionHint) {
            return "Price " + ((Price) payload).amount();
        }
    }

    /** Writes a {@link Price} as its amount, an {@code Integer}: neither text nor bytes. */
    private static final class NumberConverter extends AbstractMessageConverter {
        NumberConverter() {
            super(MimeTypeUtils.APPLICATION_JSON);
        }

        @Override
        protected boolean supports(Class<?> clazz) {
            return clazz == Price.class;
        }

        @Override
        protected Object convertToInternal(Object payload, @Nullable MessageHeaders headers,
                                           @Nullable Object conversionHint) {
            return ((Price) payload).amount();
        }
    }

    @Test
    void aContentTypeHeaderLosesOnlyTheQuotesOfAJsonString() {
        assertThat(RecordMessageConverter.contentType(utf8("\"text/plain\""))).isEqualTo("text/plain");
        assertThat(RecordMessageConverter.contentType(utf8("text/plain"))).isEqualTo("text/plain");
        assertThat(RecordMessageConverter.contentType(utf8("\""))).isEqualTo("\"");
        assertThat(RecordMessageConverter.contentType(utf8("\"text/plain"))).isEqualTo("\"text/plain");
        assertThat(RecordMessageConverter.contentType(utf8(""))).isEmpty();
        assertThat(RecordMessageConverter.contentType(utf8("\"\""))).isEmpty();
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
