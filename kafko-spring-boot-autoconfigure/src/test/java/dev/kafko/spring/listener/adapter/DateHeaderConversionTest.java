package dev.kafko.spring.listener.adapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.spring.support.RecordMessageConverter;
import dev.kafko.spring.support.TypeAwareJsonMessageConverter;
import java.nio.charset.StandardCharsets;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.CompositeMessageConverter;
import org.springframework.messaging.converter.StringMessageConverter;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;
import org.springframework.messaging.handler.invocation.MethodArgumentResolutionException;
import org.springframework.messaging.support.GenericMessage;
import tools.jackson.databind.json.JsonMapper;

/**
 * The epoch-milliseconds reading of time headers (B111) keeps what converted before it: a {@code Date} header in the
 * text a {@code Date} prints (or the HTTP date form) that Spring's text conversion parses, and it leaves a subclass
 * of {@code Date} to the converters that failed it with a conversion error naming the parameter.
 */
class DateHeaderConversionTest {

    private final RecordMessageConverter converter = new RecordMessageConverter(new CompositeMessageConverter(List.of(
            new StringMessageConverter(), new TypeAwareJsonMessageConverter(JsonMapper.builder().build(), null))));
    private final MessageHandlerMethodFactory factory = KafkoArgumentResolvers.handlerMethodFactory(converter, null);

    private static final long AT = 1_796_306_861_275L;

    @Test
    void aDateHeaderInTheTextADatePrintsStillConverts() throws Exception {
        // what Date.toString() prints in a UTC JVM
        assertThat(read("date", "Thu Dec 03 14:07:41 UTC 2026")).isEqualTo(new Date(AT / 1000 * 1000));
        assertThat(read("date", "Sat, 12 Aug 1995 13:30:00 GMT")).isEqualTo(Date.from(Instant.parse("1995-08-12T13:30:00Z")));
    }

    @Test
    void dateHeadersInMillisAndAsTheTemplateWritesThemConvert() throws Exception {
        Date at = new Date(AT);
        assertThat(read("date", Long.toString(AT))).isEqualTo(at);
        byte[] written = converter.recordHeaders(new MessageHeaders(Map.of("d", at))).get(0).value();
        assertThat(read("date", new String(written, StandardCharsets.UTF_8))).isEqualTo(at);
        assertThat(read("instant", Long.toString(AT))).isEqualTo(Instant.ofEpochMilli(AT));
    }

    @Test
    void aSqlTimestampHeaderThatDoesNotParseFailsAsAConversionOfThatParameter() {
        assertThatThrownBy(() -> read("timestamp", Long.toString(AT)))
                .isInstanceOf(MethodArgumentResolutionException.class).hasMessageContaining("java.sql.Timestamp");
    }

    private Object read(String method, String headerText) throws Exception {
        Beans bean = new Beans();
        var m = java.util.Arrays.stream(Beans.class.getDeclaredMethods()).filter(d -> d.getName().equals(method))
                .findFirst().orElseThrow();
        InvocableHandlerMethod handler = factory.createInvocableHandlerMethod(bean, m);
        Message<byte[]> message = new GenericMessage<>("payload".getBytes(StandardCharsets.UTF_8),
                Map.of("t", headerText.getBytes(StandardCharsets.UTF_8)));
        handler.invoke(message);
        return bean.seen.get(0);
    }

    static final class Beans {
        final List<Object> seen = new ArrayList<>();

        public void date(String payload, @Header("t") Date t) {
            seen.add(t);
        }

        public void instant(String payload, @Header("t") Instant t) {
            seen.add(t);
        }

        public void timestamp(String payload, @Header("t") Timestamp t) {
            seen.add(t);
        }
    }
}
