package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.support.KafkoHeaders;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;

/**
 * Which listener methods can reach their {@link Acknowledgment} ({@link KafkoListenerContainerFactory#canAcknowledge}):
 * under a manual ack mode the others are warned of at start-up, and a retry topic's dead-letter handler that cannot is
 * committed for it. Each way of reaching it counts, on any parameter; headers other than the acknowledgment's do not.
 */
class CanAcknowledgeTest {

    @SuppressWarnings({"unused", "rawtypes"})
    static class Listeners {
        void acknowledgment(String value, Acknowledgment ack) {
        }

        void message(Message<String> message) {
        }

        void headers(String value, MessageHeaders headers) {
        }

        void headerMap(String value, @Headers Map<String, Object> headers) {
        }

        void ackHeader(String value, @Header(KafkoHeaders.ACKNOWLEDGMENT) Object ack) {
        }

        void ackHeaderByName(String value, @Header(name = KafkoHeaders.ACKNOWLEDGMENT) Object ack) {
        }

        void batchOfMessages(List<Message<String>> messages) {
        }

        void setOfMessages(Set<Message<?>> messages) {
        }

        void otherHeader(String value, @Header(KafkoHeaders.OFFSET) long offset) {
        }

        void otherHeaderByName(String value, @Header(name = KafkoHeaders.OFFSET) long offset) {
        }

        void batchOfValues(List<String> values) {
        }

        void rawBatch(List values) {
        }

        void value(String value) {
        }

        void nothing() {
        }
    }

    private static boolean canAcknowledge(String name) {
        Method method = Arrays.stream(Listeners.class.getDeclaredMethods()).filter(m -> m.getName().equals(name))
                .findFirst().orElseThrow();
        return KafkoListenerContainerFactory.canAcknowledge(method);
    }

    @Test
    void aMethodReachesItsAcknowledgmentAsAParameterInAMessageOrInItsHeaders() {
        for (String name : List.of("acknowledgment", "message", "headers", "headerMap", "ackHeader", "ackHeaderByName",
                "batchOfMessages", "setOfMessages")) {
            assertThat(canAcknowledge(name)).as(name).isTrue();
        }
    }

    @Test
    void otherHeadersValuesAndCollectionsOfThemReachNone() {
        for (String name : List.of("otherHeader", "otherHeaderByName", "batchOfValues", "rawBatch", "value",
                "nothing")) {
            assertThat(canAcknowledge(name)).as(name).isFalse();
        }
    }
}
