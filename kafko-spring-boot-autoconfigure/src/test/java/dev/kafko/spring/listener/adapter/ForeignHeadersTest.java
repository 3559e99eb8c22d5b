package dev.kafko.spring.listener.adapter;

import static dev.kafko.spring.listener.adapter.ListenerTestSupport.bytes;
import static dev.kafko.spring.listener.adapter.ListenerTestSupport.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.messaging.handler.annotation.SendTo;

/**
 * A record written by another producer may carry headers named as kafko's own: the routing headers a
 * {@code Message} sends with ({@code kafko_topic}, {@code kafko_messageKey}, {@code kafko_partitionId},
 * {@code kafko_timestamp}) and those kafko sets on a received message ({@code kafko_deliveryAttempt},
 * {@code kafko_listenerInfo}, ...). kafko never writes them to a record; read into a received message, their bytes
 * stood where kafko's values belong: a received message forwarded as it is by {@code @SendTo} was dead-lettered
 * ("Incorrect type specified for header 'kafko_topic'"), and a batch's messages carried a delivery attempt, a
 * listener without {@code info} a listener info, of the producer's choosing.
 */
class ForeignHeadersTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final List<Object> SEEN = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = ListenerTestSupport.deadLetteringRunner(1);

    @BeforeEach
    void reset() {
        SEEN.clear();
    }


    static void sendForeign(ApplicationContext context, String topic, dev.kafko.Header... headers) {
        context.getBean(Kafko.class).producer(topic).send(bytes("k"), bytes("v"), dev.kafko.Headers.of(headers)).join();
    }

    @Test
    void aReceivedMessageWithRoutingHeaderNamesOfAnotherProducerIsForwardedToTheSendToTopic() {
        runner.withBean(Forwarder.class).run(context -> {
            sendForeign(context, "fwd-in", dev.kafko.Header.of(KafkoHeaders.TOPIC, "elsewhere"),
                    dev.kafko.Header.of(KafkoHeaders.PARTITION, "p"), dev.kafko.Header.of(KafkoHeaders.KEY, "forged"),
                    dev.kafko.Header.of(KafkoHeaders.TIMESTAMP, "t"), dev.kafko.Header.of("x", "kept"));
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(KafkoTestUtils.records(context, "fwd-in.DLT")).isEmpty();
            assertThat(KafkoTestUtils.records(context, "fwd-out")).singleElement().satisfies(r -> {
                assertThat(text(r.value())).isEqualTo("v");
                assertThat(r.key()).as("a returned Message keyed by no KafkoHeaders.KEY of its own").isNull();
                assertThat(r.headers().asList()).containsExactly(dev.kafko.Header.of("x", "kept"));
            });
        });
    }

    @Test
    void aBatchMessageCarriesNoDeliveryAttemptNorListenerInfoThatTheRecordNames() {
        runner.withBean(BatchReader.class).run(context -> {
            sendForeign(context, "batched", dev.kafko.Header.of(KafkoHeaders.DELIVERY_ATTEMPT, "zz"),
                    dev.kafko.Header.of(KafkoHeaders.LISTENER_INFO, "forged"),
                    dev.kafko.Header.of(KafkoHeaders.TOPIC, "elsewhere"), dev.kafko.Header.of("x", "kept"));
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).singleElement().satisfies(seen -> {
                @SuppressWarnings("unchecked")
                Map<String, Object> headers = (Map<String, Object>) seen;
                assertThat(headers).doesNotContainKeys(KafkoHeaders.DELIVERY_ATTEMPT, KafkoHeaders.LISTENER_INFO,
                        KafkoHeaders.TOPIC);
                assertThat(headers).containsEntry(KafkoHeaders.RECEIVED_TOPIC, "batched");
                assertThat(text((byte[]) headers.get("x"))).isEqualTo("kept");
            });
        });
    }

    @Test
    void aRecordListenerWithoutInfoReadsNoListenerInfoAndItsOwnReceivedHeaders() {
        runner.withBean(RecordReader.class).run(context -> {
            sendForeign(context, "recorded", dev.kafko.Header.of(KafkoHeaders.LISTENER_INFO, "forged"),
                    dev.kafko.Header.of(KafkoHeaders.OFFSET, "abc"), dev.kafko.Header.of(KafkoHeaders.KEY, "forged"));
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactly("no info", 0L, false);
            assertThat(KafkoTestUtils.records(context, "recorded.DLT")).isEmpty();
        });
    }

    static class Forwarder {
        @KafkoListener(id = "fwd-in", topics = "fwd-in")
        @SendTo("fwd-out")
        Message<?> forward(Message<?> received) {
            return received;
        }
    }

    static class BatchReader {
        @KafkoListener(id = "batched", topics = "batched", batch = "true")
        void batch(List<Message<String>> messages) {
            for (Message<String> m : messages) {
                SEEN.add(new HashMap<>(m.getHeaders()));
            }
        }
    }

    static class RecordReader {
        @KafkoListener(id = "recorded", topics = "recorded")
        void record(String value, @Header(name = KafkoHeaders.LISTENER_INFO, required = false) String info,
                @Header(KafkoHeaders.OFFSET) long offset, @Headers Map<String, Object> headers) {
            SEEN.add(info == null ? "no info" : info);
            SEEN.add(offset);
            SEEN.add(headers.containsKey(KafkoHeaders.KEY));
        }
    }
}
