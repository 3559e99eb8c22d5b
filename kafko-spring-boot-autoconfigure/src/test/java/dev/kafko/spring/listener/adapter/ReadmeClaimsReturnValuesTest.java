package dev.kafko.spring.listener.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.messaging.support.MessageBuilder;
import reactor.core.publisher.Mono;

/**
 * The README's claims ("Return values, {@code @SendTo} and asynchronous listeners") that no other test checks: a
 * returned {@code Mono} is subscribed once per record, and a returned {@code Message} sends its collection payload as
 * one record where the collection itself is sent a record per element.
 */
class ReadmeClaimsReturnValuesTest {

    static final Map<String, AtomicInteger> SUBSCRIPTIONS = new ConcurrentHashMap<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @Test
    void aReturnedMonoIsSubscribedOncePerRecord() {
        SUBSCRIPTIONS.clear();
        runner.withBean(Reactive.class).run(context -> {
            for (String value : List.of("a", "b", "c")) {
                template(context).send("mono-once", value).join();
            }
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(SUBSCRIPTIONS).containsOnlyKeys("a", "b", "c");
            assertThat(SUBSCRIPTIONS.values()).allSatisfy(n -> assertThat(n).hasValue(1));
            assertThat(KafkoTestUtils.records(context, "mono-once-out")).extracting(ReadmeClaimsReturnValuesTest::text)
                    .containsExactly("A", "B", "C");
        });
    }

    @Test
    void aReturnedMessageSendsItsCollectionAsOneRecordWhereTheCollectionIsARecordPerElement() {
        runner.withBean(Collections.class).run(context -> {
            template(context).send("as-message", "x").join();
            template(context).send("as-list", "x").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(KafkoTestUtils.records(context, "as-message-out")).singleElement()
                    .satisfies(r -> assertThat(text(r)).isEqualTo("[\"x1\",\"x2\",\"x3\"]"));
            assertThat(KafkoTestUtils.records(context, "as-list-out")).extracting(ReadmeClaimsReturnValuesTest::text)
                    .containsExactly("x1", "x2", "x3");
        });
    }

    private static String text(KafkoRecord record) {
        return new String(record.value(), StandardCharsets.UTF_8);
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static class Reactive {
        @KafkoListener(id = "mono-once", topics = "mono-once")
        @SendTo("mono-once-out")
        Mono<String> handle(String value) {
            return Mono.fromCallable(value::toUpperCase).doOnSubscribe(s -> SUBSCRIPTIONS
                    .computeIfAbsent(value, k -> new AtomicInteger()).incrementAndGet());
        }
    }

    static class Collections {
        @KafkoListener(id = "as-message", topics = "as-message")
        @SendTo("as-message-out")
        Message<List<String>> asMessage(String value) {
            return MessageBuilder.withPayload(List.of(value + 1, value + 2, value + 3)).build();
        }

        @KafkoListener(id = "as-list", topics = "as-list")
        @SendTo("as-list-out")
        List<String> asList(String value) {
            return List.of(value + 1, value + 2, value + 3);
        }
    }
}
