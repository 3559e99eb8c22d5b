package dev.kafko.spring.listener.adapter;

import static dev.kafko.spring.listener.adapter.ListenerTestSupport.bytes;
import static dev.kafko.spring.listener.adapter.ListenerTestSupport.template;
import static dev.kafko.spring.listener.adapter.ListenerTestSupport.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoHandler;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.listener.adapter.ContentTypeHeaderTest.Order;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.messaging.support.MessageBuilder;

/**
 * A review of B215 and B216: {@code @Header} parameters of generic containers (a list of times, a nested generic, a
 * foreign JSON object as a map) read with their declared types, {@code byte[]} and {@code Byte[]} as the bytes
 * themselves, a batch listener's list of keys as before; record headers named as kafko's own message headers left
 * out of a class-level listener's message, but kept in its {@link KafkoRecord}, and the type and dead-letter headers
 * still read.
 */
class HeaderConversionReviewTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final List<Object> SEEN = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = ListenerTestSupport.deadLetteringRunner(1);

    @BeforeEach
    void reset() {
        SEEN.clear();
    }


    @Test
    void genericContainerHeadersAreReadWithTheirDeclaredTypesAndBytesStayBytes() {
        runner.withBean(Containers.class).run(context -> {
            Instant at = Instant.parse("2026-12-06T09:00:00.123Z");
            template(context).send(MessageBuilder.withPayload("v").setHeader(KafkoHeaders.TOPIC, "hcr-containers")
                    .setHeader("instants", List.of(at, at.plusSeconds(1)))
                    .setHeader("nested", Map.of("a", List.of(1, 2)))
                    .setHeader("raw", bytes("[1,2]")).setHeader("boxed", bytes("hi")).build()).join();
            context.getBean(Kafko.class).producer("hcr-containers").send(null, bytes("w"), dev.kafko.Headers.of(
                    dev.kafko.Header.of("instants", "[\"2026-12-06T09:00:00Z\"]"),
                    dev.kafko.Header.of("nested", "{\"b\":[3]}"),
                    dev.kafko.Header.of("object", "{\"id\":\"o\",\"n\":{\"x\":1}}"),
                    dev.kafko.Header.of("raw", "[1,2]"), dev.kafko.Header.of("boxed", "hi"))).join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactly(
                    "v " + List.of(at, at.plusSeconds(1)) + " {a=[1, 2]} Integer null [91, 49, 44, 50, 93] [104, 105]",
                    "w [2026-12-06T09:00:00Z] {b=[3]} Integer {id=o, n={x=1}} [91, 49, 44, 50, 93] [104, 105]");
            assertThat(KafkoTestUtils.records(context, "hcr-containers.DLT")).isEmpty();
        });
    }

    @Test
    void aBatchListenersListOfKeysIsReadAsBefore() {
        runner.withBean(Batch.class).run(context -> {
            template(context).send("hcr-batch", "k1", "a").join();
            template(context).send("hcr-batch", new Order("key", 1), "b").join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactly("k1 a", "{\"id\":\"key\",\"quantity\":1} b");
        });
    }

    @Test
    void aClassLevelListenersMessageLeavesKafkosNamesOutButItsRecordKeepsThemAndTheTypeAndDltHeadersAreRead() {
        runner.withBean(ClassLevel.class).run(context -> {
            context.getBean(Kafko.class).producer("hcr-class").send(null, bytes("{\"id\":\"c\",\"quantity\":5}"),
                    dev.kafko.Headers.of(dev.kafko.Header.of(KafkoHeaders.TYPE, Order.class.getName()),
                            dev.kafko.Header.of(KafkoHeaders.DLT_ORIGINAL_TOPIC, "elsewhere"),
                            dev.kafko.Header.of(KafkoHeaders.LISTENER_INFO, "forged"),
                            dev.kafko.Header.of(KafkoHeaders.OFFSET, "forged"))).join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactly("order Order[id=c, quantity=5] from elsewhere offset 0 info false"
                    + " record forged");
        });
    }

    static class Containers {
        @KafkoListener(id = "hcr-containers", topics = "hcr-containers")
        void on(String value, @Header("instants") List<Instant> instants,
                @Header("nested") Map<String, List<Integer>> nested,
                @Header(name = "object", required = false) Map<String, Object> object,
                @Header("raw") byte[] raw, @Header("boxed") Byte[] boxed) {
            Object first = nested.values().iterator().next().get(0);
            SEEN.add(value + " " + instants + " " + nested + " " + first.getClass().getSimpleName() + " " + object
                    + " " + Arrays.toString(raw) + " " + Arrays.toString(boxed));
            instants.forEach(Instant::getEpochSecond);
        }
    }

    static class Batch {
        @KafkoListener(id = "hcr-batch", topics = "hcr-batch", batch = "true")
        void on(List<String> values, @Header(KafkoHeaders.RECEIVED_KEY) List<String> keys) {
            for (int i = 0; i < values.size(); i++) {
                SEEN.add(keys.get(i) + " " + values.get(i));
            }
        }
    }

    @KafkoListener(id = "hcr-class", topics = "hcr-class")
    static class ClassLevel {
        @KafkoHandler
        void on(Order order, @Header(KafkoHeaders.DLT_ORIGINAL_TOPIC) String from,
                @Header(KafkoHeaders.OFFSET) long offset, @Headers Map<String, Object> headers,
                @Header(KafkoHeaders.RAW_DATA) KafkoRecord record) {
            SEEN.add("order " + order + " from " + from + " offset " + offset + " info "
                    + headers.containsKey(KafkoHeaders.LISTENER_INFO) + " record "
                    + text(record.headers().lastValue(KafkoHeaders.LISTENER_INFO)));
        }
    }
}
