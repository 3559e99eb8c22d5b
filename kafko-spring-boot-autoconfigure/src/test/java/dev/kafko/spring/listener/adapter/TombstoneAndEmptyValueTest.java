package dev.kafko.spring.listener.adapter;

import static dev.kafko.spring.listener.adapter.ListenerTestSupport.template;
import static dev.kafko.spring.listener.adapter.ListenerTestSupport.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Header;
import dev.kafko.Headers;
import dev.kafko.Kafko;
import dev.kafko.OutgoingRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.KafkoNull;
import dev.kafko.spring.support.SendResult;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.messaging.support.MessageBuilder;

/**
 * An empty value is a value like any other: {@code ""} or an empty {@code byte[]} (Spring's resolvers
 * took it for a missing payload, so a {@code String} listener never got it); a tombstone (no value at
 * all) is {@link KafkoNull} in a message, {@code null} for an optional payload and in a batch, and a
 * failure, without retries, for a required one.
 */
class TombstoneAndEmptyValueTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final List<String> SEEN = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = ListenerTestSupport.deadLetteringRunner(3);

    @BeforeEach
    void reset() {
        SEEN.clear();
    }

    @Test
    void emptyValuesReachStringAndByteArrayListenersWithAndWithoutHeaders() {
        runner.withBean(Plain.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            for (String topic : List.of("plain-text", "plain-bytes", "message-text")) {
                kafko.producer(topic).send(null, new byte[0]).join();
                // a record with headers goes through the argument resolvers, not the plain shortcut
                kafko.producer(topic).send(OutgoingRecord.of(null, new byte[0], Headers.of(Header.of("h", "x")))).join();
            }
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactlyInAnyOrder("text []", "text []", "bytes 0", "bytes 0",
                    "message []", "message []");
            assertThat(KafkoTestUtils.records(context, "plain-text.DLT")).isEmpty();
        });
    }

    @Test
    void aTombstoneIsKafkoNullInAMessageNullWhenOptionalAndRefusedWithoutRetriesWhenRequired() {
        runner.withBean(Tombstones.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            for (String topic : List.of("optional", "required", "any-message")) {
                kafko.producer(topic).send("k".getBytes(StandardCharsets.UTF_8), null).join();
                kafko.producer(topic).send("k".getBytes(StandardCharsets.UTF_8), new byte[0]).join();
            }
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactlyInAnyOrder("optional null", "optional []", "required []",
                    "message KafkoNull", "message byte[0]");
            assertThat(KafkoTestUtils.records(context, "required.DLT")).singleElement().satisfies(r -> {
                assertThat(r.value()).as("the tombstone, still a tombstone").isNull();
                assertThat(text(r.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_MESSAGE)))
                        .contains("Payload value must not be empty");
            });
        });
    }

    @Test
    void aBatchHasANullForATombstoneAndTheEmptyStringForAnEmptyValue() {
        runner.withBean(Batch.class).run(context -> {
            context.getBean(Kafko.class).producer("batch").sendBatch(List.of(OutgoingRecord.of(null, null),
                    OutgoingRecord.of(null, new byte[0]), OutgoingRecord.of(null, "v".getBytes(StandardCharsets.UTF_8))))
                    .join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactlyInAnyOrder("batch [null, , v]", "messages [KafkoNull, byte[0], byte[1]]");
        });
    }

    @Test
    void aMessageWhosePayloadIsKafkoNullIsSentAsATombstone() {
        runner.run(context -> {
            SendResult<Object, Object> sent = template(context).send(MessageBuilder.withPayload(KafkoNull.INSTANCE)
                    .setHeader(KafkoHeaders.TOPIC, "compacted").setHeader(KafkoHeaders.KEY, "gone").build()).join();

            assertThat(sent.value()).isNull();
            assertThat(KafkoTestUtils.records(context, "compacted")).singleElement().satisfies(r -> {
                assertThat(r.value()).isNull();
                assertThat(text(r.key())).isEqualTo("gone");
                assertThat(r.headers().lastValue(KafkoHeaders.TYPE)).isNull();
            });
        });
    }

    private static String shown(Object payload) {
        return payload instanceof byte[] bytes ? "byte[" + bytes.length + "]" : String.valueOf(payload);
    }

    static class Plain {
        @KafkoListener(id = "plain-text", topics = "plain-text")
        void text(String value) {
            SEEN.add("text [" + value + "]");
        }

        @KafkoListener(id = "plain-bytes", topics = "plain-bytes")
        void bytes(byte[] value) {
            SEEN.add("bytes " + value.length);
        }

        @KafkoListener(id = "message-text", topics = "message-text")
        void message(Message<String> message) {
            SEEN.add("message [" + message.getPayload() + "]");
        }
    }

    static class Tombstones {
        @KafkoListener(id = "optional", topics = "optional")
        void optional(@Payload(required = false) String value) {
            SEEN.add("optional " + (value == null ? "null" : "[" + value + "]"));
        }

        @KafkoListener(id = "required", topics = "required")
        void required(String value) {
            SEEN.add("required [" + value + "]");
        }

        @KafkoListener(id = "any-message", topics = "any-message")
        void message(Message<?> message) {
            SEEN.add("message " + shown(message.getPayload()));
        }
    }

    static class Batch {
        @KafkoListener(id = "batch", topics = "batch", batch = "true")
        void batch(List<String> values) {
            SEEN.add("batch " + values);
        }

        @KafkoListener(id = "batch-messages", topics = "batch", batch = "true")
        void messages(List<Message<?>> messages) {
            List<String> payloads = new ArrayList<>();
            messages.forEach(m -> payloads.add(shown(m.getPayload())));
            SEEN.add("messages " + payloads);
        }
    }
}
