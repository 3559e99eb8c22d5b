package dev.kafko.spring.listener.adapter;

import static dev.kafko.spring.listener.adapter.ListenerTestSupport.template;
import static dev.kafko.spring.listener.adapter.ListenerTestSupport.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.Order;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.support.MessageBuilder;

/**
 * What the template writes as a key or a header, a listener reads back as the type it was: enum and
 * UUID keys were written as quoted JSON, which {@code @Header(RECEIVED_KEY) UUID} could not parse (and a
 * {@code String} got with its quotes); header objects were written with {@code toString()}, which no
 * {@code @Header} of their type could read.
 */
class KeyAndHeaderRoundTripTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final UUID ID = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");
    static final List<Object> SEEN = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = ListenerTestSupport.deadLetteringRunner(1);

    @BeforeEach
    void reset() {
        SEEN.clear();
    }

    @Test
    void uuidEnumAndNumberKeysAreWrittenAsTheirTextAndReadBackAsTheirType() {
        runner.withBean(Keys.class).run(context -> {
            template(context).send("uuid-keys", ID, "u").join();
            template(context).send("enum-keys", TimeUnit.SECONDS, "e").join();
            template(context).send("number-keys", 42L, "n").join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactlyInAnyOrder(ID, "text " + ID, TimeUnit.SECONDS, 42L);
            assertThat(text(KafkoTestUtils.records(context, "uuid-keys").get(0).key())).isEqualTo(ID.toString());
            assertThat(text(KafkoTestUtils.records(context, "enum-keys").get(0).key())).isEqualTo("SECONDS");
            assertThat(text(KafkoTestUtils.records(context, "number-keys").get(0).key())).isEqualTo("42");
        });
    }

    @Test
    void headerValuesOfEveryKindRoundTripThroughSendMessage() {
        runner.withBean(Headers.class).run(context -> {
            template(context).send(MessageBuilder.withPayload("payload").setHeader(KafkoHeaders.TOPIC, "headed")
                    .setHeader("order", new Order("o-7", 700)).setHeader("trace", ID)
                    .setHeader("unit", TimeUnit.MINUTES).setHeader("attempt", 3).setHeader("urgent", true)
                    .setHeader("label", "plain").build()).join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactly(new Order("o-7", 700), ID, TimeUnit.MINUTES, 3, true, "plain");
            assertThat(KafkoTestUtils.records(context, "headed.DLT")).isEmpty();
            assertThat(text(KafkoTestUtils.records(context, "headed").get(0).headers().lastValue("order")))
                    .isEqualTo("{\"id\":\"o-7\",\"amount\":700}");
        });
    }

    @Test
    void javaTimeKeysAndHeadersWrittenAsJsonAreReadBackAsTheirType() {
        Instant at = Instant.parse("2024-01-02T03:04:05Z");
        runner.withBean(JavaTime.class).run(context -> {
            template(context).send(MessageBuilder.withPayload("p").setHeader(KafkoHeaders.TOPIC, "timed")
                    .setHeader("createdAt", at).setHeader("ttl", Duration.ofMinutes(5)).build()).join();
            template(context).send("dated", LocalDate.of(2024, 1, 2), "d").join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactlyInAnyOrder(at, Duration.ofMinutes(5), LocalDate.of(2024, 1, 2));
            assertThat(KafkoTestUtils.records(context, "timed.DLT")).isEmpty();
            assertThat(KafkoTestUtils.records(context, "dated.DLT")).isEmpty();
        });
    }

    @Test
    void aBatchListenerGetsItsKeysAsTheElementTypeItDeclares() {
        runner.withBean(BatchKeys.class).run(context -> {
            template(context).send("int-keys", 1, "a").join();
            template(context).send("int-keys", 2, "b").join();
            template(context).send("int-keys", null, "c").join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactly(1, 2, "null");
            assertThat(KafkoTestUtils.records(context, "int-keys.DLT")).isEmpty();
        });
    }

    @Test
    void aBatchKeyThatCannotBeReadAsTheDeclaredTypeIsAConversionFailureNamingTheRecord() {
        runner.withBean(BatchKeys.class).run(context -> {
            template(context).send("int-keys", "not a number", "x").join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).isEmpty();
            assertThat(KafkoTestUtils.records(context, "int-keys.DLT")).singleElement().satisfies(r ->
                    assertThat(text(r.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_MESSAGE)))
                            .contains("cannot read the key of int-keys-0@0 as a java.lang.Integer"));
        });
    }

    /**
     * A number key or header of a type that Spring's text conversion does not parse ({@code AtomicLong},
     * {@code AtomicInteger}: numbers, written as their text) failed to convert, where its text is also its JSON.
     */
    @Test
    void atomicNumberKeysAndHeadersAreReadBackAsTheirType() {
        runner.withBean(AtomicNumbers.class).run(context -> {
            template(context).send(MessageBuilder.withPayload("v").setHeader(KafkoHeaders.TOPIC, "atomic-keys")
                    .setHeader(KafkoHeaders.KEY, new AtomicLong(12)).setHeader("count", new AtomicInteger(3))
                    .build()).join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactlyInAnyOrder(12L, 3, "batch 12");
            assertThat(KafkoTestUtils.records(context, "atomic-keys.DLT")).isEmpty();
            assertThat(text(KafkoTestUtils.records(context, "atomic-keys").get(0).key())).isEqualTo("12");
        });
    }

    /**
     * Timestamps in epoch milliseconds (the dead-letter header's, a {@code long} header of the application's) were
     * read as JSON, whose bare number Jackson takes for seconds (an {@code Instant} some 57,000 years on), and the
     * received timestamp, a {@code Long}, had no converter to an {@code Instant} at all.
     */
    @Test
    void kafkosTimestampHeadersAreReadAsEpochMillisecondsByJavaTimeParameters() {
        runner.withBean(Stamps.class).run(context -> {
            long at = 1_796_306_861_275L;
            template(context).send(MessageBuilder.withPayload("v").setHeader(KafkoHeaders.TOPIC, "stamped")
                    .setHeader(KafkoHeaders.TIMESTAMP, at).setHeader("occurredAt", at).build()).join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            Instant expected = Instant.ofEpochMilli(at);
            assertThat(SEEN).containsExactly(expected, expected, "dead letter", expected,
                    expected.atOffset(java.time.ZoneOffset.UTC), java.util.Date.from(expected));
        });
    }

    static class Stamps {

        @KafkoListener(id = "stamped", topics = "stamped")
        void stamped(String value, @Header(KafkoHeaders.RECEIVED_TIMESTAMP) Instant received,
                @Header("occurredAt") Instant occurred) {
            SEEN.add(received);
            SEEN.add(occurred);
            throw new IllegalStateException("to the dead-letter topic");
        }

        @KafkoListener(id = "stamped-dlt", topics = "stamped.DLT")
        void deadLetter(String value, @Header(KafkoHeaders.DLT_ORIGINAL_TIMESTAMP) Instant original,
                @Header(KafkoHeaders.DLT_ORIGINAL_TIMESTAMP) java.time.OffsetDateTime originalAtUtc,
                @Header(KafkoHeaders.DLT_ORIGINAL_TIMESTAMP) java.util.Date originalDate) {
            SEEN.addAll(List.of("dead letter", original, originalAtUtc, originalDate));
        }
    }

    static class JavaTime {
        @KafkoListener(id = "timed", topics = "timed")
        void timed(String value, @Header("createdAt") Instant createdAt, @Header("ttl") Duration ttl) {
            SEEN.add(createdAt);
            SEEN.add(ttl);
        }

        @KafkoListener(id = "dated", topics = "dated")
        void dated(String value, @Header(KafkoHeaders.RECEIVED_KEY) LocalDate day) {
            SEEN.add(day);
        }
    }

    static class BatchKeys {
        @KafkoListener(id = "int-keys", topics = "int-keys", batch = "true")
        void batch(List<String> values, @Header(KafkoHeaders.RECEIVED_KEY) List<Integer> keys) {
            for (Integer key : keys) {
                SEEN.add(key == null ? "null" : key);
            }
        }
    }

    static class AtomicNumbers {
        @KafkoListener(id = "atomic-keys", topics = "atomic-keys")
        void atomic(String value, @Header(KafkoHeaders.RECEIVED_KEY) AtomicLong key,
                @Header("count") AtomicInteger count) {
            SEEN.add(key.get());
            SEEN.add(count.get());
        }

        @KafkoListener(id = "atomic-keys-batch", topics = "atomic-keys", batch = "true")
        void batch(List<String> values, @Header(KafkoHeaders.RECEIVED_KEY) List<AtomicLong> keys) {
            SEEN.add("batch " + keys.get(0).get());
        }
    }

    static class Keys {
        @KafkoListener(id = "uuid-keys", topics = "uuid-keys")
        void uuid(String value, @Header(KafkoHeaders.RECEIVED_KEY) UUID key) {
            SEEN.add(key);
        }

        @KafkoListener(id = "uuid-keys-as-text", topics = "uuid-keys")
        void uuidText(String value, @Header(KafkoHeaders.RECEIVED_KEY) String key) {
            SEEN.add("text " + key);
        }

        @KafkoListener(id = "enum-keys", topics = "enum-keys")
        void enumKey(String value, @Header(KafkoHeaders.RECEIVED_KEY) TimeUnit key) {
            SEEN.add(key);
        }

        @KafkoListener(id = "number-keys", topics = "number-keys")
        void number(String value, @Header(KafkoHeaders.RECEIVED_KEY) long key) {
            SEEN.add(key);
        }
    }

    static class Headers {
        @KafkoListener(id = "headed", topics = "headed")
        void headed(String value, @Header("order") Order order, @Header("trace") UUID trace,
                @Header("unit") TimeUnit unit, @Header("attempt") int attempt, @Header("urgent") boolean urgent,
                @Header("label") String label) {
            SEEN.addAll(List.of(order, trace, unit, attempt, urgent, label));
        }
    }
}
