package dev.kafko.spring.listener.adapter;

import static dev.kafko.spring.listener.adapter.ListenerTestSupport.bytes;
import static dev.kafko.spring.listener.adapter.ListenerTestSupport.template;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Headers;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoHandler;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.requestreply.ReplyingKafkoTemplate;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.RecordMessageConverter;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.messaging.support.MessageBuilder;

/**
 * A {@link ByteBuffer} is raw bytes, as a {@code byte[]} is, and as Kafka's {@code ByteBufferSerializer} and
 * {@code ByteBufferDeserializer} take it: a value, key or header sent as one is stored as its bytes (no
 * {@code kafko_type} header), and a listener's {@code ByteBuffer} parameter reads a record's bytes, whoever wrote
 * them. It was written as a base64 JSON string, and a {@code ByteBuffer} parameter failed on raw bytes
 * ("Could not read JSON: Illegal character").
 */
class ByteBufferValuesTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final byte[] RAW = {0, 1, (byte) 0xff, 'a'};
    static final List<Object> SEEN = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = ListenerTestSupport.deadLetteringRunner(1);

    @BeforeEach
    void reset() {
        SEEN.clear();
    }

    @Test
    void aByteBufferValueAndKeyAreStoredAsTheirBytesWithoutATypeHeaderAndTheBufferIsLeftAsItWas() {
        runner.run(context -> {
            ByteBuffer key = ByteBuffer.wrap(bytes("k1"));
            ByteBuffer value = ByteBuffer.wrap(RAW).asReadOnlyBuffer();
            template(context).send("raw", key, value).join();

            KafkoRecord stored = KafkoTestUtils.records(context, "raw").get(0);
            assertThat(stored.value()).isEqualTo(RAW);
            assertThat(stored.key()).isEqualTo(bytes("k1"));
            assertThat(stored.headers().lastValue(KafkoHeaders.TYPE)).isNull();
            assertThat(value.position()).isZero();
            assertThat(value.remaining()).isEqualTo(RAW.length);
        });
    }

    @Test
    void byteBufferParametersReadARecordsRawBytesAndItsKey() {
        runner.withBean(Single.class).run(context -> {
            template(context).send("single", bytes("k1"), RAW).join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactlyInAnyOrder(show(RAW) + " key " + show(bytes("k1")),
                    show(RAW) + " from single");
            assertThat(KafkoTestUtils.records(context, "single.DLT")).isEmpty();
        });
    }

    @Test
    void aBatchListenerReadsEachValueAndKeyAsAByteBuffer() {
        runner.withBean(Batch.class).run(context -> {
            template(context).send("batched", bytes("k1"), RAW).join();
            template(context).send("batched", bytes("k2"), bytes("second")).join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactlyInAnyOrder(show(RAW) + " key " + show(bytes("k1")),
                    show(bytes("second")) + " key " + show(bytes("k2")), "m " + show(RAW),
                    "m " + show(bytes("second")));
            assertThat(KafkoTestUtils.records(context, "batched.DLT")).isEmpty();
        });
    }

    @Test
    void aByteBufferSentAsAMessageWithAByteBufferHeaderRoundTrips() {
        runner.withBean(Single.class).withBean(Traced.class).run(context -> {
            template(context).send(MessageBuilder.withPayload(ByteBuffer.wrap(RAW))
                    .setHeader(KafkoHeaders.TOPIC, "single")
                    .setHeader(KafkoHeaders.KEY, ByteBuffer.wrap(bytes("k1")))
                    .setHeader("trace", ByteBuffer.wrap(bytes("t-1"))).build()).join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            KafkoRecord stored = KafkoTestUtils.records(context, "single").get(0);
            assertThat(stored.value()).isEqualTo(RAW);
            assertThat(stored.key()).isEqualTo(bytes("k1"));
            assertThat(stored.headers().lastValue("trace")).isEqualTo(bytes("t-1"));
            assertThat(stored.headers().lastValue(KafkoHeaders.TYPE)).isNull();
            assertThat(SEEN).containsExactlyInAnyOrder(show(RAW) + " key " + show(bytes("k1")),
                    show(RAW) + " from single", "trace " + show(bytes("t-1")));
        });
    }

    @Test
    void aByteBufferReplyIsSentAsItsBytesAndReadBackAsAByteBuffer() {
        runner.withBean(Replier.class).run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            ReplyingKafkoTemplate<Object, Object, ByteBuffer> requester = new ReplyingKafkoTemplate<>(template,
                    context.getBean(LogBackend.class), context.getBean(RecordMessageConverter.class),
                    "buffer.replies", ByteBuffer.class);
            requester.start();
            try {
                ByteBuffer reply = requester.sendAndReceive("buffer.requests", ByteBuffer.wrap(RAW))
                        .get(20, TimeUnit.SECONDS);

                assertThat(bytesOf(reply)).isEqualTo(new byte[] {'a', (byte) 0xff, 1, 0});
                assertThat(KafkoTestUtils.records(context, "buffer.replies").get(0).value())
                        .isEqualTo(new byte[] {'a', (byte) 0xff, 1, 0});
            } finally {
                requester.stop();
            }
        });
    }

    @Test
    void aFailedByteBufferRecordIsDeadLetteredAsItsBytesAndReadFromTheDeadLetterTopicAsAByteBuffer() {
        runner.withBean(DeadLettered.class).run(context -> {
            template(context).send("failing", ByteBuffer.wrap(RAW)).join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(KafkoTestUtils.records(context, "failing.DLT")).singleElement()
                    .satisfies(r -> assertThat(r.value()).isEqualTo(RAW));
            assertThat(SEEN).containsExactly("failed", show(RAW));
        });
    }

    @Test
    void aClassLevelListenerHandsABufferSentAsABufferToItsByteBufferHandler() {
        runner.withBean(Handlers.class).run(context -> {
            template(context).send("handled", ByteBuffer.wrap(RAW)).join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactly(show(RAW));
            assertThat(KafkoTestUtils.records(context, "handled.DLT")).isEmpty();
        });
    }

    /**
     * A record written before a {@code ByteBuffer} was stored as its bytes is the base64 JSON string of them with a
     * {@code kafko_type} header naming the buffer's class; a log kept on disk still holds such records, and a
     * {@code ByteBuffer} parameter (a class-level handler's and a batch's too) reads the bytes it was sent with, not
     * the JSON.
     */
    @Test
    void aByteBufferRecordWrittenAsBase64JsonWithATypeHeaderIsReadAsTheBytesItWasSentWith() {
        runner.withBean(Single.class).withBean(Handlers.class).withBean(Batch.class).run(context -> {
            byte[] json = ("\"" + Base64.getEncoder().encodeToString(RAW) + "\"").getBytes(StandardCharsets.UTF_8);
            for (String topic : List.of("single", "handled", "batched")) {
                context.getBean(Kafko.class).producer(topic).send(bytes("k1"), json, Headers.of(KafkoHeaders.TYPE,
                        "java.nio.HeapByteBuffer".getBytes(StandardCharsets.UTF_8))).join();
            }
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactlyInAnyOrder(show(RAW) + " key " + show(bytes("k1")),
                    show(RAW) + " from single", show(RAW), show(RAW) + " key " + show(bytes("k1")),
                    "m " + show(RAW));
            assertThat(KafkoTestUtils.records(context, "single.DLT")).isEmpty();
        });
    }

    /** Bytes as the list of their values, which compares by content. */
    static String show(byte[] bytes) {
        return Arrays.toString(bytes);
    }

    /** The bytes from {@code buffer}'s position to its limit, leaving it as it was. */
    static byte[] bytesOf(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }

    static class Single {
        @KafkoListener(id = "single", topics = "single")
        void single(@Payload ByteBuffer value, @Header(KafkoHeaders.RECEIVED_KEY) ByteBuffer key) {
            SEEN.add(show(bytesOf(value)) + " key " + show(bytesOf(key)));
        }

        @KafkoListener(id = "single-message", topics = "single")
        void message(Message<ByteBuffer> message) {
            SEEN.add(show(bytesOf(message.getPayload())) + " from "
                    + message.getHeaders().get(KafkoHeaders.RECEIVED_TOPIC));
        }
    }

    static class Traced {
        @KafkoListener(id = "single-trace", topics = "single")
        void traced(@Header("trace") ByteBuffer trace) {
            SEEN.add("trace " + show(bytesOf(trace)));
        }
    }

    static class Batch {
        @KafkoListener(id = "batched", topics = "batched", batch = "true")
        void batch(List<ByteBuffer> values, @Header(KafkoHeaders.RECEIVED_KEY) List<ByteBuffer> keys) {
            for (int i = 0; i < values.size(); i++) {
                SEEN.add(show(bytesOf(values.get(i))) + " key " + show(bytesOf(keys.get(i))));
            }
        }

        @KafkoListener(id = "batched-messages", topics = "batched", batch = "true")
        void messages(List<Message<ByteBuffer>> messages) {
            for (Message<ByteBuffer> message : messages) {
                SEEN.add("m " + show(bytesOf(message.getPayload())));
            }
        }
    }

    static class Replier {
        @KafkoListener(id = "buffer-replier", topics = "buffer.requests")
        @SendTo
        ByteBuffer reverse(ByteBuffer request) {
            byte[] in = bytesOf(request);
            byte[] out = new byte[in.length];
            for (int i = 0; i < in.length; i++) {
                out[i] = in[in.length - 1 - i];
            }
            // a direct buffer, read-only, with its position past the start: the bytes from 0 to the limit are sent
            ByteBuffer direct = ByteBuffer.allocateDirect(out.length).put(out);
            return direct.flip().position(2).asReadOnlyBuffer();
        }
    }

    static class DeadLettered {
        @KafkoListener(id = "failing", topics = "failing")
        void failing(ByteBuffer value) {
            SEEN.add("failed");
            throw new IllegalStateException("to the dead-letter topic");
        }

        @KafkoListener(id = "failing-dlt", topics = "failing.DLT")
        void deadLetter(ByteBuffer value) {
            SEEN.add(show(bytesOf(value)));
        }
    }

    @KafkoListener(id = "handled", topics = "handled")
    static class Handlers {
        @KafkoHandler
        void buffer(ByteBuffer value) {
            SEEN.add(show(bytesOf(value)));
        }

        @KafkoHandler(isDefault = true)
        void other(Object value) {
            SEEN.add("default " + value);
        }
    }
}
