package dev.kafko.spring.listener.adapter;

import static dev.kafko.spring.listener.adapter.ListenerTestSupport.bytes;
import static dev.kafko.spring.listener.adapter.ListenerTestSupport.template;
import static dev.kafko.spring.listener.adapter.ListenerTestSupport.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.RecordMessageConverter;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.AbstractMessageConverter;
import org.springframework.messaging.converter.CompositeMessageConverter;
import org.springframework.messaging.converter.StringMessageConverter;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.messaging.support.MessageBuilder;
import org.springframework.util.MimeType;
import org.springframework.util.MimeTypeUtils;

/**
 * A record's {@code contentType} header, as another producer writes it (spring-kafka writes one from a
 * {@code Message}'s headers, as JSON text): it reaches a listener as its text, and a value is read by the type it is
 * read into whatever the header names. Its bytes made every conversion of the record fail ("Unknown type for
 * contentType header value"), so each such record went to the dead-letter topic. A {@code Message} the template
 * sends keeps its content type, as spring-kafka's does.
 */
class ContentTypeHeaderTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final List<String> SEEN = new CopyOnWriteArrayList<>();

    public record Order(String id, int quantity) {
    }

    private final ApplicationContextRunner runner = ListenerTestSupport.deadLetteringRunner(1);

    @BeforeEach
    void reset() {
        SEEN.clear();
    }

    @Test
    void aRecordNamingAContentTypeReachesEveryListenerShapeConvertedByTheParametersType() {
        runner.withBean(Listeners.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            byte[] order = bytes("{\"id\":\"a\",\"quantity\":2}");
            for (String topic : List.of("ct-object", "ct-text", "ct-bytes", "ct-batch")) {
                kafko.producer(topic).send(OutgoingRecord.of(null, order, headers("application/json"))).join();
                // a content type that does not describe the value changes nothing: the parameter's type decides
                kafko.producer(topic).send(OutgoingRecord.of(null, order, headers("text/plain"))).join();
            }
            KafkoTestUtils.waitForListeners(context, WAIT);

            String json = "{\"id\":\"a\",\"quantity\":2}";
            assertThat(SEEN).containsExactlyInAnyOrder(
                    "object Order[id=a, quantity=2] application/json", "object Order[id=a, quantity=2] text/plain",
                    "text " + json + " application/json", "text " + json + " text/plain",
                    "bytes " + json.length() + " application/json", "bytes " + json.length() + " text/plain",
                    "batch Order[id=a, quantity=2]", "batch Order[id=a, quantity=2]");
            for (String topic : List.of("ct-object", "ct-text", "ct-bytes", "ct-batch")) {
                assertThat(KafkoTestUtils.records(context, topic + ".DLT")).as(topic).isEmpty();
            }
        });
    }

    @Test
    void aContentTypeWrittenAsAJsonStringIsReadWithoutItsQuotesAndAsAMimeType() {
        runner.withBean(Listeners.class).run(context -> {
            context.getBean(Kafko.class).producer("ct-mime").send(OutgoingRecord.of(null,
                    bytes("{\"id\":\"q\",\"quantity\":1}"), headers("\"application/json\""))).join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactly("mime Order[id=q, quantity=1] application/json json=true String");
        });
    }

    @Test
    void aSentMessageKeepsItsContentTypeAsText() {
        runner.withBean(Listeners.class).run(context -> {
            template(context).send(MessageBuilder.withPayload(new Order("m", 3))
                    .setHeader(KafkoHeaders.TOPIC, "ct-object")
                    .setHeader(MessageHeaders.CONTENT_TYPE, MimeTypeUtils.APPLICATION_JSON).build()).join();
            template(context).send(MessageBuilder.withPayload("{\"id\":\"s\",\"quantity\":4}")
                    .setHeader(KafkoHeaders.TOPIC, "ct-object").setHeader(MessageHeaders.CONTENT_TYPE, "text/plain")
                    .build()).join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactly("object Order[id=m, quantity=3] application/json",
                    "object Order[id=s, quantity=4] text/plain");
            assertThat(contentTypes(context, "ct-object")).containsExactly("application/json", "text/plain");
        });
    }

    @Test
    void aConverterOfTheApplicationsOwnMayDecideByTheContentType() {
        runner.withBean(RecordMessageConverter.class, () -> new RecordMessageConverter(
                        new CompositeMessageConverter(List.of(new UpperCaseConverter(), new StringMessageConverter()))))
                .withBean(Custom.class).run(context -> {
                    Kafko kafko = context.getBean(Kafko.class);
                    kafko.producer("ct-custom").send(OutgoingRecord.of(null, bytes("loud"),
                            headers("application/x-upper"))).join();
                    kafko.producer("ct-custom").send(OutgoingRecord.of(null, bytes("quiet"), headers("text/plain")))
                            .join();
                    KafkoTestUtils.waitForListeners(context, WAIT);

                    assertThat(SEEN).containsExactly("custom LOUD", "custom quiet");
                });
    }

    /** Reads {@code application/x-upper} values only, in upper case. */
    static final class UpperCaseConverter extends AbstractMessageConverter {
        UpperCaseConverter() {
            super(new MimeType("application", "x-upper"));
            setStrictContentTypeMatch(true);
        }

        @Override
        protected boolean supports(Class<?> type) {
            return type == String.class;
        }

        @Override
        protected Object convertFromInternal(Message<?> message, Class<?> targetClass, @Nullable Object hint) {
            return new String((byte[]) message.getPayload(), StandardCharsets.UTF_8).toUpperCase(Locale.ROOT);
        }
    }

    static class Custom {
        @KafkoListener(id = "ct-custom", topics = "ct-custom")
        void on(String value) {
            SEEN.add("custom " + value);
        }
    }

    private static List<@Nullable String> contentTypes(ApplicationContext context, String topic) {
        return KafkoTestUtils.records(context, topic).stream().map(KafkoRecord::headers)
                .map(headers -> text(headers.lastValue(MessageHeaders.CONTENT_TYPE))).toList();
    }

    /** Record headers holding only that content type. */
    static dev.kafko.Headers headers(String contentType) {
        return dev.kafko.Headers.of(MessageHeaders.CONTENT_TYPE, bytes(contentType));
    }


    static class Listeners {
        @KafkoListener(id = "ct-object", topics = "ct-object")
        void object(Order order, @Header(MessageHeaders.CONTENT_TYPE) String contentType) {
            SEEN.add("object " + order + " " + contentType);
        }

        @KafkoListener(id = "ct-text", topics = "ct-text")
        void text(String value, @Header(MessageHeaders.CONTENT_TYPE) String contentType) {
            SEEN.add("text " + value + " " + contentType);
        }

        @KafkoListener(id = "ct-bytes", topics = "ct-bytes")
        void bytes(byte[] value, @Header(MessageHeaders.CONTENT_TYPE) String contentType) {
            SEEN.add("bytes " + value.length + " " + contentType);
        }

        @KafkoListener(id = "ct-batch", topics = "ct-batch", batch = "true")
        void batch(List<Order> orders) {
            orders.forEach(order -> SEEN.add("batch " + order));
        }

        @KafkoListener(id = "ct-mime", topics = "ct-mime")
        void mime(Order order, @Header(MessageHeaders.CONTENT_TYPE) MimeType contentType,
                  @Headers Map<String, Object> headers) {
            // the message's header is the text Spring's content type resolvers read (they refuse a byte[])
            SEEN.add("mime " + order + " " + contentType + " json="
                    + contentType.isCompatibleWith(MimeTypeUtils.APPLICATION_JSON) + " "
                    + headers.get(MessageHeaders.CONTENT_TYPE).getClass().getSimpleName());
        }
    }
}
