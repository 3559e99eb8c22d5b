package dev.kafko.spring.listener.adapter;

import static dev.kafko.spring.listener.adapter.ListenerTestSupport.bytes;
import static dev.kafko.spring.support.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Headers;
import dev.kafko.spring.support.RecordMessageConverter;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.messaging.Message;
import org.springframework.messaging.converter.ByteArrayMessageConverter;
import org.springframework.messaging.converter.CompositeMessageConverter;
import org.springframework.messaging.converter.StringMessageConverter;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.messaging.handler.invocation.MethodArgumentResolutionException;

/**
 * A plain {@code String} or {@code byte[]} listener parameter gets the payload converted by the
 * adapter itself; these show it is the same payload Spring's converters would give, and that records
 * the shortcut cannot handle still go through them.
 */
class PlainPayloadTest {

    private final RecordMessageConverter converter = new RecordMessageConverter(new CompositeMessageConverter(
            List.of(new ByteArrayMessageConverter(), new StringMessageConverter())));
    private final MessageHandlerMethodFactory factory = KafkoArgumentResolvers.handlerMethodFactory(converter, null);

    @Test
    void plainStringAndBytesParametersTakeTheShortcutAnnotatedOrOtherOnesDoNot() {
        assertThat(MessagingMessageListenerAdapter.plainPayloadType(method("text"))).isEqualTo(String.class);
        assertThat(MessagingMessageListenerAdapter.plainPayloadType(method("bytes"))).isEqualTo(byte[].class);
        assertThat(MessagingMessageListenerAdapter.plainPayloadType(method("annotated"))).isNull();
        assertThat(MessagingMessageListenerAdapter.plainPayloadType(method("number"))).isNull();
    }

    @Test
    void utf8TextReachesAPlainStringListenerIntact() throws Exception {
        Listener bean = new Listener();
        String text = "gr\u00fc\u00dfe \u20ac \ud83d\ude00";

        adapter(bean, "text").onMessage(List.of(record(bytes(text), Headers.empty())), () -> { });

        assertThat(bean.seen).containsExactly(text);
    }

    @Test
    void bytesReachAPlainByteArrayListenerAsTheyAre() throws Exception {
        Listener bean = new Listener();
        byte[] value = {0, 1, (byte) 0xff};

        adapter(bean, "bytes").onMessage(List.of(record(value, Headers.empty())), () -> { });

        assertThat((byte[]) bean.seen.get(0)).isEqualTo(value);
    }

    @Test
    void aRecordWithHeadersStillGoesThroughTheSpringConverter() throws Exception {
        RecordMessageConverter shouting = new RecordMessageConverter(new StringMessageConverter() {
            @Override
            protected Object convertFromInternal(Message<?> message, Class<?> targetClass, @Nullable Object hint) {
                return String.valueOf(super.convertFromInternal(message, targetClass, hint)).toUpperCase(Locale.ROOT);
            }
        });
        MessageHandlerMethodFactory shoutingFactory = KafkoArgumentResolvers.handlerMethodFactory(shouting, null);
        Listener bean = new Listener();
        MessagingMessageListenerAdapter adapter = new MessagingMessageListenerAdapter(
                shoutingFactory.createInvocableHandlerMethod(bean, method("text")), shouting, false, "plain",
                "plain-group", null, null);

        adapter.onMessage(List.of(record(bytes("with"), Headers.of("trace", bytes("1")))), () -> { });
        adapter.onMessage(List.of(record(bytes("without"), Headers.empty())), () -> { });

        assertThat(bean.seen).containsExactly("WITH", "without");
    }

    @Test
    void thePayloadOnlyMessageOfAHeaderlessRecordHasEmptyHeadersForConvertersThatReadThem() {
        var message = converter.toPayloadMessage(record(bytes("x"), Headers.empty()));

        assertThat(message.getPayload()).isEqualTo(bytes("x"));
        assertThat(message.getHeaders()).isEmpty();
        assertThat(converter.fromMessage(message, String.class, null)).isEqualTo("x");
    }

    @Test
    void anEmptyValueIsTheEmptyStringAndAMissingOneIsRefusedAsARequiredPayload() throws Exception {
        Listener bean = new Listener();
        MessagingMessageListenerAdapter adapter = adapter(bean, "text");

        adapter.onMessage(List.of(record(new byte[0], Headers.empty())), () -> { });
        assertThat(bean.seen).containsExactly("");
        assertThatThrownBy(() -> adapter.onMessage(List.of(record(null, Headers.empty())), () -> { }))
                .isInstanceOf(MethodArgumentResolutionException.class);
    }

    private MessagingMessageListenerAdapter adapter(Object bean, String methodName) {
        return new MessagingMessageListenerAdapter(factory.createInvocableHandlerMethod(bean, method(methodName)),
                converter, false, "plain", "plain-group", null, null);
    }


    private static Method method(String name) {
        return Arrays.stream(Listener.class.getDeclaredMethods()).filter(m -> m.getName().equals(name))
                .findFirst().orElseThrow();
    }

    static final class Listener {
        final List<Object> seen = new ArrayList<>();

        public void text(String value) {
            seen.add(value);
        }

        public void bytes(byte[] value) {
            seen.add(value);
        }

        public void annotated(@Payload String value) {
            seen.add(value);
        }

        public void number(Integer value) {
            seen.add(value);
        }
    }
}
