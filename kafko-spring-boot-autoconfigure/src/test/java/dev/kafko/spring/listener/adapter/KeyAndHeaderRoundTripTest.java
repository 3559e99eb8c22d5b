package dev.kafko.spring.listener.adapter;

import static dev.kafko.spring.listener.adapter.ListenerTestSupport.template;
import static dev.kafko.spring.listener.adapter.ListenerTestSupport.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.Order;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
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
