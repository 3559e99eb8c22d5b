package dev.kafko.spring.listener.adapter;

import static dev.kafko.spring.listener.adapter.ListenerTestSupport.deadLetteringRunner;
import static dev.kafko.spring.listener.adapter.ListenerTestSupport.template;
import static dev.kafko.spring.listener.adapter.ListenerTestSupport.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoHandler;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.listener.InvalidReplyHeaderException;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.Message;
import org.springframework.messaging.support.MessageBuilder;

/**
 * A listener without {@code @SendTo} whose method is declared to return a {@code Message} (or a
 * {@code Collection} of them) sends what it returns to the topic the message names, as spring-kafka does
 * (it decides by the declared return type); one declared to return anything else sends nothing.
 */
class MessageReturnWithoutSendToTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final List<String> INVOKED = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = deadLetteringRunner(3).withBean(Forwarders.class)
            .withBean(ClassLevelForwarder.class);

    @BeforeEach
    void reset() {
        INVOKED.clear();
    }

    @Test
    void aMethodDeclaredToReturnAMessageSendsItToItsTopicWithTheRequestsCorrelationId() {
        runner.run(context -> {
            template(context).send(MessageBuilder.withPayload("a").setHeader(KafkoHeaders.TOPIC, "single-in")
                    .setHeader(KafkoHeaders.CORRELATION_ID, "c-1").build()).join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(KafkoTestUtils.records(context, "single-out")).singleElement().satisfies(r -> {
                assertThat(text(r.value())).isEqualTo("single-a");
                assertThat(text(r.key())).isEqualTo("own-key");
                assertThat(text(r.headers().lastValue(KafkoHeaders.CORRELATION_ID))).isEqualTo("c-1");
            });
        });
    }

    @Test
    void aCollectionOfMessagesIsSentAMessageEachFromARecordOrABatchListener() {
        runner.run(context -> {
            template(context).send("many-in", "x").join();
            template(context).send("batch-in", "p").join();
            template(context).send("batch-in", "q").join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(KafkoTestUtils.records(context, "many-out")).extracting(r -> text(r.value()))
                    .containsExactly("x-1", "x-2");
            assertThat(KafkoTestUtils.records(context, "batch-out")).extracting(r -> text(r.value()))
                    .containsExactly("batch-p", "batch-q");
        });
    }

    @Test
    void aClassLevelHandlerDeclaredToReturnAMessageSendsIt() {
        runner.run(context -> {
            template(context).send("class-in", "h").join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(KafkoTestUtils.records(context, "class-out")).extracting(r -> text(r.value()))
                    .containsExactly("handled-h");
        });
    }

    @Test
    void aMethodDeclaredToReturnAnotherTypeSendsNothingEvenAMessage() {
        runner.run(context -> {
            template(context).send("object-in", "o").join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(INVOKED).containsExactly("object o");
            assertThat(context.getBean(Kafko.class).topic("object-out")).isEmpty();
        });
    }

    @Test
    void aReturnedMessageWithoutATopicFailsOnceNamingTheListener() {
        runner.run(context -> {
            template(context).send("untargeted-in", "u").join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(INVOKED).as("no retries").containsExactly("untargeted u");
            KafkoRecord dead = KafkoTestUtils.records(context, "untargeted-in.DLT", 1, WAIT).get(0);
            assertThat(text(dead.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_FQCN)))
                    .isEqualTo(InvalidReplyHeaderException.class.getName());
            assertThat(text(dead.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_MESSAGE))).isEqualTo(
                    "Listener 'untargeted' cannot send its reply to the record at untargeted-in-0@0: it has no"
                            + " @SendTo and the Message it returned has no kafko_topic header: set the header on the"
                            + " Message, or name the topic in @SendTo");
        });
    }

    static class Forwarders {
        @KafkoListener(id = "single", topics = "single-in")
        Message<String> single(String text) {
            return MessageBuilder.withPayload("single-" + text).setHeader(KafkoHeaders.TOPIC, "single-out")
                    .setHeader(KafkoHeaders.KEY, "own-key").build();
        }

        @KafkoListener(id = "many", topics = "many-in")
        Collection<Message<String>> many(String text) {
            return List.of(MessageBuilder.withPayload(text + "-1").setHeader(KafkoHeaders.TOPIC, "many-out").build(),
                    MessageBuilder.withPayload(text + "-2").setHeader(KafkoHeaders.TOPIC, "many-out").build());
        }

        @KafkoListener(id = "batch", topics = "batch-in", batch = "true")
        Collection<Message<?>> batch(List<String> texts) {
            return texts.stream().<Message<?>>map(t -> MessageBuilder.withPayload("batch-" + t)
                    .setHeader(KafkoHeaders.TOPIC, "batch-out").build()).toList();
        }

        @KafkoListener(id = "object", topics = "object-in")
        Object object(String text) {
            INVOKED.add("object " + text);
            return MessageBuilder.withPayload(text).setHeader(KafkoHeaders.TOPIC, "object-out").build();
        }

        @KafkoListener(id = "untargeted", topics = "untargeted-in")
        Message<String> untargeted(String text) {
            INVOKED.add("untargeted " + text);
            return MessageBuilder.withPayload(text).build();
        }
    }

    @KafkoListener(id = "class-level", topics = "class-in")
    static class ClassLevelForwarder {
        @KafkoHandler
        Message<String> handle(String text) {
            return MessageBuilder.withPayload("handled-" + text).setHeader(KafkoHeaders.TOPIC, "class-out").build();
        }
    }
}
