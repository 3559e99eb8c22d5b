package dev.kafko.spring.listener.adapter;

import static dev.kafko.spring.listener.adapter.ListenerTestSupport.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.spring.support.RecordMessageConverter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.messaging.Message;
import org.springframework.messaging.converter.StringMessageConverter;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;
import org.springframework.messaging.handler.invocation.MethodArgumentResolutionException;
import org.springframework.messaging.support.GenericMessage;

class HeaderConversionTest {

    private final MessageHandlerMethodFactory factory = KafkoArgumentResolvers.handlerMethodFactory(
            new RecordMessageConverter(new StringMessageConverter()), null);

    @Test
    void recordHeaderBytesConvertToNumbersBooleansEnumsAndUuids() throws Exception {
        UUID trace = UUID.fromString("6f0c1c1e-8a4e-4e43-9b8a-0f8f0e6c2d11");
        Map<String, Object> headers = new HashMap<>();
        headers.put("attempt", bytes("3"));
        headers.put("sequence", bytes("9000000000"));
        headers.put("urgent", bytes("true"));
        headers.put("unit", bytes("SECONDS"));
        headers.put("trace", bytes(trace.toString()));
        headers.put("label", bytes("plain text"));
        Typed bean = new Typed();

        invoke(bean, "typed", headers);

        assertThat(bean.seen).containsExactly("payload", 3, 9_000_000_000L, true, TimeUnit.SECONDS, trace, "plain text");
    }

    @Test
    void headerBytesThatDoNotParseAreAnArgumentFailure() {
        Map<String, Object> headers = new HashMap<>();
        headers.put("attempt", bytes("three"));

        // Spring names the parameter by its index only: the failure names the header too
        assertThatThrownBy(() -> invoke(new Typed(), "attempt", headers))
                .isInstanceOf(MethodArgumentResolutionException.class).hasMessageContaining("header 'attempt': ");
    }

    @Test
    void headerBytesStillReachAByteArrayParameterAsTheyAre() throws Exception {
        Map<String, Object> headers = new HashMap<>();
        headers.put("raw", bytes("17"));
        Typed bean = new Typed();

        invoke(bean, "raw", headers);

        assertThat((byte[]) bean.seen.get(0)).isEqualTo(bytes("17"));
    }

    private void invoke(Object bean, String methodName, Map<String, Object> headers) throws Exception {
        var method = java.util.Arrays.stream(bean.getClass().getDeclaredMethods())
                .filter(m -> m.getName().equals(methodName)).findFirst().orElseThrow();
        InvocableHandlerMethod handler = factory.createInvocableHandlerMethod(bean, method);
        Message<byte[]> message = new GenericMessage<>(bytes("payload"), headers);
        handler.invoke(message);
    }


    static final class Typed {
        final List<Object> seen = new java.util.ArrayList<>();

        public void typed(String payload, @Header("attempt") int attempt, @Header("sequence") Long sequence,
                          @Header("urgent") boolean urgent, @Header("unit") TimeUnit unit,
                          @Header("trace") UUID trace, @Header("label") String label) {
            seen.addAll(List.of(payload, attempt, sequence, urgent, unit, trace, label));
        }

        public void attempt(String payload, @Header("attempt") int attempt) {
            seen.add(attempt);
        }

        public void raw(String payload, @Header("raw") byte[] raw) {
            seen.add(raw);
        }
    }
}
